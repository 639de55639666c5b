"""Regularizer values, validation, layer penalties and get/serialize."""
import json
import re

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops, regularizers as R
from kerasish.testing import check_gradients

W = np.array([[0.5, -1.0, 2.0], [-0.25, 3.0, 0.0]], dtype="float32")


def test_l1_l2_l1l2_values():
    x = ops.convert_to_tensor(W)
    np.testing.assert_allclose(float(R.L1(0.1)(x)), 0.1 * 6.75, rtol=1e-6)
    np.testing.assert_allclose(float(R.L2(0.1)(x)), 0.1 * 14.3125, rtol=1e-6)
    np.testing.assert_allclose(float(R.L1L2(l1=0.1, l2=0.2)(x)), 0.675 + 2.8625, rtol=1e-6)
    assert float(R.L2(2.0)(ops.ones((5, 5)))) == 50.0          # no 1/2, as Keras
    assert float(R.L1L2()(x)) == 0.0


def test_penalties_are_scalar_tensors_of_the_weight_dtype():
    for reg in (R.L1(), R.L2(), R.L1L2(0.1, 0.1), R.OrthogonalRegularizer(), R.Regularizer()):
        out = reg(ops.convert_to_tensor(W))
        assert isinstance(out, keras.Tensor) and out.shape == ()
    assert R.L2()(ops.convert_to_tensor(W.astype("float64"))).dtype == "float64"


def test_defaults_match_keras():
    assert R.L1().l1 == 0.01 and R.L2().l2 == 0.01
    assert R.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert R.L1(None).l1 == 0.01 and R.L1L2(None, None).l2 == 0.0
    # Keras 3.15.1 keeps the factor as a float32 tensor, so its config reads back
    # float(float32(0.01)): OrthogonalRegularizer().get_config() printed by the oracle.
    assert R.OrthogonalRegularizer().get_config() == {"factor": 0.009999999776482582, "mode": "rows"}


def _orthogonal_reference(w, factor, axis):
    unit = w / np.linalg.norm(w, axis=axis, keepdims=True)
    product = unit @ unit.T if axis == 1 else unit.T @ unit
    n = product.shape[0]
    return factor * 0.5 * np.abs(product * (1 - np.eye(n))).sum() / (n * (n - 1) / 2)


@pytest.mark.parametrize("mode, axis", [("rows", 1), ("columns", 0)])
def test_orthogonal_regularizer_matches_formula(mode, axis):
    w = np.random.RandomState(0).rand(4, 5).astype("float32")
    got = float(R.OrthogonalRegularizer(factor=0.1, mode=mode)(ops.convert_to_tensor(w)))
    np.testing.assert_allclose(got, _orthogonal_reference(w, 0.1, axis), rtol=1e-5)
    assert float(R.OrthogonalRegularizer(1.0)(ops.eye(3))) == 0.0


def test_orthogonal_regularizer_validates_mode_and_rank():
    with pytest.raises(ValueError, match="mode.*Received: mode=diagonal"):
        R.OrthogonalRegularizer(mode="diagonal")
    with pytest.raises(ValueError, match="rank 2.*Received: inputs.shape=\\(2, 2, 2\\)"):
        R.OrthogonalRegularizer()(ops.ones((2, 2, 2)))


@pytest.mark.parametrize("value", [-0.1, float("nan"), float("inf"), True, "0.1", [0.1]])
def test_factors_are_validated(value):
    with pytest.raises(ValueError, match="l1: expected a non-negative float"):
        R.L1(value)


def test_factor_accepts_numpy_numbers():
    assert R.L2(np.float32(0.5)).l2 == 0.5 and R.L1(np.int64(1)).l1 == 1.0


def test_gradients_of_penalties():
    w = W.astype("float64")
    check_gradients(R.L2(0.3), [w])
    check_gradients(R.L1(0.3), [w])
    check_gradients(R.OrthogonalRegularizer(0.5), [w + 0.1])


def test_dense_layer_adds_kernel_penalty_to_losses():
    layer = keras.layers.Dense(5, kernel_initializer="ones", kernel_regularizer=R.L1(0.01))
    layer(ops.ones((5, 5)))
    np.testing.assert_allclose(sum(float(v) for v in layer.losses), 0.25, rtol=1e-6)


@pytest.mark.parametrize("name, cls", [
    ("l1", R.L1), ("L1", R.L1), ("l2", R.L2), ("L2", R.L2), ("l1l2", R.L1L2),
    ("L1L2", R.L1L2), ("orthogonal_regularizer", R.OrthogonalRegularizer),
    ("OrthogonalRegularizer", R.OrthogonalRegularizer),
])
def test_get_every_alias(name, cls):
    assert type(R.get(name)) is cls


def test_get_none_instances_callables_and_errors():
    assert R.get(None) is None
    reg = R.L2(0.5)
    assert R.get(reg) is reg and type(R.get(R.L1)) is R.L1
    assert R.l1 is R.L1 and R.l2 is R.L2 and R.l1_l2 is R.L1L2
    assert R.orthogonal_regularizer is R.OrthogonalRegularizer

    def penalty(w):
        return ops.sum(w)
    assert R.get(penalty) is penalty
    with pytest.raises(ValueError, match="^Could not interpret regularizer identifier: l3$"):
        R.get("l3")
    with pytest.raises(ValueError, match="identifier: l1_l2$"):  # Keras 3 has no such name
        R.get("l1_l2")
    with pytest.raises(ValueError, match="^Could not interpret regularizer identifier: 0.5$"):
        R.get(0.5)


@pytest.mark.parametrize("reg", [R.L1(0.1), R.L2(0.2), R.L1L2(0.1, 0.2),
                                 R.OrthogonalRegularizer(0.3, "columns")],
                         ids=lambda r: type(r).__name__)
def test_config_round_trips_through_json(reg):
    config = json.loads(json.dumps(R.serialize(reg)))
    assert config["module"] == "keras.regularizers" and config["registered_name"] is None
    restored = R.deserialize(config)
    assert type(restored) is type(reg) and restored.get_config() == reg.get_config()
    assert R.get(config).get_config() == reg.get_config()


def test_serialize_matches_keras3_dict():
    assert R.serialize(R.L2(0.01)) == {"module": "keras.regularizers", "class_name": "L2",
                                       "config": {"l2": 0.01}, "registered_name": None}


def test_factors_are_float32_on_float64_weights_as_keras():
    # Keras 3.15.1 (TF): L1 keeps its factor as a float32 tensor and L2/L1L2 cast the
    # Python float through a float32 tensor, so on float64 ones(3) the penalties print
    # 0.029999999329447746 (L1(0.01), L2(0.01)) and 0.05999999865889549 (L1L2(0.01, 0.01));
    # L1's config reads back 0.009999999776482582.
    w = ops.ones((3,), dtype="float64")
    assert float(R.L1(0.01)(w)) == 0.029999999329447746
    assert float(R.L2(0.01)(w)) == 0.029999999329447746
    assert float(R.L1L2(0.01, 0.01)(w)) == 0.05999999865889549
    assert R.L1(0.01).get_config() == {"l1": 0.009999999776482582}
    assert R.get("l1").get_config() == {"l1": 0.009999999776482582}
    assert R.L2(0.01).get_config() == {"l2": 0.01}   # L2 keeps the Python float


def test_a_subclass_without_get_config_has_pythons_repr_and_kerass_message():
    """Keras 3.15.1 (probe12 session, regcfg.py; keras-io PointNet's
    OrthogonalRegularizer): the base `get_config` raises
    NotImplementedError(f"{self} does not implement get_config()"), `self` printed
    with Python's default repr (which never raises)."""
    class Zero(keras.regularizers.Regularizer):
        def __call__(self, x):
            return 0.0

    reg = Zero()
    assert re.fullmatch(r"<.*Zero object at 0x[0-9a-f]+>", repr(reg))
    with pytest.raises(NotImplementedError) as info:
        reg.get_config()
    assert re.fullmatch(r"<.*Zero object at 0x[0-9a-f]+> does not implement get_config\(\)",
                        str(info.value))
