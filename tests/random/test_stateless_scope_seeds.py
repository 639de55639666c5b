"""Seed generators do not advance inside a `StatelessScope` (their state is a
variable: the scope holds the advanced copy), as in Keras.

Expected values: real Keras 3.15.1 on TensorFlow 2.21 running the same program
(/tmp/probe6/p5.py of the probe6 session).
"""
import numpy as np

import kerasish as keras


def test_layer_generator_advances_only_in_the_scope():
    gen = keras.random.SeedGenerator(5)
    with keras.StatelessScope() as scope:
        a = keras.random.normal((2,), seed=gen)
        b = keras.random.normal((2,), seed=gen)
    assert np.asarray(gen.state).tolist() == [5, 0]
    assert np.asarray(scope.get_current_value(gen.state)).tolist() == [5, 2]
    np.testing.assert_allclose(np.asarray(a), [-2.0554, 1.1582], atol=1e-4)
    np.testing.assert_allclose(np.asarray(b), [-0.2986, 0.9386], atol=1e-4)


def test_global_generator_does_not_advance_in_the_scope():
    keras.utils.set_random_seed(2)
    with keras.StatelessScope():
        inside = keras.random.uniform((2,))
    after = keras.random.uniform((2,))
    np.testing.assert_allclose(np.asarray(inside), [0.7844, 0.0481], atol=1e-4)
    np.testing.assert_allclose(np.asarray(after), np.asarray(inside))
