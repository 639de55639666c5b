"""Constraint projections against hand-computed numbers, and get/serialize."""
import json

import numpy as np
import pytest

import kerasish as keras
from kerasish import constraints as C, ops

EPS = 1e-7
# column norms 5 and 0.5; row norms sqrt(9.25) and 4
W = np.array([[3.0, 0.5], [4.0, 0.0]])


def _apply(constraint, w=W):
    return constraint(ops.convert_to_tensor(w)).numpy()


def test_max_norm_rescales_only_long_columns():
    got = _apply(C.MaxNorm(max_value=2))
    expected = np.array([[3 * 2 / (5 + EPS), 0.5 * 0.5 / (0.5 + EPS)],
                         [4 * 2 / (5 + EPS), 0.0]])
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(got, [[1.2, 0.5], [1.6, 0.0]], rtol=1e-6)


def test_max_norm_along_rows_and_conv_filters():
    got = _apply(C.MaxNorm(max_value=2, axis=1))
    np.testing.assert_allclose(got[1], [4 * 2 / (4 + EPS), 0.0], rtol=1e-12)
    np.testing.assert_allclose(got[0], W[0] * 2 / (np.sqrt(9.25) + EPS), rtol=1e-12)
    kernel = np.ones((3, 3, 2, 4))                        # each filter norm sqrt(18)
    got = _apply(C.MaxNorm(max_value=1.0, axis=[0, 1, 2]), kernel)
    np.testing.assert_allclose(np.sqrt((got ** 2).sum(axis=(0, 1, 2))), np.ones(4), rtol=1e-6)


def test_non_neg_zeroes_negatives():
    np.testing.assert_array_equal(_apply(C.NonNeg(), [[-1.0, 2.0], [0.0, -0.5]]),
                                  [[0.0, 2.0], [0.0, 0.0]])


def test_unit_norm_and_epsilon_is_added_to_the_norm():
    np.testing.assert_allclose(_apply(C.UnitNorm()), [[0.6, 1.0], [0.8, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(_apply(C.UnitNorm(axis=1))[1], [1.0, 0.0], rtol=1e-6)
    # with a norm of 1e-7, w / (eps + norm) = 0.5: the epsilon sits in the denominator sum
    np.testing.assert_allclose(_apply(C.UnitNorm(), [[1e-7], [0.0]]), [[0.5], [0.0]], rtol=1e-6)
    assert np.isfinite(_apply(C.UnitNorm(), np.zeros((2, 2)))).all()


def test_min_max_norm_strict_and_partial_rate():
    got = _apply(C.MinMaxNorm(min_value=1.0, max_value=2.0))
    np.testing.assert_allclose(got, [[1.2, 1.0], [1.6, 0.0]], rtol=1e-6)
    got = _apply(C.MinMaxNorm(min_value=1.0, max_value=2.0, rate=0.5))
    # desired = 0.5 * 2 + 0.5 * 5 = 3.5 and 0.5 * 1 + 0.5 * 0.5 = 0.75
    np.testing.assert_allclose(got, [[3 * 3.5 / 5, 0.75], [4 * 3.5 / 5, 0.0]], rtol=1e-6)


def test_base_constraint_is_identity_and_configs_default():
    w = ops.convert_to_tensor(W)
    assert C.Constraint()(w) is w
    assert C.MaxNorm().get_config() == {"max_value": 2, "axis": 0}
    assert C.MinMaxNorm().get_config() == {"min_value": 0.0, "max_value": 1.0, "rate": 1.0, "axis": 0}
    assert C.UnitNorm().get_config() == {"axis": 0} and C.NonNeg().get_config() == {}


def test_optimizer_applies_the_constraint_after_the_update():
    layer = keras.layers.Dense(2, kernel_initializer="ones", kernel_constraint="non_neg")
    layer.build((None, 3))
    optimizer = keras.optimizers.SGD(learning_rate=1.0)
    grad = np.array([[2.0, 0.5], [0.5, 2.0], [0.0, 0.0]], dtype="float32")
    optimizer.apply([grad], [layer.kernel])
    np.testing.assert_array_equal(layer.kernel.numpy(), [[0.0, 0.5], [0.5, 0.0], [1.0, 1.0]])


@pytest.mark.parametrize("name, cls", [
    ("max_norm", C.MaxNorm), ("MaxNorm", C.MaxNorm), ("non_neg", C.NonNeg), ("NonNeg", C.NonNeg),
    ("unit_norm", C.UnitNorm), ("UnitNorm", C.UnitNorm), ("min_max_norm", C.MinMaxNorm),
    ("MinMaxNorm", C.MinMaxNorm),
])
def test_get_every_alias(name, cls):
    assert type(C.get(name)) is cls


def test_get_none_instances_callables_and_errors():
    assert C.get(None) is None
    c = C.MaxNorm(3)
    assert C.get(c) is c and type(C.get(C.NonNeg)) is C.NonNeg
    assert C.max_norm is C.MaxNorm and C.non_neg is C.NonNeg
    assert C.unit_norm is C.UnitNorm and C.min_max_norm is C.MinMaxNorm

    def clip(w):
        return ops.clip(w, -1.0, 1.0)
    assert C.get(clip) is clip
    with pytest.raises(ValueError, match="^Could not interpret constraint identifier: maxnorm$"):
        C.get("maxnorm")
    with pytest.raises(ValueError, match="^Could not interpret constraint identifier: 2$"):
        C.get(2)


@pytest.mark.parametrize("constraint", [C.MaxNorm(3.0, axis=[0, 1]), C.NonNeg(), C.UnitNorm(1),
                                        C.MinMaxNorm(0.5, 2.0, 0.3, 1)],
                         ids=lambda c: type(c).__name__)
def test_config_round_trips_through_json(constraint):
    config = json.loads(json.dumps(C.serialize(constraint)))
    assert config["module"] == "keras.constraints"
    restored = C.deserialize(config)
    assert type(restored) is type(constraint)
    assert restored.get_config() == json.loads(json.dumps(constraint.get_config()))
    np.testing.assert_allclose(_apply(restored, np.ones((2, 2, 1))),
                               _apply(constraint, np.ones((2, 2, 1))))
