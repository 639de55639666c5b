"""Bias gradients in float16 / bfloat16 are summed as Keras's TensorFlow `bias_add`.

float16 accumulates in float32; bfloat16 adds row after row in bfloat16.

Expected gradients: `tests/fixtures/mixed_precision/bias_grads.json`, written by
`make_bias_grads.py` beside it with real Keras 3.15.1 (the inputs come from its
numpy-only `inputs(seed)`, imported here).
"""
import importlib.util
import json
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish.autodiff.tape import GradientTape

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mixed_precision")
with open(os.path.join(HERE, "bias_grads.json")) as f:
    KERAS = json.load(f)["cases"]
_spec = importlib.util.spec_from_file_location("make_bias_grads",
                                               os.path.join(HERE, "make_bias_grads.py"))
_generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_generator)

CASES = [(d, s) for d in ("float16", "bfloat16") for s in range(3)]


def _bias_gradient(layer_or_none, dtype, seed, kind):
    d = _generator.inputs(seed)
    if kind == "conv2d":
        layer = keras.layers.Conv2D(3, 3, dtype=dtype, bias_initializer="ones")
        layer.build((None, 6, 6, 2))
        x, g = keras.ops.cast(d["img"], dtype), keras.ops.cast(d["conv_g"], dtype)
        with GradientTape() as tape:
            y = layer(x)
        return tape.gradient(y, layer.bias, output_gradients=g)
    x, g = keras.ops.cast(d["x"], dtype), keras.ops.cast(d["g"], dtype)
    if kind == "ops_add":
        b = keras.Variable(np.ones(6, "float32"), dtype=dtype)
        kernel = keras.ops.cast(d["kernel"], dtype)
        with GradientTape() as tape:
            y = keras.ops.add(keras.ops.matmul(x, kernel), b)
        return tape.gradient(y, b, output_gradients=g)
    layer = keras.layers.Dense(6, activation="relu" if kind == "dense_relu" else None,
                               dtype=dtype, bias_initializer="ones")
    layer.build((None, 5))
    layer.kernel.assign(d["kernel"])
    with GradientTape() as tape:
        y = layer(x)
    return tape.gradient(y, layer.bias, output_gradients=g)


@pytest.mark.parametrize("kind", ["dense_relu", "dense_linear", "ops_add", "conv2d"])
@pytest.mark.parametrize("dtype,seed", CASES)
def test_bias_gradient_matches_keras(kind, dtype, seed):
    grad = _bias_gradient(None, dtype, seed, kind)
    expected = np.asarray(KERAS[f"{kind}/{dtype}/{seed}"], "float32")
    np.testing.assert_array_equal(np.asarray(keras.ops.cast(grad, "float32")), expected)


def test_the_fixture_needs_float32_accumulation():
    # Guard: a plain float16 sum would miss at least one expected value.
    d = _generator.inputs(0)
    g16 = d["g"].astype(np.float16)
    low = g16.sum(axis=0)
    high = g16.astype(np.float32).sum(axis=0).astype(np.float16)
    assert (low != high).any()
    np.testing.assert_array_equal(high.astype("float32"),
                                  np.asarray(KERAS["dense_linear/float16/0"], "float32"))
