"""kerasish.ops.rearrange against Keras 3.15.1 (fixtures/ops/einops.json, make_einops.py)."""
import json
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.testing import check_gradients

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops",
                                      "einops.json")))
X = np.array(FIXTURE["x"], "float32")


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["pattern"])
def test_matches_keras(case):
    y = ops.rearrange(X, case["pattern"], **case["lengths"])
    assert list(y.shape) == case["shape"]
    np.testing.assert_array_equal(y.numpy(), np.array(case["y"], "float32"))


def test_gradient_is_the_inverse_rearrangement():
    x = np.random.default_rng(1).random((2, 4, 3)).astype("float64")
    check_gradients(lambda t: ops.rearrange(t, "b (h h1) c -> (c h1) (b h)", h1=2) ** 2, [x])


def test_symbolic_inputs_keep_unknown_batch():
    inputs = keras.Input((30, 40, 3))
    assert ops.rearrange(inputs, "b h w c -> b c h w").shape == (None, 3, 30, 40)
    assert ops.rearrange(inputs, "b (h h1) w c -> b h w (c h1)", h1=2).shape == (None, 15, 40, 6)
    model = keras.Model(inputs, ops.rearrange(inputs, "b h w c -> (b h) w c"))
    np.testing.assert_array_equal(model(np.ones((2, 30, 40, 3))).numpy().shape, (60, 40, 3))


@pytest.mark.parametrize("pattern, lengths, match", [
    ("b h w c", {}, "one '->'"),
    ("b h w -> b w h", {}, "rank 4"),
    ("b h w c -> b h w", {}, "same axes"),
    ("b (h h1) w c -> b h w c h1", {}, "more than one length"),
])
def test_bad_patterns_name_the_problem(pattern, lengths, match):
    with pytest.raises(ValueError, match=match):
        ops.rearrange(X, pattern, **lengths)
