"""kerasish.ops.reduction: sums, means, extrema, products, scans, logsumexp."""
import numpy as np
import pytest
from scipy import special

from kerasish import GradientTape, ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(2)
X = RNG.uniform(-2.0, 2.0, (2, 3, 4))
AXES = [None, 0, -1, (0, 2), [1]]

SMOOTH = {
    "sum": np.sum, "mean": np.mean, "var": np.var, "std": np.std,
    "logsumexp": special.logsumexp,
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_forward_matches_numpy(name, axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    ref = SMOOTH[name](X, axis=np_axis, keepdims=keepdims)
    out = getattr(ops, name)(X, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(SMOOTH) + ["max", "min", "prod"])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)], ids=str)
def test_gradients(name, axis):
    check_gradients(lambda x: getattr(ops, name)(x, axis=axis), [X[:, :2, :3]])


@pytest.mark.parametrize("name", sorted(SMOOTH) + ["max", "prod"])
def test_second_order(name):
    check_second_order(lambda x: getattr(ops, name)(x, axis=-1), [X[0, :2, :3]])


def test_extrema_values_initial_and_tie_sharing():
    np.testing.assert_allclose(ops.max(X, axis=1).numpy(), X.max(axis=1))
    np.testing.assert_allclose(ops.amin(X, axis=(0, 1)).numpy(), X.min(axis=(0, 1)))
    np.testing.assert_allclose(ops.max(X, axis=0, initial=1.5).numpy(), np.max(X, 0, initial=1.5))
    x = ops.convert_to_tensor([1.0, 3.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.max(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.0, 0.5, 0.5])
    with pytest.raises(ValueError, match="ops.max.*empty"):
        ops.max(ops.zeros((0,)))


def test_prod_gradient_is_safe_with_zeros():
    check_gradients(lambda x: ops.prod(x, axis=-1), [np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5]])])


def test_cumsum_cumprod_values_and_gradients():
    np.testing.assert_allclose(ops.cumsum(X, axis=1).numpy(), np.cumsum(X, axis=1))
    np.testing.assert_allclose(ops.cumsum(X).numpy(), np.cumsum(X))
    np.testing.assert_allclose(ops.cumprod(X, axis=-1).numpy(), np.cumprod(X, axis=-1))
    check_gradients(lambda x: ops.cumsum(x, axis=0), [X[:, 0]])
    check_gradients(lambda x: ops.cumprod(x, axis=1), [X[0, :2] + 3.0])
    check_second_order(lambda x: ops.cumsum(x, axis=-1), [X[0, :1]])


def test_integer_dtype_rules_like_keras():
    i8 = ops.ones((3,), "int8")
    assert ops.sum(i8).dtype == "int32"
    assert ops.sum(ops.ones((3,), "bool")).dtype == "int32"
    assert ops.sum(ops.ones((3,), "uint8")).dtype == "uint32"
    assert ops.sum(ops.ones((3,), "int32")).dtype == "int32"
    assert ops.sum(ops.ones((3,), "int64")).dtype == "int64"
    assert ops.prod(i8).dtype == "int32"
    assert ops.cumsum(i8).dtype == "int8"
    assert ops.cumsum(ops.ones((3,), "bool")).dtype == "int32"
    ints = ops.convert_to_tensor([1, 2])
    assert ops.mean(ints).dtype == "float32" and float(ops.mean(ints)) == 1.5
    assert ops.var(ints).dtype == "float32"
    assert ops.max(ints).dtype == "int32"
    assert ops.mean(ops.ones((2,), "float16")).dtype == "float16"


def test_index_reductions_and_logic():
    assert ops.argmax(X, axis=-1).dtype == "int32"
    np.testing.assert_array_equal(ops.argmax(X, axis=-1).numpy(), X.argmax(-1))
    np.testing.assert_array_equal(ops.argmin(X, axis=0).numpy(), X.argmin(0))
    assert int(ops.argmax(ops.convert_to_tensor([1.0, 5.0, 2.0]))) == 1
    assert bool(ops.any(ops.convert_to_tensor([0, 1])))
    assert not bool(ops.all(ops.convert_to_tensor([0, 1])))
    np.testing.assert_array_equal(ops.all(X > -3, axis=1).numpy(), np.all(X > -3, axis=1))
    c = ops.count_nonzero(ops.convert_to_tensor([[0, 1], [2, 3]]), axis=0)
    assert c.dtype == "int32" and c.numpy().tolist() == [1, 2]


def test_logsumexp_is_stable_for_large_inputs():
    x = ops.convert_to_tensor([1e4, 1e4, -1e4])
    np.testing.assert_allclose(float(ops.logsumexp(x)), 1e4 + np.log(2.0), rtol=1e-7)
    check_gradients(ops.logsumexp, [np.array([700.0, 701.0, -5.0])])


def test_bad_axis_names_the_op():
    with pytest.raises(ValueError, match="ops.sum: axis 3 is out of bounds.*rank 3"):
        ops.sum(X, axis=3)
    with pytest.raises(ValueError, match="ops.mean: axis -4"):
        ops.mean(X, axis=-4)


BASE = np.random.RandomState(0).randn(4, 5) * 3


def test_bfloat16_sum_and_mean_accumulate_in_float32_as_tensorflow():
    pytest.importorskip("ml_dtypes", reason="bfloat16 needs ml_dtypes on the numpy backend")
    x = ops.cast(ops.convert_to_tensor(BASE), "bfloat16")
    # Keras 3.15.1 printed these (a bfloat16 accumulator gave 0.375 and 8.8125)
    total = ops.sum(x, axis=1)
    assert total.dtype == "bfloat16"
    assert ops.cast(total, "float64").numpy().tolist() == [21.75, 0.376953125, 8.75, 3.21875]
    average = ops.cast(ops.mean(x, axis=1), "float64").numpy().tolist()
    assert average == [4.34375, 0.0751953125, 1.7578125, 0.64453125]


def test_half_precision_variance_is_computed_in_float32_as_keras():
    # Keras 3.15.1: var casts float16/bfloat16 to float32 and the result back
    out = ops.var(ops.convert_to_tensor(BASE.astype("float16")), axis=1)
    assert out.dtype == "float16"
    assert out.numpy().astype("float64").tolist() == [4.0, 3.701171875, 2.189453125, 5.359375]


def test_float16_mean_is_computed_in_float32_as_keras():
    # Keras 3.15.1 (TensorFlow): mean([65504, 65504, 65504] float16) == 65504, no overflow.
    x = np.array([65504, 65504, 65504], dtype="float16")
    out = ops.mean(x)
    assert out.dtype == "float16" and float(out) == 65504.0
