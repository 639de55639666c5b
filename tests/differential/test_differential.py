"""Replays every differential case with kerasish and compares with real Keras's fixtures.

The fixtures come from `make_fixtures.py` (Keras 3.15.1, TensorFlow 2.21, CPU);
see docs/fidelity.md for the axes and tolerances. A case Keras refused must be
refused by kerasish too, unless it is a documented deviation (`ACCEPTED`).
"""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import kerasish
from kerasish import backend

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import recipes  # noqa: E402

with open(HERE / "fixtures" / "cases.json") as _f:
    FIXTURES = json.load(_f)
CASES = FIXTURES["cases"]
ARRAYS = np.load(HERE / "fixtures" / "arrays.npz")
LIB = recipes.Lib(kerasish, kerasish.GradientTape)

# Cases Keras refuses that kerasish deliberately runs (docs/fidelity.md says why).
ACCEPTED = {
    "layer/Conv2D[input=bool]": "Keras/TF cannot convolve bool inputs with a float kernel; "
                                "kerasish casts them to the compute dtype as for Dense/RNNs",
    "layer/Conv2D[input=int32]": "same as bool: integer inputs are cast to the compute dtype",
}

# Known differences not fixed yet: xfail(strict=True) so a fix is noticed.
XFAIL = {}  # {case id: why}; none at present

FLOAT32_TOL = (1e-4, 1e-5)


def tolerance(case):
    """(rtol, atol) for a case: float32 unless its inputs or policy say otherwise."""
    policy = case.get("policy") or ""
    dtype = case.get("input_dtype", "")
    if "bfloat16" in (policy + dtype):
        return 2e-2, 2e-2  # 8 mantissa bits
    if "float16" in (policy + dtype) or case.get("model") in ("sequential_mixed_float16",
                                                             "mixed_float16_conv"):
        return 5e-3, 5e-3  # 11 mantissa bits, accumulation order differs from TF
    if case["group"] == "model":
        return 1e-4, 1e-5
    return FLOAT32_TOL


def _params():
    out = []
    for case in CASES:
        marks = []
        if case["id"] in XFAIL:
            marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[case["id"]]))
        out.append(pytest.param(case, id=case["id"], marks=marks))
    return out


def _needs_bfloat16(case):
    return "bfloat16" in (case.get("policy") or "") + case.get("input_dtype", "")


def _run(case):
    if _needs_bfloat16(case):
        pytest.importorskip("ml_dtypes", reason="bfloat16 on the numpy backend needs ml_dtypes")
    backend.clear_session(free_memory=False)
    kerasish.mixed_precision.set_global_policy("float32")
    with np.errstate(all="ignore"):  # all-masked rows give NaN (0/0) in Keras too
        return recipes.run_case(LIB, case)


@pytest.mark.parametrize("case", _params())
def test_matches_keras(case):
    if "keras_error" in case:
        if case["id"] in ACCEPTED:
            _run(case)  # runs; the numbers are checked in test_accepted_deviations
            return
        with pytest.raises(Exception):
            _run(case)
        return
    meta, arrays = _run(case)
    assert_matches(case, meta, arrays)


def assert_matches(case, meta, arrays):
    """kerasish's (meta, arrays) for `case` equal Keras's fixtures within tolerance."""
    for key, expected in case["keras"].items():
        assert meta[key] == expected, f"{case['id']}: {key} differs"
    prefix = case["id"] + "::"
    expected_names = sorted(k[len(prefix):] for k in ARRAYS.files if k.startswith(prefix))
    assert sorted(arrays) == expected_names, f"{case['id']}: different outputs/gradients"
    rtol, atol = tolerance(case)
    for name in expected_names:
        expected = ARRAYS[prefix + name]
        actual = np.asarray(arrays[name])
        assert actual.shape == expected.shape, f"{case['id']}::{name} shape"
        if expected.dtype.kind in "biu":
            np.testing.assert_array_equal(actual, expected, err_msg=f"{case['id']}::{name}")
            continue
        np.testing.assert_allclose(actual.astype("float64"), expected.astype("float64"),
                                   rtol=rtol, atol=atol * max(1.0, float(np.abs(expected).max(
                                       initial=0.0))), err_msg=f"{case['id']}::{name}")


def replay(case_id):
    """Runs one recorded case with kerasish and asserts it matches Keras (for other tests)."""
    case = next(c for c in CASES if c["id"] == case_id)
    meta, arrays = _run(case)
    assert_matches(case, meta, arrays)


@pytest.mark.parametrize("case_id", sorted(ACCEPTED))
def test_accepted_deviations(case_id):
    """Integer/bool inputs Keras refuses give exactly the numbers of the same values as float32."""
    case = next(c for c in CASES if c["id"] == case_id)
    rng = np.random.default_rng(case["seed"])
    x, _ = recipes.make_input(case, rng)
    layer = recipes.build_layer(kerasish, {"__layer__": case["layer"], **case["kwargs"]})
    layer(x)
    layer.set_weights(recipes.make_weights(layer, rng))
    from_int = layer(x)
    assert from_int.dtype == "float32"
    np.testing.assert_array_equal(from_int.numpy(), layer(x.astype("float32")).numpy())


# Public classes without a differential case yet (docs/fidelity.md lists them too).
NOT_YET_COVERED = {}  # e.g. {"kerasish.layers.X": "why it has no case yet"}


def _covered_names():
    covered = {c.get("layer") for c in CASES} | {c.get("loss") for c in CASES} | \
        {c.get("metric") for c in CASES} | {c.get("optimizer") for c in CASES}
    for case in CASES:  # wrapped layers and cells count too
        covered.update(_nested_names(case.get("kwargs", {})))
    for module in (kerasish.layers, kerasish.losses, kerasish.metrics, kerasish.optimizers):
        # a case may use Keras's name for a class kerasish defines under another
        # (GroupQueryAttention is GroupedQueryAttention)
        covered |= {getattr(module, n).__name__ for n in list(covered)
                    if isinstance(n, str) and isinstance(getattr(module, n, None), type)}
    return covered


def test_not_yet_covered_list_is_current():
    """An entry must name an existing public class that still has no case."""
    covered = _covered_names()
    for qualified in NOT_YET_COVERED:
        module_name, name = qualified.rsplit(".", 1)
        module = {"kerasish.layers": kerasish.layers, "kerasish.losses": kerasish.losses,
                  "kerasish.metrics": kerasish.metrics,
                  "kerasish.optimizers": kerasish.optimizers}[module_name]
        assert isinstance(getattr(module, name, None), type), f"{qualified} no longer exists"
        assert name not in covered, f"{qualified} is covered now: remove it from NOT_YET_COVERED"


def test_every_public_layer_loss_metric_and_optimizer_is_covered():
    covered = _covered_names()
    missing = []
    for module, base in ((kerasish.layers, kerasish.layers.Layer),
                         (kerasish.losses, kerasish.losses.Loss),
                         (kerasish.metrics, kerasish.metrics.Metric),
                         (kerasish.optimizers, kerasish.optimizers.BaseOptimizer)):
        for name in dir(module):
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, base) and obj.__name__ == name \
                    and name not in _ABSTRACT and name not in covered \
                    and f"{module.__name__}.{name}" not in NOT_YET_COVERED:
                missing.append(f"{module.__name__}.{name}")
    assert not missing, f"no differential case for: {missing}"


_ABSTRACT = {"Layer", "Loss", "LossFunctionWrapper", "Metric", "MeanMetricWrapper",
             "BaseOptimizer", "Optimizer", "InputLayer", "InputSpec",
             "RecurrentCell", "Merge", "BaseConv", "BasePooling", "BaseGlobalPooling"}


def _nested_names(value):
    if isinstance(value, dict):
        names = {value["__layer__"]} if "__layer__" in value else set()
        for v in value.values():
            names |= _nested_names(v)
        return names
    if isinstance(value, list):
        return set().union(*(_nested_names(v) for v in value)) if value else set()
    return set()


def test_fixtures_come_from_the_pinned_keras():
    assert FIXTURES["keras"] == "3.15.1"
    assert FIXTURES["tensorflow"].startswith("2.21")
    assert len(CASES) >= 500
