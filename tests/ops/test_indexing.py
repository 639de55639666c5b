"""kerasish.ops.indexing: gathers, `x[key]`, scatters, one_hot."""
import numpy as np
import pytest

from kerasish import GradientTape, ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(4)
X = RNG.standard_normal((3, 4))


@pytest.mark.parametrize("key", [
    1, -1, slice(1, None), (slice(None), 2), (Ellipsis, 1), (None, 0), (slice(None, None, -1), slice(0, 3, 2)),
    np.array([0, 2, 2]), ([0, 0, 2], [1, 1, 3]), np.array([True, False, True]), (slice(None), [3, 3, 0]),
], ids=str)
def test_getitem_values_and_gradients(key):
    ours = ops.convert_to_tensor(X)[key]
    np.testing.assert_array_equal(ours.numpy(), X[key])
    check_gradients(lambda x: x[key], [X])


def test_getitem_with_tensor_indices_and_second_order():
    idx = ops.convert_to_tensor([2, 0])
    np.testing.assert_array_equal(ops.convert_to_tensor(X)[idx].numpy(), X[[2, 0]])
    check_second_order(lambda x: ops.square(x)[[0, 0, 1]], [X[:2, :2]])


def test_repeated_indices_accumulate_gradients():
    x = ops.convert_to_tensor([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(x[[0, 0, 2, 0]])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 0.0, 1.0])


def test_take_and_take_along_axis():
    idx = np.array([[0, -1], [2, 1]])
    np.testing.assert_array_equal(ops.take(X, idx, axis=1).numpy(), np.take(X, idx, axis=1))
    np.testing.assert_array_equal(ops.take(X, [5, 0]).numpy(), np.take(X, [5, 0]))
    check_gradients(lambda x: ops.take(x, idx, axis=1), [X])
    check_gradients(lambda x: ops.take(x, [1, 1, 0], axis=0), [X])
    order = np.argsort(X, axis=1)
    np.testing.assert_array_equal(ops.take_along_axis(X, order, axis=1).numpy(), np.sort(X, axis=1))
    check_gradients(lambda x: ops.take_along_axis(x, order[:, :2], axis=1), [X])
    check_second_order(lambda x: ops.take(ops.square(x), [1, 1], axis=0), [X[:2, :2]])
    check_second_order(lambda x: ops.take_along_axis(ops.sin(x), order[:2, :2], axis=1), [X[:2]])


def test_slice_and_updates():
    np.testing.assert_array_equal(ops.slice(X, [1, 1], [2, 2]).numpy(), X[1:3, 1:3])
    upd = ops.slice_update(X, [1, 2], np.ones((2, 2)))
    expected = X.copy()
    expected[1:3, 2:4] = 1
    np.testing.assert_array_equal(upd.numpy(), expected)
    check_gradients(lambda x, u: ops.slice_update(x, [0, 1], u), [X, np.ones((2, 2))])
    su = ops.scatter_update(ops.zeros((2, 3)), [[0, 1], [1, 2]], [5.0, 6.0])
    np.testing.assert_array_equal(su.numpy(), [[0, 5, 0], [0, 0, 6]])
    rows = ops.scatter_update(X, [[2]], np.zeros((1, 4)))
    np.testing.assert_array_equal(rows.numpy()[2], 0)
    check_gradients(lambda x, u: ops.scatter_update(x, [[0, 1], [2, 3]], u), [X, np.array([1.0, 2.0])])
    assert np.all(ops.slice_update(ops.zeros((3,), "int32"), [1], [7]).numpy() == [0, 7, 0])


def test_scatter_adds_repeated_indices():
    out = ops.scatter([[0], [2], [0]], [1.0, 2.0, 3.0], (4,))
    np.testing.assert_array_equal(out.numpy(), [4.0, 0.0, 2.0, 0.0])
    out2 = ops.scatter([[0, 1], [1, 0]], np.ones((2, 3)), (2, 2, 3))
    assert out2.shape == (2, 2, 3) and out2.numpy()[0, 1].tolist() == [1, 1, 1]
    check_gradients(lambda v: ops.scatter([[0], [2], [0]], v, (3,)), [np.array([1.0, 2.0, 3.0])])


def test_one_hot_and_multi_hot():
    out = ops.one_hot(ops.convert_to_tensor([0, 2, -1, 5]), 3)
    assert out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    assert ops.one_hot(np.array([[1, 0]]), 3, axis=0).shape == (3, 1, 2)
    assert ops.one_hot(np.array([1]), 2, dtype="int32").dtype == "int32"
    mh = ops.multi_hot(np.array([[0, 2], [1, 1]]), 3)
    np.testing.assert_array_equal(mh.numpy(), [[1, 0, 1], [0, 1, 0]])
    np.testing.assert_array_equal(ops.multi_hot(np.array([0, 2]), 4).numpy(), [1, 0, 1, 0])


def test_bad_indices_name_the_op_and_dtype():
    t = ops.convert_to_tensor(X)
    with pytest.raises(TypeError, match="ops.getitem.*float"):
        t[1.0]
    with pytest.raises(TypeError, match="ops.getitem.*list of floats"):
        t[[0.0, 1.0]]
    with pytest.raises(TypeError, match=r"ops.getitem.*shape \(1,\) <dtype: 'float32'>"):
        t[ops.convert_to_tensor([1.0])]
    with pytest.raises(IndexError, match=r"ops.getitem.*shape \(3, 4\)"):
        t[7]
    with pytest.raises(TypeError, match=r"ops.take: indices must be integers; got dtype float64"):
        ops.take(X, np.array([0.0]))
    with pytest.raises(IndexError, match=r"ops.take: index out of range.*size 4"):
        ops.take(X, [4], axis=1)
    with pytest.raises(TypeError, match="ops.one_hot.*float32"):
        ops.one_hot(ops.convert_to_tensor([0.0, 1.0]), 2)
    with pytest.raises(NotImplementedError, match="sparse"):
        ops.one_hot([0], 2, sparse=True)
    with pytest.raises(TypeError, match="ops.slice: start indices must be integers"):
        ops.slice(X, [0.5, 0], [1, 1])
    with pytest.raises(ValueError, match=r"ops.slice_update.*\(2, 3\).*\(3, 4\)"):
        ops.slice_update(X, [2, 2], np.ones((2, 3)))


def test_take_rejects_an_out_of_range_axis():
    # axis 5 of a 2-D tensor used to wrap around to axis 1
    with pytest.raises(ValueError, match="ops.take: axis 5 is out of bounds"):
        ops.take(np.ones((3, 4)), np.array([0, 1]), axis=5)
    assert ops.take(np.ones((3, 4)), np.array([0, 1]), axis=-1).shape == (3, 2)


# Keras 3.15.1 on TensorFlow: values and gradients of sum(out * [1, 2, 3, 4]), ties included
_SCATTER_KERAS = {
    "max": ([3.0, 5.0, 2.0, 0.5], [0.0, 2 / 3, 3.0, 4.0], [2 / 3, 1.0, 2 / 3, 0.0]),
    "min": ([1.0, 5.0, 2.0, 0.2], [1.0, 2 / 3, 3.0, 0.0], [2 / 3, 0.0, 2 / 3, 4.0]),
    "mul": ([3.0, 125.0, 2.0, 0.1], [3.0, 50.0, 3.0, 0.8], [50.0, 1.0, 50.0, 2.0]),
}


@pytest.mark.parametrize("reduction", sorted(_SCATTER_KERAS))
def test_scatter_update_reductions_match_keras(reduction):
    x = ops.convert_to_tensor([1.0, 5.0, 2.0, 0.5])
    u = ops.convert_to_tensor([5.0, 3.0, 5.0, 0.2])
    with GradientTape() as tape:
        tape.watch(x)
        tape.watch(u)
        out = ops.scatter_update(x, [[1], [0], [1], [3]], u, reduction=reduction)
        loss = ops.sum(out * ops.convert_to_tensor([1.0, 2.0, 3.0, 4.0]))
    gx, gu = tape.gradient(loss, [x, u])
    expected, expected_gx, expected_gu = _SCATTER_KERAS[reduction]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), expected_gx, rtol=1e-6)
    np.testing.assert_allclose(gu.numpy(), expected_gu, rtol=1e-6)


@pytest.mark.parametrize("reduction", ["max", "min", "mul"])
def test_scatter_update_reductions_on_slices_and_gradients(reduction):
    rng = np.random.default_rng(3)
    x, u = rng.uniform(0.5, 1.5, (3, 2, 2)), rng.uniform(0.5, 1.5, (4, 2))
    indices = [[2, 1], [0, 0], [2, 1], [1, 0]]
    out = ops.scatter_update(x, indices, u, reduction=reduction).numpy()
    expected = x.copy()
    combine = {"max": np.maximum, "min": np.minimum, "mul": np.multiply}[reduction]
    for (i, j), row in zip(indices, u):
        expected[i, j] = combine(expected[i, j], row)
    np.testing.assert_allclose(out, expected)
    check_gradients(lambda a, b: ops.scatter_update(a, indices, b, reduction=reduction), [x, u])


def test_scatter_update_unknown_reduction_in_keras_words():
    with pytest.raises(ValueError, match="^Unsupported reduction: sum$"):
        ops.scatter_update(np.zeros(3), [[0]], [1.0], reduction="sum")
