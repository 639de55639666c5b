"""keras.name_scope prefixes weight paths as real Keras 3.15.1 does."""
import pytest

import kerasish as keras


def test_paths_match_keras():
    keras.backend.clear_session()
    with keras.name_scope("enc"):
        first = keras.layers.Dense(2)
        first.build((None, 3))
    with keras.name_scope("a"):
        with keras.name_scope("b"):
            second = keras.layers.Dense(2)
            second(keras.ops.ones((1, 3)))
    third = keras.layers.Dense(2)
    with keras.name_scope("late"):
        third.build((None, 3))
    assert first.kernel.path == "enc/dense/kernel"
    assert second.kernel.path == "a/b/dense_1/kernel"
    assert third.kernel.path == "late/dense_2/kernel"
    outside = keras.layers.Dense(1, name="plain")
    outside.build((None, 2))
    assert outside.kernel.path == "plain/kernel"


def test_bad_name():
    with pytest.raises(ValueError, match="non-empty string"):
        keras.name_scope("")
