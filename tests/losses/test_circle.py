"""Circle loss against the values Keras 3.15.1 publishes in its tests; gradients."""
import numpy as np

import kerasish as keras
from kerasish.testing import check_gradients

Y_TRUE = np.array([1, 1, 2, 2, 3])
Y_PRED = np.array([[0.70014004, -0.42008403, 0.14002801, 0.56011203],
                   [0.17609018, 0.70436073, -0.52827054, 0.44022545],
                   [-0.34050261, 0.25537696, -0.68100522, 0.59587957],
                   [0.32163376, -0.75047877, 0.53605627, -0.21442251],
                   [0.51261459, -0.34174306, 0.17087153, 0.76892189]])
REF_LABELS = np.array([1, 1, 2, 2, 3, 4])
REF = np.array([[0.40824829, -0.54433105, 0.27216553, 0.68041382],
                [0.76376261, 0.10910895, -0.54554473, 0.32732684],
                [-0.74420841, 0.24806947, 0.49613894, -0.3721042],
                [0.52981294, -0.13245324, 0.79471941, -0.26490647],
                [0.54554473, -0.32732684, 0.10910895, 0.76376261],
                [-0.27216553, 0.68041382, 0.40824829, -0.54433105]])


def test_known_values():
    np.testing.assert_allclose(float(keras.losses.Circle()(Y_TRUE, Y_PRED)), 188.3883, rtol=1e-5)
    np.testing.assert_allclose(float(keras.losses.Circle(gamma=256, margin=0.25)(Y_TRUE, Y_PRED)),
                               652.7617, rtol=1e-5)
    per_sample = keras.losses.circle(Y_TRUE, Y_PRED, ref_labels=REF_LABELS, ref_embeddings=REF,
                                     remove_diagonal=False)
    np.testing.assert_allclose(per_sample.numpy(),
                               [61.5844, 94.3465, 276.9344, 90.9873, 48.8963], rtol=1e-5)
    weighted = keras.losses.Circle()(Y_TRUE, Y_PRED,
                                     sample_weight=np.array([2.0, 2.0, 1.0, 1.0, 0.5]))
    np.testing.assert_allclose(float(weighted), 244.91918, rtol=1e-5)
    unreduced = keras.losses.Circle(reduction=None)(REF_LABELS, REF)
    np.testing.assert_allclose(unreduced.numpy(), [82.9116, 36.7942, 92.4590, 52.6798, 0.0, 0.0],
                               rtol=1e-4)


def test_config_and_gradient():
    loss = keras.losses.Circle(name="c", gamma=64.0, margin=0.3, remove_diagonal=False)
    assert keras.losses.Circle.from_config(loss.get_config()).get_config() == loss.get_config()
    check_gradients(lambda e: keras.losses.circle(Y_TRUE, e, gamma=4.0), [Y_PRED])
