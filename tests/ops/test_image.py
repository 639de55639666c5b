"""keras.ops.image against real Keras 3.15.1 (TensorFlow backend) outputs from
tests/fixtures/preprocessing/make_image_fixtures.py."""
import json
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "preprocessing"
CASES = json.loads((FIXTURES / "image_fixtures.json").read_text())["cases"]
ARRAYS = np.load(FIXTURES / "image_fixtures.npz")
OPS = [c for c in CASES if c["kind"] == "op"]


def case_id(case):
    return f"{case['name']}-{json.dumps(case['args'], sort_keys=True)}"


def inputs_of(case):
    return [ARRAYS[f"{case['key']}_in{i}"] for i in range(case["n_inputs"])]


def assert_matches(got, expected, args):
    got = np.asarray(got)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=2e-5 * scale, err_msg=str(args))


@pytest.mark.parametrize("case", OPS, ids=[case_id(c) for c in OPS])
def test_op_matches_keras(case):
    args = dict(case["args"])
    for key in ("size", "kernel_size", "sigma", "strides"):
        if isinstance(args.get(key), list):
            args[key] = tuple(args[key])
    out = getattr(keras.ops.image, case["name"])(*inputs_of(case), **args)
    assert_matches(out.numpy(), ARRAYS[f"{case['key']}_out"], args)
