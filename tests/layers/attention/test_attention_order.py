"""MultiHeadAttention computes Keras's numbers: `keras.ops.dot_product_attention`'s
order (logits scaled after the product) or the einsum path's (query scaled
first), with oneDNN's softmax. Values recorded from Keras 3.15.1 on TensorFlow
2.21 (inside a tf.function) by tests/fixtures/attention_order/make_attention_order.py."""
import os
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish.backend import keras_graph
from kerasish.backend.kernels import onednn_math

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "attention_order")
sys.path.insert(0, HERE)
from make_attention_order import CASES, call, layer  # noqa: E402

FIXTURE = np.load(os.path.join(HERE, "attention_order.npz"))


@pytest.mark.skipif(onednn_math.cpu_kernel() != (16, True),
                    reason="recorded with oneDNN's AVX-512 softmax (x86 with AVX-512)")
@pytest.mark.parametrize("name, kwargs, call_kwargs", CASES, ids=[c[0] for c in CASES])
def test_multi_head_attention_equals_keras(name, kwargs, call_kwargs):
    mha = layer(keras, kwargs)
    with keras_graph.compiled_step():
        results = call(mha, call_kwargs)
    for index, value in enumerate(results):
        np.testing.assert_array_equal(np.asarray(value), FIXTURE[f"{name}_{index}"])
