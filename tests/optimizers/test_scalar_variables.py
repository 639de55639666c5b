"""Every optimizer updates a 0-d variable exactly as the same value held in shape (1,)."""
import numpy as np
import pytest

import kerasish as keras

NAMES = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "Ftrl", "Lion", "Nadam", "RMSprop", "SGD"]


@pytest.mark.parametrize("name", NAMES)
def test_scalar_matches_vector(name):
    scalar, vector = keras.Variable(2.0), keras.Variable([2.0])
    opt_s = getattr(keras.optimizers, name)(learning_rate=0.1, weight_decay=0.004)
    opt_v = getattr(keras.optimizers, name)(learning_rate=0.1, weight_decay=0.004)
    for g in (0.5, -1.5, 0.25):
        opt_s.apply_gradients([(np.array(g), scalar)])
        opt_v.apply_gradients([(np.array([g]), vector)])
    assert scalar.shape == ()
    assert float(scalar.numpy()) == pytest.approx(float(vector.numpy()[0]), rel=1e-6)
    assert float(scalar.numpy()) != 2.0


def test_adam_weight_decay_known_value():
    # Keras 3.15.1's own expectation for three Adam(lr=1, weight_decay=0.004) steps
    grads, var1, var2 = np.zeros(()), keras.Variable(2.0), keras.Variable(2.0, name="exclude")
    keras.optimizers.Adam(learning_rate=1.0, weight_decay=0.004).apply_gradients([(grads, var1)])
    optimizer = keras.optimizers.Adam(learning_rate=1.0, weight_decay=0.004)
    optimizer.exclude_from_weight_decay(var_names=["exclude"])
    optimizer.apply_gradients([(grads, var1), (grads, var2)])
    keras.optimizers.Adam(learning_rate=1.0, weight_decay=0.004).apply_gradients([(grads, var1)])
    assert float(var1.numpy()) == pytest.approx(1.9760959, abs=1e-6)
    assert float(var2.numpy()) == 2.0
