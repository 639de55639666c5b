"""kerasish.ops.nan_reductions against numpy's nan-functions; gradients by finite differences."""
import warnings

import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(3)
X = RNG.random((3, 4, 5))
X[X < 0.3] = np.nan
X[0, 0, :] = np.nan  # one all-NaN slice along the last axis


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("axis", [None, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_nanquantile_matches_numpy(method, axis, keepdims):
    with warnings.catch_warnings():  # numpy warns about the all-NaN slice
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = np.nanquantile(X, [0.3, 0.5], axis=axis, method=method, keepdims=keepdims)
    out = ops.nanquantile(X, [0.3, 0.5], axis=axis, method=method, keepdims=keepdims)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out.numpy(), ref, equal_nan=True, atol=1e-12)


def test_nanmedian_nanpercentile():
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        np.testing.assert_allclose(ops.nanmedian(X, axis=-1).numpy(), np.nanmedian(X, axis=-1),
                                   equal_nan=True)
    np.testing.assert_allclose(ops.nanpercentile(X, 40, axis=1).numpy(),
                               np.nanpercentile(X, 40, axis=1), equal_nan=True)
    assert ops.nanmedian(np.array([1, 2, 3], "int32")).dtype == "float32"
    assert ops.nanmedian(np.array([1, 2, 3], "float16")).dtype == "float16"
    with pytest.raises(ValueError, match="ops.nanquantile: `q` must be in"):
        ops.nanquantile(X, 1.5)


def test_nanargmax_nanargmin():
    x = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 3.0]], "float32")
    # Keras: -1 for an all-NaN slice
    assert ops.nanargmax(x, axis=1).numpy().tolist() == [-1, 2]
    assert ops.nanargmin(x, axis=1).numpy().tolist() == [-1, 0]
    assert int(ops.nanargmax(x)) == 5 and ops.nanargmax(x).dtype == "int32"
    assert ops.nanargmin(np.array([3, 1, 2])).numpy() == 1


def test_nan_scans():
    np.testing.assert_allclose(ops.nancumsum(X, axis=1).numpy(), np.nancumsum(X, axis=1))
    np.testing.assert_allclose(ops.nancumprod(X).numpy(), np.nancumprod(X))
    assert ops.nancumsum(np.array([True, False, True])).dtype == "int32"
    assert ops.nancumsum(np.array([1, 2], "int32")).numpy().tolist() == [1, 3]


def test_gradients():
    x = RNG.random((3, 6)) + 0.5
    x[0, 1] = x[2, 4] = np.nan
    finite = np.isfinite(x)

    def masked(f):
        return lambda v: ops.where(finite, f(v), 0.0) if f(v).shape == x.shape else f(v)
    check_gradients(lambda v: ops.nanquantile(v, 0.3, axis=1), [x])
    check_second_order(lambda v: ops.square(ops.nanmedian(v, axis=1)), [x])
    check_gradients(masked(lambda v: ops.nancumsum(v, axis=1)), [x])
    check_gradients(masked(lambda v: ops.nancumprod(v, axis=1)), [x])


def test_nan_scans_accept_keras_axis_tuples():
    x = np.array([[1.0, np.nan], [3.0, 4.0]])
    np.testing.assert_array_equal(ops.nancumsum(x, axis=(1,)).numpy(), [[1.0, 1.0], [3.0, 7.0]])
    np.testing.assert_array_equal(ops.nancumsum(x, axis=()).numpy(), [[1.0, 0.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="ops.nancumprod: `axis` must be an int"):
        ops.nancumprod(x, axis=(0, 1))


def test_nanmedian_infinities_and_empty_axis():
    x = np.array([[1.0, np.nan, 3.0, 4.0, 5.0], [np.nan, 2.0, 3.0, np.inf, -np.inf]])
    np.testing.assert_array_equal(ops.nanmedian(x, axis=()).numpy(), x)  # numpy: no reduction
    np.testing.assert_array_equal(ops.nanmedian(x, axis=1).numpy(), [3.5, 2.5])
    single = np.array([[np.inf], [-np.inf]])
    np.testing.assert_array_equal(ops.nanmedian(single, axis=1).numpy(), [np.inf, -np.inf])
