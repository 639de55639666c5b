"""Exact gelu (float32 / float16) and a mixed-precision Embedding gradient against Keras.

Expected values: `tests/fixtures/mixed_precision/float16_ops.json`, written by
`make_float16_ops.py` beside it with real Keras 3.15.1 (inputs from its
numpy-only `inputs()`, imported here).
"""
import importlib.util
import json
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish.autodiff.tape import GradientTape

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mixed_precision")
with open(os.path.join(HERE, "float16_ops.json")) as f:
    KERAS = json.load(f)["cases"]
_spec = importlib.util.spec_from_file_location("make_float16_ops",
                                               os.path.join(HERE, "make_float16_ops.py"))
_generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_generator)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_exact_gelu_and_its_gradient(dtype):
    d = _generator.inputs()
    x = keras.ops.cast(d["x"], dtype)
    with GradientTape() as tape:
        tape.watch(x)
        y = keras.activations.gelu(x)
    g = tape.gradient(y, x, output_gradients=keras.ops.cast(d["upstream"], dtype))
    assert y.dtype == dtype and g.dtype == dtype
    if dtype == "float16":  # TensorFlow's roundings, op for op
        np.testing.assert_array_equal(np.asarray(y, "float32"), KERAS[f"gelu/{dtype}"])
        np.testing.assert_array_equal(np.asarray(g, "float32"), KERAS[f"gelu_grad/{dtype}"])
    else:
        np.testing.assert_allclose(np.asarray(y), KERAS[f"gelu/{dtype}"], rtol=2e-7, atol=1e-7)
        np.testing.assert_allclose(np.asarray(g), KERAS[f"gelu_grad/{dtype}"], rtol=2e-7,
                                   atol=1e-7)


def test_erfc_is_computed_directly():
    # 1 - erf(x) would be 0 here; Keras (tf.math.erfc) gives the tail
    assert float(keras.ops.erfc(keras.ops.convert_to_tensor(6.0, "float32"))) == \
        pytest.approx(2.1519735601555005e-17, rel=1e-6, abs=0)


def test_mixed_precision_embedding_rows_are_summed_in_float32():
    d = _generator.inputs()
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        layer = keras.layers.Embedding(5, 3)
        layer.build((None, 4))
        layer.embeddings.assign(d["table"])
        with GradientTape() as tape:
            y = layer(d["ids"])
        g = tape.gradient(y, layer.embeddings,
                          output_gradients=keras.ops.cast(d["row_grads"], "float16"))
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert g.dtype == "float32"
    np.testing.assert_array_equal(np.asarray(g), KERAS["embedding_grad/mixed_float16"])
    # a float16 sum of the same rows would differ somewhere (the fixture can tell)
    rows16 = d["row_grads"].astype(np.float16).reshape(-1, 3)
    dense16 = np.zeros((5, 3), np.float16)
    np.add.at(dense16, d["ids"].reshape(-1), rows16)
    assert not np.array_equal(dense16.astype("float32"), np.asarray(g))
