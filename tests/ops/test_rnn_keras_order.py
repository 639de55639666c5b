"""Recurrent layers' inference in Keras's step order: TensorFlow's outputs to the bit.

Expected values: Keras 3.15.1 on TensorFlow 2.21 (`predict`), recorded by
tests/fixtures/rnn_keras_order/make_rnn_keras_order.py for the models of
`rnn_cases.py` (LSTM in both implementations, masked steps with a gate size
whose packets leave a scalar tail, go_backwards with states, GRU both ways,
Bidirectional). SimpleRNN and LSTM with recurrent dropout, which Keras's
graph fuses into oneDNN kernels, keep the fused kernel: close, not exact.
"""
import os
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish.ops import rnn as rnn_ops

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "rnn_keras_order")
sys.path.insert(0, FIXTURES)
from rnn_cases import CASES, FUSED_IN_KERAS, build, inputs  # noqa: E402

RECORDED = np.load(os.path.join(FIXTURES, "rnn_keras_order.npz"))


def _model(name):
    keras.utils.set_random_seed(1)
    model = build(keras, name)
    count = len(model.get_weights())
    model.set_weights([RECORDED[f"{name}/w{i}"] for i in range(count)])
    return model


def _outputs(result):
    return [np.asarray(y) for y in (result if isinstance(result, (list, tuple)) else [result])]


@pytest.mark.parametrize("name", CASES)
def test_predict_is_kerass_to_the_bit(name):
    got = _outputs(_model(name).predict(inputs(name), verbose=0))
    for i, y in enumerate(got):
        expected = RECORDED[f"{name}/y{i}"]
        assert y.dtype == expected.dtype and np.array_equal(y, expected), (name, i)


@pytest.mark.parametrize("name", FUSED_IN_KERAS)
def test_layers_keras_fuses_stay_close(name):
    got = _outputs(_model(name).predict(inputs(name), verbose=0))[0]
    np.testing.assert_allclose(got, RECORDED[f"{name}/y0"], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_a_call_outside_a_tape_is_kerass_and_the_fused_kernel_is_not(name):
    model, x = _model(name), inputs(name)
    expected = RECORDED[f"{name}/y0"]
    assert np.array_equal(model(x).numpy(), expected)
    with keras.GradientTape():   # a recorded call runs the fused (differentiable) kernel
        fused = model(x).numpy()
    np.testing.assert_allclose(fused, expected, rtol=2e-5, atol=1e-6)
    if name == "lstm":   # its gates are computed differently: the test can tell them apart
        assert not np.array_equal(fused, expected)


def test_gradients_still_flow_under_a_tape():
    model, x = _model("lstm"), inputs("lstm")
    with keras.GradientTape() as tape:
        loss = keras.ops.sum(model(x))
    grads = tape.gradient(loss, model.trainable_weights)
    assert all(g is not None and np.isfinite(g.numpy()).all() for g in grads)


def test_float64_and_dropout_keep_the_fused_kernel():
    x = np.ones((2, 3, 4))
    k, r, b = np.ones((4, 8)), np.ones((2, 8)), np.zeros(8)
    h = np.zeros((2, 2))
    tensors = [keras.ops.convert_to_tensor(a) for a in (x, k, r, b, h, h)]
    assert rnn_ops._keras_order(rnn_ops._lstm, tensors, (None, None), 2) is None
    tensors32 = [keras.ops.cast(t, "float32") for t in tensors]
    assert rnn_ops._keras_order(rnn_ops._lstm, tensors32, (None, None), 2) is not None
    assert rnn_ops._keras_order(rnn_ops._lstm, tensors32, (np.ones((1, 2, 4)), None), 2) is None
    assert rnn_ops._keras_order(rnn_ops._lstm, tensors32, (None, None), 1) is None
    assert rnn_ops._keras_order(rnn_ops._simple, tensors32[:5], (None, None), 2) is None
