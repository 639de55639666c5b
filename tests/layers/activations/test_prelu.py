"""PReLU computes Keras's relu(x) - alpha * relu(-x)."""
import numpy as np

import kerasish as keras
from kerasish.autodiff import GradientTape


def test_values_signed_zeros_and_gradient_at_zero_as_keras():
    # Keras 3.15.1 printed [-0.5, -0.0, 0.0, 3.0] and the input gradient [0.25, 0.0, 0.0, 1.0].
    layer = keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25))
    x = keras.Variable(np.array([-2.0, -0.0, 0.0, 3.0], "float32"))
    with GradientTape() as tape:
        y = layer(x)
    np.testing.assert_array_equal(y.numpy(), [-0.5, -0.0, 0.0, 3.0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.25, 0.0, 0.0, 1.0])
    # Keras's default alpha 0: negative inputs give +0.0 (a `where` gave -0.0).
    out = keras.layers.PReLU()(np.array([-1.0, 2.0], "float32")).numpy()
    assert np.signbit(out).tolist() == [False, False]
