"""kerasish.ops.sorting: sort, argsort, top_k, in_top_k, quantiles, averages."""
import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 5))


def test_sort_and_argsort():
    np.testing.assert_array_equal(ops.sort(X).numpy(), np.sort(X))
    np.testing.assert_array_equal(ops.sort(X, axis=0).numpy(), np.sort(X, axis=0))
    idx = ops.argsort(ops.convert_to_tensor([3, 1, 1, 2]))
    assert idx.dtype == "int32" and idx.numpy().tolist() == [1, 2, 3, 0]  # stable, like Keras
    np.testing.assert_array_equal(ops.argsort(X, axis=None).numpy(), np.argsort(X, axis=None, kind="stable"))
    check_gradients(lambda x: ops.sort(x, axis=-1) * np.arange(5.0), [X])


def test_top_k_ties_take_the_lower_index_first():
    values, idx = ops.top_k(ops.convert_to_tensor([1.0, 3.0, 3.0, 2.0]), 2)
    assert values.numpy().tolist() == [3.0, 3.0] and idx.numpy().tolist() == [1, 2]
    assert idx.dtype == "int32"
    v, i = ops.top_k(X, 3)
    np.testing.assert_array_equal(v.numpy(), -np.sort(-X, axis=-1)[:, :3])
    np.testing.assert_array_equal(np.take_along_axis(X, i.numpy(), -1), v.numpy())
    check_gradients(lambda x: ops.top_k(x, 2)[0], [X])
    assert ops.top_k(ops.convert_to_tensor([1, 5, 3], "uint8"), 1)[0].numpy().tolist() == [5]
    with pytest.raises(ValueError, match=r"ops.top_k: k=6.*\(3, 5\)"):
        ops.top_k(X, 6)


def test_in_top_k_counts_ties():
    preds = [[0.1, 0.7, 0.2], [0.5, 0.5, 0.0], [0.3, 0.3, 0.4]]
    out = ops.in_top_k(ops.convert_to_tensor([1, 1, 0]), preds, 1)
    assert out.numpy().tolist() == [True, True, False]
    assert ops.in_top_k([0, 1, 0], preds, 2).numpy().tolist() == [False, True, True]


def test_in_top_k_out_of_range_and_non_finite_give_false():
    # Keras 3.15.1 (TensorFlow's InTopK): ops.in_top_k docstring example, then edge cases
    preds = [[0.1, 0.4, 0.6, 0.9, 0.5], [0.1, 0.7, 0.9, 0.8, 0.3], [0.1, 0.6, 0.9, 0.9, 0.5]]
    assert ops.in_top_k([2, 5, 3], preds, k=3).numpy().tolist() == [True, False, True]
    p = np.array([[0.1, 0.4, 0.6], [0.1, np.nan, 0.3], [0.1, np.inf, 0.3], [0.2, 0.3, 0.1]],
                 "float32")
    assert ops.in_top_k([2, 2, 2, 5], p, 2).numpy().tolist() == [True, False, False, False]
    assert ops.in_top_k([-1, 0, 1, 3], p, 2).numpy().tolist() == [False] * 4
    assert ops.in_top_k([2, 0, 1, 0], p, 0).numpy().tolist() == [False] * 4


def F32(q):
    """q as Keras's quantile reads a Python float (list): float32, then float64."""
    return np.asarray(q, "float32").astype("float64")


def test_quantile_median_average_searchsorted():
    np.testing.assert_allclose(ops.median(X, axis=1).numpy(), np.median(X, axis=1))
    np.testing.assert_allclose(float(ops.median(X)), np.median(X))
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        # (a Python float q is a float32 tensor first, as in Keras: numpy gets that value)
        np.testing.assert_allclose(ops.quantile(X, 0.3, axis=0, method=method).numpy(),
                                   np.quantile(X, F32(0.3), axis=0, method=method),
                                   err_msg=method)
    np.testing.assert_allclose(ops.quantile(X, [0.1, 0.9], axis=1, keepdims=True).numpy(),
                               np.quantile(X, F32([0.1, 0.9]), axis=1, keepdims=True))
    assert ops.median(ops.ones((3,), "float32")).dtype == "float32"
    check_gradients(lambda x: ops.median(x, axis=1), [X[:, :4]])
    w = np.array([1.0, 2.0, 0.0, 1.0, 1.0])
    np.testing.assert_allclose(ops.average(X, axis=1, weights=w).numpy(), np.average(X, axis=1, weights=w))
    np.testing.assert_allclose(float(ops.average(X)), np.average(X))
    check_gradients(lambda x, w: ops.average(x, axis=1, weights=w), [X, w + 0.5])
    s = ops.searchsorted(ops.convert_to_tensor([1.0, 3.0, 5.0]), [4.0, 1.0])
    assert s.dtype == "int32" and s.numpy().tolist() == [2, 0]
    assert ops.searchsorted(np.array([1.0, 3.0]), np.array([3.0]), side="right").numpy().tolist() == [2]


@pytest.mark.parametrize("kwargs", [dict(keepdims=True), dict(axis=(1,)), dict(axis=(0, 2)),
                                    dict(axis=(0, 2), keepdims=True), dict(axis=-1, keepdims=True)])
def test_median_and_quantile_axes_and_keepdims_match_numpy(kwargs):
    x = np.random.default_rng(7).standard_normal((2, 3, 4))
    q40 = float(np.float32(40) / np.float32(100))   # Keras's q / 100 in float32
    for ours, theirs in ((ops.median(x, **kwargs), np.median(x, **kwargs)),
                         (ops.quantile(x, [0.3, 0.8], **kwargs),
                          np.quantile(x, F32([0.3, 0.8]), **kwargs)),
                         (ops.percentile(x, 40, **kwargs), np.quantile(x, q40, **kwargs))):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-12)


def test_top_k_returns_tensorflows_named_pair():
    # Keras 3.15.1 (TF) prints: TopKV2(values=<tf.Tensor: ...>, indices=<tf.Tensor: ...>)
    out = ops.top_k(ops.convert_to_tensor([1.0, 5.0, 3.0]), k=2)
    assert type(out).__name__ == "TopKV2" and out._fields == ("values", "indices")
    assert out.values.numpy().tolist() == [5.0, 3.0] and out.indices.numpy().tolist() == [1, 2]
    assert repr(out) == (
        "TopKV2(values=<tf.Tensor: shape=(2,), dtype=float32, numpy=array([5., 3.], "
        "dtype=float32)>, indices=<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], "
        "dtype=int32)>)")


def test_top_k_unsorted_returns_tensorflows_heap_order():
    # Keras 3.15.1 on TensorFlow (gtl::TopN's array order), ties included.
    x = np.array([[1.764, 0.400, 0.978, 2.240, 1.867, -0.977],
                  [0.950, -0.151, -0.103, 0.411, 0.144, 1.454]], "float32")
    values, indices = ops.top_k(x, 3, sorted=False)
    assert indices.numpy().tolist() == [[0, 3, 4], [3, 0, 5]]
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(x, indices.numpy(), -1))
    ties = np.array([[2, 0, 3, 3, 1, 3, 0, 2, 3, 1]], "float32")
    assert ops.top_k(ties, 4, sorted=False)[1].numpy().tolist() == [[8, 5, 2, 3]]
    z = np.random.RandomState(1).randn(1, 30).astype("float32")
    assert ops.top_k(z, 6, sorted=False)[1].numpy().tolist() == [[22, 10, 14, 6, 0, 21]]
    # k == 1 and k == n stay sorted, as TensorFlow's kernel
    assert ops.top_k(x, 6, sorted=False)[1].numpy().tolist()[0] == [3, 4, 0, 2, 1, 5]


def test_quantile_as_kerass_tensorflow_backend():
    # Keras 3.15.1 prints these: q=0.3 becomes float32 first, the linear weights are
    # tfp's (fraction in the values' dtype), and a slice with a NaN gives NaN
    x = np.array([0.020218396559357643, 0.08712930232286453, 0.7781567573547363,
                  0.832619845867157, 0.8700121641159058], "float32")
    assert float(ops.quantile(x, 0.3)) == 0.22533482313156128
    assert float(ops.quantile(np.array([1, 2, 3, 4]), 0.3)) == np.float32(1.9000001)
    assert np.isnan(float(ops.quantile(np.array([1.0, np.nan, 3.0]), 0.5)))
    assert float(ops.quantile(np.array([1.0, np.inf, 3.0]), 0.5)) == 3.0
