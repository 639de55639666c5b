"""Keras's warning when a layer that does not support masking gets a masked input.

Expected values: these programs under Keras 3.15.1 (TF backend), probe12 session
(maskwarn.py, mw2.py): which layers warn after a masked Embedding, and when.
"""
import warnings

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


def _mask_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if "mask attached" in str(w.message)]


def _masked_input():
    return layers.Embedding(10, 4, mask_zero=True)(keras.Input((5,), dtype="int32"))


@pytest.mark.parametrize("make, warns", [
    (lambda: layers.Flatten(name="flat"), True),
    (lambda: layers.Conv1D(3, 2), True),
    (lambda: layers.GlobalMaxPooling1D(), True),
    (lambda: layers.Lambda(lambda x: x * 2), True),
    (lambda: layers.Dense(3), False),
    (lambda: layers.GlobalAveragePooling1D(), False),
    (lambda: layers.LSTM(3), False),
    (lambda: layers.Masking(), False),   # its compute_mask's ops (NotEqual) never warn
    (lambda: layers.Dropout(0.1), False),
])
def test_symbolic_calls_warn_as_keras(make, warns):
    layer = make()
    found = _mask_warnings(lambda: layer(_masked_input()))
    assert bool(found) == warns
    if warns:
        assert found == [
            f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input "
            "with a mask attached to it. However, this layer does not support masking and "
            "will therefore destroy the mask information. Downstream layers will not see "
            "the mask."]


def test_eager_calls_and_nested_models_warn_too():
    masked = layers.Embedding(10, 4, mask_zero=True)(np.array([[1, 0]]))
    assert len(_mask_warnings(lambda: layers.Flatten()(masked))) == 1
    inputs = keras.Input((5, 4))
    inner = keras.Model(inputs, layers.Dense(2)(inputs))
    found = _mask_warnings(lambda: inner(_masked_input()))
    assert len(found) == 1 and "(of type Functional)" in found[0]


def test_an_explicit_mask_counts_as_the_inputs_mask():
    """Keras 3.15.1 (probe12 session, em.py, keras-io Swin's WindowAttention): a
    `mask=` given to a layer that does not support masking warns too, symbolic
    or eager; an explicit symbolic mask masks an RNN's sequence output."""
    class TakesMask(keras.layers.Layer):
        def call(self, x, mask=None):
            return x

    x = keras.Input((4, 3))
    m = keras.Input((4,), dtype="bool")
    assert len(_mask_warnings(lambda: TakesMask()(x, mask=m))) == 1
    assert len(_mask_warnings(lambda: TakesMask()(np.ones((1, 4, 3)),
                                                  mask=np.ones((1, 4), bool)))) == 1
    y = layers.LSTM(2, return_sequences=True)(x, mask=m)
    assert y._keras_mask is not None
