"""kerasish.ops.extras: numpy-style extras against numpy."""
import warnings

import numpy as np
import pytest
from scipy import special

import kerasish as keras
from kerasish import ops
from kerasish.testing import check_gradients

RNG = np.random.default_rng(13)
X = RNG.standard_normal((3, 4))


def test_integer_ops():
    a, b = np.array([12, 7, 5]), np.array([8, 3, 5])
    for name, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                      ("bitwise_xor", np.bitwise_xor), ("left_shift", np.left_shift),
                      ("right_shift", np.right_shift), ("gcd", np.gcd), ("lcm", np.lcm)]:
        np.testing.assert_array_equal(getattr(ops, name)(a, b).numpy(), ref(a, b), err_msg=name)
    assert ops.bitwise_invert(np.array([0], "int8")).numpy().tolist() == [-1]
    with pytest.raises(TypeError, match="ops.bitwise_and: needs integer"):
        ops.bitwise_and(X, 1)
    np.testing.assert_array_equal(ops.bincount(np.array([0, 1, 1, 3])).numpy(), [1, 2, 0, 1])
    np.testing.assert_allclose(ops.bincount(np.array([0, 1, 1]), weights=[0.5, 1.0, 2.0]).numpy(), [0.5, 3.0])
    assert ops.bincount(np.array([[0, 1], [2, 2]])).numpy().tolist() == [[1, 1, 0], [0, 0, 2]]
    np.testing.assert_array_equal(ops.digitize(np.array([0.5, 2.5]), [1.0, 2.0]).numpy(), [0, 2])
    vals, inv, counts = ops.unique(np.array([3, 1, 3]), return_inverse=True, return_counts=True)
    assert vals.numpy().tolist() == [1, 3] and inv.numpy().tolist() == [1, 0, 1] and counts.numpy().tolist() == [1, 2]
    r, c = ops.unravel_index(np.array([5, 1]), (2, 3))
    assert r.numpy().tolist() == [1, 0] and c.numpy().tolist() == [2, 1]
    assert ops.saturate_cast(np.array([300.0, -5.0]), "uint8").numpy().tolist() == [255, 0]


@pytest.mark.parametrize("ours, ref", [
    (lambda o: o.array_split(X, 3, axis=1)[0], lambda: np.array_split(X, 3, axis=1)[0]),
    (lambda o: o.hsplit(X, 2)[1], lambda: np.hsplit(X, 2)[1]),
    (lambda o: o.vsplit(X, [1])[1], lambda: np.vsplit(X, [1])[1]),
    (lambda o: o.dsplit(X[None], 2)[0], lambda: np.dsplit(X[None], 2)[0]),
    (lambda o: o.dstack([X, X]), lambda: np.dstack([X, X])),
    (lambda o: o.fliplr(X), lambda: np.fliplr(X)), (lambda o: o.flipud(X), lambda: np.flipud(X)),
    (lambda o: o.diagflat(X[:2, :2], 1), lambda: np.diagflat(X[:2, :2], 1)),
    (lambda o: o.ptp(X, axis=1), lambda: np.ptp(X, axis=1)),
    # (Keras divides q by 100 in float32 first)
    (lambda o: o.percentile(X, [10, 90], axis=0), lambda: np.quantile(
        X, (np.float32([10, 90]) / np.float32(100)).astype("float64"), axis=0)),
    (lambda o: o.erfc(X), lambda: special.erfc(X)), (lambda o: o.sinc(X), lambda: np.sinc(X)),
    # Keras's formula, with its float32 log(2) even in float64
    (lambda o: o.logaddexp2(X, 1.0), lambda: np.maximum(X, 1.0) + np.log1p(
        np.exp(-np.abs(X - 1.0) * float(np.float32(np.log(2))))) / float(np.float32(np.log(2)))),
    (lambda o: o.fmod(X, 0.7), lambda: np.fmod(X, 0.7)),
    (lambda o: o.heaviside(X, 0.5), lambda: np.heaviside(X, 0.5)),
    (lambda o: o.kron(X[:2, :2], X[1:, 1:3]), lambda: np.kron(X[:2, :2], X[1:, 1:3])),
    (lambda o: o.cross(X[:, :3], X[:, 1:]), lambda: np.cross(X[:, :3], X[:, 1:])),
    (lambda o: o.trapezoid(X, axis=0), lambda: np.trapezoid(X, axis=0)),
    (lambda o: o.trapezoid(X, x=np.arange(4.0) ** 2), lambda: np.trapezoid(X, x=np.arange(4.0) ** 2)),
    (lambda o: o.vander(X[0], 3), lambda: np.vander(X[0], 3)),
    (lambda o: o.select([X < 0, X > 1], [X, X * 10], 5.0), lambda: np.select([X < 0, X > 1], [X, X * 10], 5.0)),
    (lambda o: o.isin(np.arange(5), [1, 3]), lambda: np.isin(np.arange(5), [1, 3])),
    (lambda o: o.get_item(X, (1, slice(1, 3))), lambda: X[1, 1:3]),
    (lambda o: o.sparse_sigmoid(X), lambda: np.clip((X + 1) / 2, 0, 1)),
], ids=lambda v: "")
def test_values_match_numpy(ours, ref):
    np.testing.assert_allclose(ours(ops).numpy(), ref(), rtol=1e-10, atol=1e-12)


def test_nan_reductions():
    x = X.copy()
    x[0, 1] = np.nan
    for name in ("nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanvar", "nanstd"):
        np.testing.assert_allclose(getattr(ops, name)(x, axis=1).numpy(), getattr(np, name)(x, axis=1),
                                   err_msg=name)
    check_gradients(lambda x: ops.nanmean(x, axis=0), [X])


def test_allclose_psnr_and_gradients():
    assert bool(ops.allclose(X, X + 1e-9)) and not bool(ops.allclose(X, X + 1e-3))
    assert float(ops.psnr(np.ones(4), np.zeros(4), 1.0)) == pytest.approx(0.0)
    assert float(ops.psnr(np.ones(4), np.full(4, 0.9), 1.0)) == pytest.approx(20.0)
    check_gradients(lambda a, b: ops.cross(a, b), [X[:, :3], X[:, 1:]])
    check_gradients(lambda a, b: ops.kron(a, b), [X[:2, :2], X[1:, 1:3]])
    check_gradients(lambda x: ops.sinc(x), [X + 0.01])


def _typed(values, dtype):
    return ops.cast(ops.convert_to_tensor(values), dtype)


@pytest.mark.parametrize("d1,d2,expected", [
    ("float32", "float32", "float32"), ("int8", "int16", "float32"), ("bool", "int32", "float32"),
    ("float16", "int8", "float16"), ("bfloat16", "bool", "bfloat16"), ("float16", "float32", "float32")])
def test_logaddexp2_result_dtype(d1, d2, expected):
    # Keras: result_type(x1, x2, float); the ln 2 factor must not widen to float64
    out = ops.logaddexp2(_typed([1, 0], d1), _typed([1, 0], d2))
    assert out.dtype == expected
    np.testing.assert_allclose(out.numpy().astype(np.float64), [2.0, 1.0], rtol=1e-2)


@pytest.mark.parametrize("d1,d2,expected", [
    ("int8", "int16", "int16"), ("uint8", "int8", "int16"), ("uint16", "int8", "int32"),
    ("int32", "bool", "int32"), ("bool", "bool", "int32"), ("float16", "int8", "float16")])
def test_fmod_result_dtype_and_integer_values(d1, d2, expected):
    out = ops.fmod(_typed([7, 5], d1), _typed([3, 1], d2))
    assert out.dtype == expected
    if "bool" not in (d1, d2):
        np.testing.assert_array_equal(out.numpy(), np.fmod([7, 5], [3, 1]))
    signed = ops.fmod(_typed([-7, 7], "int32"), _typed([3, -3], "int32"))
    np.testing.assert_array_equal(signed.numpy(), [-1, 1])   # C fmod: sign of the dividend
    # a Python float stays weak: float64 inputs keep 0.7 exact
    x = np.array([2.5, -1.3])
    np.testing.assert_allclose(ops.fmod(x, 0.7).numpy(), np.fmod(x, 0.7), rtol=1e-12)


@pytest.mark.parametrize("d1,d2,expected", [
    ("float16", "int8", "float16"), ("float16", "bool", "float16"), ("float32", "bfloat16", "float32"),
    ("float16", "bfloat16", "float32"), ("int8", "int16", "float32"), ("bfloat16", "bool", "bfloat16")])
def test_heaviside_result_dtype(d1, d2, expected):
    out = ops.heaviside(_typed([-1, 0, 2], d1), _typed([1, 1, 1], d2))
    assert out.dtype == expected
    np.testing.assert_array_equal(out.numpy().astype(np.float32), [0.0, 1.0, 1.0])


@pytest.mark.parametrize("dx,dw,expected", [
    ("float16", "int8", "float16"), ("int8", "bfloat16", "bfloat16"), ("bfloat16", "bool", "bfloat16"),
    ("int32", "int32", "float32")])
def test_average_result_dtype(dx, dw, expected):
    out = ops.average(_typed([1, 3], dx), weights=_typed([3, 1], dw))
    assert out.dtype == expected
    assert float(out.numpy()) == (2.0 if dw == "bool" else 1.5)


def test_diff_of_booleans_is_not_equal():
    out = ops.diff(ops.convert_to_tensor([True, False, False, True]))
    assert out.dtype == "bool"
    np.testing.assert_array_equal(out.numpy(), np.diff(np.array([True, False, False, True])))


def test_nanmax_nanmin_over_no_axis_and_all_nan_slices_match_numpy():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, -np.inf]])
    np.testing.assert_array_equal(ops.nanmax(x, axis=()).numpy(), np.nanmax(x, axis=()))
    np.testing.assert_array_equal(ops.nanmin(x, axis=()).numpy(), np.nanmin(x, axis=()))
    all_nan = np.array([[np.nan, np.nan], [1.0, np.nan]])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected_max, expected_min = np.nanmax(all_nan, axis=1), np.nanmin(all_nan, axis=1)
    np.testing.assert_array_equal(ops.nanmax(all_nan, axis=1).numpy(), expected_max)
    np.testing.assert_array_equal(ops.nanmin(all_nan, axis=1).numpy(), expected_min)
    assert np.isnan(ops.nanmax(np.full((2, 2), np.nan)).numpy())


def test_cross_of_two_and_three_vectors_matches_numpy():
    rng = np.random.default_rng(1)
    x3, x2 = rng.random((2, 1, 4, 3)), rng.random((2, 1, 4, 2))
    y3, y2 = rng.random((1, 5, 4, 3)), rng.random((1, 5, 4, 2))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # numpy 2 deprecates 2-vectors
        for a, b in ((x3, y3), (x3, y2), (x2, y3), (x2, y2)):
            out, expected = ops.cross(a, b).numpy(), np.cross(a, b)
            assert out.shape == expected.shape
            np.testing.assert_allclose(out, expected, rtol=1e-12)
    check_gradients(lambda a, b: ops.cross(a, b), [x3[:1, :, :2], y2[:, :2, :2]])


@pytest.mark.parametrize("dtype,summed,extreme", [
    ("bool", "int32", "bool"), ("int16", "int32", "int16"), ("int32", "int32", "int32"),
    ("uint8", "uint32", "uint8"), ("uint16", "uint32", "uint16")])
def test_nan_reductions_of_integers_keep_keras_integer_dtypes(dtype, summed, extreme):
    # no NaN in integers: the plain reduction and its dtype (was floatx)
    x = _typed([3, 1, 2], dtype)
    assert ops.nansum(x).dtype == ops.nanprod(x).dtype == summed
    assert ops.nanmax(x).dtype == ops.nanmin(x).dtype == extreme
    values = np.array([3, 1, 2]).astype(dtype)
    assert int(ops.nansum(x).numpy()) == int(values.sum())
    assert int(ops.nanmax(x).numpy()) == int(values.max())
    assert int(ops.nanmin(x, axis=0).numpy()) == int(values.min())


def test_unique_size_pads_and_truncates_as_keras():
    # numbers from Keras 3.15.1 (TensorFlow backend)
    x = np.array([3, 1, 2, 1])
    values, index, inverse, counts = ops.unique(x, size=5, return_index=True,
                                                return_inverse=True, return_counts=True)
    assert values.numpy().tolist() == [1, 2, 3, 0, 0] and index.numpy().tolist() == [1, 2, 0, 1, 1]
    assert inverse.numpy().tolist() == [2, 0, 1, 0] and counts.numpy().tolist() == [2, 1, 1, 0, 0]
    values, counts = ops.unique(x, size=5, fill_value=-1, return_counts=True)
    assert values.numpy().tolist() == [1, 2, 3, -1, -1]
    values, index, counts = ops.unique(np.array([5, 5, 2, 1, 7]), size=2, return_index=True,
                                       return_counts=True)
    assert (values.numpy().tolist(), index.numpy().tolist(), counts.numpy().tolist()) == \
        ([1, 2], [3, 2], [1, 1])
    columns = ops.unique(np.array([[1, 0, 1], [0, 1, 0]]), axis=1, size=3)
    assert columns.numpy().tolist() == [[0, 1, 0], [1, 0, 0]]


def test_saturate_cast_to_and_from_bool_as_keras():
    # numbers from Keras 3.15.1 (TensorFlow backend): clipped to [0, 1], then cast
    x = np.array([-2.0, 0.0, 0.5, 300.0, 70000.0], "float32")
    assert ops.saturate_cast(x, "bool").numpy().tolist() == [False, False, True, True, True]
    expected = {"int32": [False, True, True, False], "uint8": [False, True, True, True],
                "float16": [False, True, True, False], "bool": [False, True, True, True]}
    for dtype, values in expected.items():
        assert ops.saturate_cast(np.array([0, 1, 2, -3]).astype(dtype), "bool").numpy().tolist() \
            == values
        back = ops.saturate_cast(np.array([True, False]), dtype)
        assert back.dtype == dtype and back.numpy().tolist() == [1, 0]


def test_unique_keeps_nans_apart_as_keras():
    # Keras 3.15.1 (np.unique(equal_nan=False) on its numpy backend; 4 values on TensorFlow)
    values, inverse, counts = ops.unique(np.array([1.0, np.nan, 2.0, np.nan], "float32"),
                                         return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [1.0, 2.0, np.nan, np.nan])
    assert inverse.numpy().tolist() == [0, 2, 1, 3] and counts.numpy().tolist() == [1, 1, 1, 1]


def test_scalar_operands_convert_as_keras_tensorflow_backend():
    # Keras 3.15.1 (TensorFlow backend): a Python scalar is converted (float32, int32)
    # before promotion in these ops; its printed numbers.
    f16 = np.array([0.5, 1.5, -2.5], "float16")
    i8 = np.array([1, -2, 3], "int8")
    out = ops.logaddexp2(f16, 1.5)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [2.08496237, 2.5, 1.5874629], rtol=1e-6)
    out = ops.fmod(f16, 1.5)
    assert out.dtype == "float32" and out.numpy().tolist() == [0.5, 0.0, -1.0]
    out = ops.heaviside(f16, 1.5)
    assert out.dtype == "float32" and out.numpy().tolist() == [1.0, 1.0, 0.0]
    for name, expected in [("fmod", [1, 0, 1]), ("gcd", [1, 2, 1]), ("lcm", [2, 2, 6]),
                           ("bitwise_and", [0, 2, 2])]:
        out = getattr(ops, name)(i8, 2)
        assert out.dtype == "int32" and out.numpy().tolist() == expected, name
    # a shift's Python-int amount takes the tensor's dtype
    out = ops.left_shift(i8, 2)
    assert out.dtype == "int8" and out.numpy().tolist() == [4, -8, 12]


def test_psnr_keeps_the_inputs_dtype_as_keras():
    # Keras 3.15.1: max_val becomes a tensor of x2's dtype (kerasish gave float64)
    x = np.array([[0.5, 1.0], [2.0, -1.0]], "float32")
    out = ops.psnr(x, x * 0.9, 1.0)
    assert out.dtype == "float32"
    np.testing.assert_allclose(float(out), 18.061798095703125, rtol=1e-6)
    half = ops.psnr(x.astype("float16"), (x * 0.5).astype("float16"), 255)
    assert half.dtype == "float16"


def test_functional_models_replay_the_eager_scalar_rules_as_keras():
    # Keras 3.15.1: the KerasTensor keeps a Python float weak (float16), the model's run
    # converts it (float32); fmod(-1.5, 1.5) is -0.0 (sign(x1) * floormod(|x1|, |x2|)).
    inputs = keras.Input((3,), dtype="float16")
    x = np.array([[0.5, -1.5, 2.5]], "float16")
    for fn in (lambda t: ops.mod(t, 1.5), lambda t: ops.fmod(t, 1.5),
               lambda t: ops.logaddexp(t, 1.0), lambda t: ops.logaddexp2(t, 1.0)):
        out = fn(inputs)
        assert out.dtype == "float16"
        assert keras.Model(inputs, out)(x).dtype == "float32"
    assert np.signbit(ops.fmod(np.array([-1.5, 1.5], "float32"), 1.5).numpy()).tolist() == \
        [True, False]
