"""TensorFlow's graph rewrites that Keras's compiled functions (`predict`, `fit`,
`evaluate`) see and its eager calls do not: a division by a constant becomes a product by
its float32 reciprocal; hard_sigmoid's `/ 6` and hard_silu's product order follow
(fixture: tests/fixtures/graph_rewrites, recorded with Keras 3.15.1)."""
import os
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "graph_rewrites")
sys.path.insert(0, HERE)
from graph_rewrite_cases import cases, inputs  # noqa: E402

RECORDED = np.load(os.path.join(HERE, "graph_rewrites.npz"))
CASES = cases(ops)


@pytest.mark.parametrize("name", sorted(CASES))
def test_predict_and_eager_are_kerass(name):
    x = inputs()
    model = keras.Sequential([keras.Input((x.shape[1],)), keras.layers.Lambda(CASES[name])])
    np.testing.assert_array_equal(model.predict(x, verbose=0), RECORDED[f"{name}/predict"])
    np.testing.assert_array_equal(model(x).numpy(), RECORDED[f"{name}/eager"])
    assert (RECORDED[f"{name}/predict"] != RECORDED[f"{name}/eager"]).any()  # Keras's two


def test_eager_division_by_a_constant_divides():
    x = ops.convert_to_tensor(np.float32([1.0, 3.0, 10.0]))
    np.testing.assert_array_equal((x / 3.0).numpy(), np.float32([1, 3, 10]) / np.float32(3))

