"""Every numeric, lookup, hashing and text case in lookup_fixtures.json (written by real
Keras 3.15.1, see tests/fixtures/preprocessing/make_lookup_fixtures.py) rebuilt with
kerasish: same config, same adapt data, same inputs -> same outputs and vocabulary."""
import json
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "preprocessing"
CASES = json.loads((FIXTURES / "lookup_fixtures.json").read_text(encoding="utf-8"))["cases"]


def _case_id(case):
    return f"{case['layer']}-{json.dumps(case['config'], sort_keys=True)}-{case['note']}"


def _array(values, dtype):
    return np.array(values, dtype=dtype) if dtype else values


def _adapt(layer, case):
    data = _array(case["adapt"], case["adapt_dtype"])
    if case["adapt_batch"]:
        data = keras.data.Dataset.from_tensor_slices(np.asarray(data)).batch(case["adapt_batch"])
    layer.adapt(data)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_matches_keras(case):
    config = dict(case["config"])
    if isinstance(config.get("ngrams"), list):
        config["ngrams"] = tuple(config["ngrams"])
    layer = getattr(keras.layers, case["layer"])(**config)
    if case["adapt"] is not None:
        _adapt(layer, case)
    inputs = case["inputs"]
    if case["layer"] == "HashedCrossing":
        inputs = tuple(np.array(f) for f in inputs)
    else:
        inputs = _array(inputs, case["inputs_dtype"])
    output = layer(inputs).numpy()
    if output.dtype == object:  # string outputs are bytes, as Keras's; the fixture holds text
        assert all(isinstance(v, bytes) for v in output.flat)
        output = np.vectorize(lambda b: b.decode("utf-8"), otypes=[str])(output)
    expected = np.array(case["output"])
    if "vocabulary" in case:
        assert layer.get_vocabulary() == case["vocabulary"]
    if case["layer"] == "Normalization":
        np.testing.assert_allclose(np.ravel(layer.mean.numpy()), np.ravel(case["mean"]),
                                   rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(np.ravel(layer.variance.numpy()),
                                   np.ravel(case["variance"]), rtol=1e-5, atol=1e-6)
    assert output.shape == expected.shape
    assert ("string" if output.dtype.kind in "UO" else str(output.dtype)) == case["dtype"]
    if output.dtype.kind == "f":
        np.testing.assert_allclose(output, expected, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(output, expected)
