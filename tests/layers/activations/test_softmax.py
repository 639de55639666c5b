"""Softmax layer: Keras's mask checks (messages and when they run).

Expected values: Keras 3.15.1 (TF backend), probe12 session (sm.py, sm2.py).
"""
import re

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


def test_a_mask_that_does_not_broadcast_fails_at_call_time_as_keras():
    """A symbolic call uses `compute_output_shape`, so the graph builds; the call
    on tensors raises Keras's message."""
    inputs = keras.Input((5,), dtype="int32")
    outputs = layers.Softmax()(layers.Embedding(10, 4, mask_zero=True)(inputs))
    assert outputs.shape == (None, 5, 4)
    model = keras.Model(inputs, outputs)
    with pytest.raises(ValueError, match=re.escape(
            "The `mask` must be broadcastable to `inputs`. Each mask dimension must be 1 or "
            "match the corresponding input dimension. Received: inputs.shape=(1, 5, 4), "
            "mask.shape=(1, 5)")):
        model.predict(np.array([[1, 2, 0, 0, 3]]), verbose=0)
    with pytest.raises(ValueError, match=re.escape(
            "The `mask` must be broadcastable to `inputs` and must not have more dimensions. "
            "Received: inputs.shape=(2,), mask.shape=(1, 2)")):
        layers.Softmax()(np.ones(2, "float32"), mask=np.ones((1, 2), bool))


def test_a_broadcastable_mask_zeroes_the_masked_positions():
    out = layers.Softmax()(np.zeros((2, 3), "float32"),
                           mask=np.array([[True, False, True], [False, False, False]]))
    np.testing.assert_allclose(out.numpy(), [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]])
