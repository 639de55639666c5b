"""A one-input-channel 2-D convolution outside training sums its taps as TensorFlow's
oneDNN kernels do (column by column for two or more images, row by row for one). Values recorded from Keras 3.15.1 on
TensorFlow 2.21 by tests/fixtures/conv_order/make_conv_order.py."""
import os
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish.backend.kernels import onednn_gemm

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "conv_order")
sys.path.insert(0, HERE)
from make_conv_order import CASES, operands  # noqa: E402

FIXTURE = np.load(os.path.join(HERE, "conv_order.npz"))


@pytest.mark.skipif(onednn_gemm.product_kernel(np.dtype("float32")) is None,
                    reason="oneDNN's AVX-512 order is followed only on AVX-512 CPUs")
@pytest.mark.parametrize("index", range(len(CASES)))
def test_one_channel_convolution_equals_tensorflows(index):
    k, f, strides, padding = CASES[index]
    x, w = operands(index)
    got = keras.ops.convert_to_numpy(keras.ops.conv(x, w, strides=strides, padding=padding))
    np.testing.assert_array_equal(got, FIXTURE[f"conv_{index}"])
    single = keras.ops.convert_to_numpy(
        keras.ops.conv(x[:1], w, strides=strides, padding=padding))
    np.testing.assert_array_equal(single, FIXTURE[f"single_{index}"])


def test_the_im2col_order_differs_from_the_recorded_values():
    """The taps added row by row (the im2col order, kept for training) give other bits
    (so the test above can fail)."""
    x, w = operands(0)
    k, f = CASES[0][:2]
    windows = np.lib.stride_tricks.sliding_window_view(x[..., 0], (k, k), axis=(1, 2))
    rows = onednn_gemm.chain_reference(np.ascontiguousarray(windows.reshape(-1, k * k)),
                                       w.reshape(k * k, f))
    assert not np.array_equal(rows.reshape(FIXTURE["conv_0"].shape), FIXTURE["conv_0"])
