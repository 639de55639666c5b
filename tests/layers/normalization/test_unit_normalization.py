"""UnitNormalization is Keras's ops.normalize(x, order=2, epsilon=1e-12)."""
import numpy as np

from kerasish import layers, ops
from kerasish.autodiff import GradientTape


def test_tiny_and_zero_vectors_as_keras():
    # Keras 3.15.1 printed these: the bound is min(rsqrt(sum of squares), 1e12), so a
    # vector of norm 1e-7 is still scaled to unit length (a max(sum, 1e-12) bound gave 0.1).
    x = np.array([[1e-7, 0.0, 0.0], [0.0, 0.0, 0.0], [3.0, 4.0, 0.0], [1e-30, 2e-30, 0.0]],
                 "float32")
    out = layers.UnitNormalization()(x).numpy()
    np.testing.assert_allclose(out, [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.6, 0.8, 0.0],
                                     [1e-18, 2e-18, 0.0]], rtol=1e-6)
    both = layers.UnitNormalization(axis=[0, 1])(x).numpy()
    np.testing.assert_allclose(both[0, 0], 2e-8, rtol=1e-6)


def test_gradient_at_a_zero_vector_is_the_bound_as_tensorflow():
    # Keras 3.15.1 on TensorFlow: [[1e12, 2e12], [-0.064, 0.048]] (no NaN).
    x = ops.convert_to_tensor(np.array([[0.0, 0.0], [3.0, 4.0]], "float32"))
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(layers.UnitNormalization()(x) * np.array([[1.0, 2.0]], "float32"))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[1e12, 2e12], [-0.064, 0.048]],
                               rtol=1e-5)
