"""kerasish.ops.manipulation and layout: shapes, joins, splits, pads, grids."""
import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 3, 4))


@pytest.mark.parametrize("fn, ref", [
    (lambda o, x: o.reshape(x, (4, -1)), lambda x: x.reshape(4, -1)),
    (lambda o, x: o.transpose(x), lambda x: x.T),
    (lambda o, x: o.transpose(x, (1, 0, 2)), lambda x: x.transpose(1, 0, 2)),
    (lambda o, x: o.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1)),
    (lambda o, x: o.moveaxis(x, [0, 1], [2, 0]), lambda x: np.moveaxis(x, [0, 1], [2, 0])),
    (lambda o, x: o.swapaxes(x, 0, 2), lambda x: np.swapaxes(x, 0, 2)),
    (lambda o, x: o.expand_dims(x, 1), lambda x: np.expand_dims(x, 1)),
    (lambda o, x: o.expand_dims(x, (0, -1)), lambda x: np.expand_dims(x, (0, -1))),
    (lambda o, x: o.squeeze(o.expand_dims(x, 1), 1), lambda x: x),
    (lambda o, x: o.ravel(x), np.ravel),
    (lambda o, x: o.flatten(x), np.ravel),
    (lambda o, x: o.broadcast_to(x[:, :1], (2, 3, 4)), lambda x: np.broadcast_to(x[:, :1], (2, 3, 4))),
    (lambda o, x: o.tile(x, (2, 1, 1)), lambda x: np.tile(x, (2, 1, 1))),
    (lambda o, x: o.tile(x[0, 0], 3), lambda x: np.tile(x[0, 0], 3)),
    (lambda o, x: o.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1)),
    (lambda o, x: o.repeat(x, [1, 0, 2], axis=1), lambda x: np.repeat(x, [1, 0, 2], axis=1)),
    (lambda o, x: o.repeat(x, 2), lambda x: np.repeat(x, 2)),
    (lambda o, x: o.flip(x, 1), lambda x: np.flip(x, 1)),
    (lambda o, x: o.flip(x), np.flip),
    (lambda o, x: o.roll(x, 2, axis=2), lambda x: np.roll(x, 2, axis=2)),
    (lambda o, x: o.roll(x, (1, -1), axis=(0, 2)), lambda x: np.roll(x, (1, -1), axis=(0, 2))),
    (lambda o, x: o.rot90(x), lambda x: np.rot90(x)),
    (lambda o, x: o.rot90(x, 3, (1, 2)), lambda x: np.rot90(x, 3, (1, 2))),
    (lambda o, x: o.rot90(x, 2, (0, 2)), lambda x: np.rot90(x, 2, (0, 2))),
    (lambda o, x: o.diff(x, 2, axis=-1), lambda x: np.diff(x, 2, axis=-1)),
    (lambda o, x: o.pad(x, [[1, 0], [0, 2], [1, 1]]), lambda x: np.pad(x, [[1, 0], [0, 2], [1, 1]])),
    (lambda o, x: o.pad(x, 1, constant_values=2.0), lambda x: np.pad(x, 1, constant_values=2.0)),
    (lambda o, x: o.pad(x, [[0, 0], [2, 1], [1, 2]], "reflect"),
     lambda x: np.pad(x, [[0, 0], [2, 1], [1, 2]], "reflect")),
    (lambda o, x: o.pad(x, (1, 2), "symmetric"), lambda x: np.pad(x, (1, 2), "symmetric")),
    (lambda o, x: o.pad(x, 2, "edge"), lambda x: np.pad(x, 2, "edge")),
    (lambda o, x: o.pad(x, [[1, 1], [0, 0], [3, 0]], "wrap"), lambda x: np.pad(x, [[1, 1], [0, 0], [3, 0]], "wrap")),
    (lambda o, x: o.concatenate([x, x[:, :1]], axis=1), lambda x: np.concatenate([x, x[:, :1]], 1)),
    (lambda o, x: o.concatenate([x, x], axis=-1), lambda x: np.concatenate([x, x], -1)),
    (lambda o, x: o.stack([x, x], axis=1), lambda x: np.stack([x, x], 1)),
    (lambda o, x: o.hstack([x, x]), lambda x: np.hstack([x, x])),
    (lambda o, x: o.vstack([x[0], x[1]]), lambda x: np.vstack([x[0], x[1]])),
    (lambda o, x: o.vstack([x[0, 0], x[1, 0]]), lambda x: np.vstack([x[0, 0], x[1, 0]])),
    (lambda o, x: o.append(x, x[0]), lambda x: np.append(x, x[0])),
    (lambda o, x: o.append(x, x, axis=0), lambda x: np.append(x, x, axis=0)),
    (lambda o, x: o.split(x, 2, axis=-1)[1], lambda x: np.split(x, 2, axis=-1)[1]),
    (lambda o, x: o.split(x, [1, 3], axis=2)[2], lambda x: np.split(x, [1, 3], axis=2)[2]),
    (lambda o, x: o.unstack(x, axis=1)[2], lambda x: x[:, 2]),
], ids=lambda v: "" if callable(v) else str(v))
def test_forward_and_gradient(fn, ref):
    np.testing.assert_allclose(fn(ops, X).numpy(), ref(X))
    check_gradients(lambda x: fn(ops, x), [X])


@pytest.mark.parametrize("fn", [
    lambda x: ops.transpose(ops.reshape(x, (3, 2)) ** 2),
    lambda x: ops.tile(ops.square(x), (2, 1)),
    lambda x: ops.concatenate([ops.square(x), ops.sin(x)], axis=0),
    lambda x: ops.pad(ops.square(x), 1, "reflect"),
    lambda x: ops.broadcast_to(ops.square(x[:1]), (3, 3)),
    lambda x: ops.repeat(ops.square(x), 2, axis=0),
])
def test_second_order(fn):
    check_second_order(fn, [RNG.standard_normal((2, 3))])


def test_meshgrid_matches_numpy_and_is_differentiable():
    a, b, c = np.arange(3.0), np.arange(2.0) + 5, np.arange(4.0)
    for indexing in ("xy", "ij"):
        ours = ops.meshgrid(a, b, c, indexing=indexing)
        for got, want in zip(ours, np.meshgrid(a, b, c, indexing=indexing)):
            np.testing.assert_array_equal(got.numpy(), want)
    check_gradients(lambda a, b: ops.meshgrid(a, b)[0] * ops.meshgrid(a, b)[1], [a, b])
    with pytest.raises(ValueError, match="ops.meshgrid"):
        ops.meshgrid(a, indexing="xx")


def test_concatenate_promotes_dtypes():
    out = ops.concatenate([ops.ones((2,), "int32"), ops.ones((1,), "float32")])
    assert out.dtype == "float32"
    assert ops.concatenate([ops.ones((1,), "int8"), ops.ones((1,), "uint8")]).dtype == "int16"


def test_int_tensors_keep_dtype_through_shape_ops():
    i = ops.reshape(ops.arange(6), (2, 3))
    assert i.dtype == "int32"
    assert ops.transpose(i).dtype == "int32" and ops.pad(i, 1).dtype == "int32"
    assert ops.tile(i, 2).numpy().tolist()[0] == [0, 1, 2, 0, 1, 2]
    assert int(ops.size(i)) == 6 and ops.size(i).dtype == "int32"  # Keras (TF): int32 tensor


def test_bad_input_errors_name_the_op_and_shapes():
    with pytest.raises(ValueError, match=r"ops.reshape.*\(2, 3, 4\).*24 elements.*\(5, -1\)"):
        ops.reshape(X, (5, -1))
    with pytest.raises(ValueError, match=r"ops.concatenate.*axis 0.*\(2, 3\).*\(2, 4\)"):
        ops.concatenate([ops.ones((2, 3)), ops.ones((2, 4))])
    with pytest.raises(ValueError, match=r"ops.concatenate: axis 2 is out of bounds"):
        ops.concatenate([ops.ones((2, 3)), ops.ones((2, 3))], axis=2)
    with pytest.raises(ValueError, match=r"ops.stack.*same shape"):
        ops.stack([ops.ones((2,)), ops.ones((3,))])
    with pytest.raises(ValueError, match=r"ops.split.*size 3.*2 equal sections"):
        ops.split(ops.ones((3,)), 2)
    with pytest.raises(ValueError, match=r"ops.squeeze.*axis 1 of size 3"):
        ops.squeeze(X, 1)
    with pytest.raises(ValueError, match=r"Incompatible shapes: \[2,3,4\] vs. \[5\] "
                                         r"\[Op:BroadcastTo\]"):   # TensorFlow's words
        ops.broadcast_to(X, (5,))
    with pytest.raises(ValueError, match=r"ops.transpose"):
        ops.transpose(X, (0, 0, 1))
    with pytest.raises(ValueError, match=r"ops.pad.*constant_values"):
        ops.pad(X, 1, mode="edge", constant_values=1.0)
    with pytest.raises(NotImplementedError, match=r"ops.pad.*'mean'"):
        ops.pad(X, 1, mode="mean")
    with pytest.raises(ValueError, match=r"ops.unstack.*num=2"):
        ops.unstack(X, num=2, axis=1)


def test_transpose_axes_validation_uses_keras_wording():
    x = ops.zeros((2, 3, 4))
    with pytest.raises(ValueError, match=r"valid permutation.*axes=\[0, 0, 0\]"):
        ops.transpose(x, axes=[0, 0, 0])
    # an out-of-range axis used to wrap around silently (5 -> 2)
    with pytest.raises(ValueError, match=r"Each axis in `axes` must be an integer in \[-3, 3\)"):
        ops.transpose(x, axes=[0, 1, 5])
    with pytest.raises(ValueError, match="must be a list of the same length as the input shape"):
        ops.transpose(x, axes=[0, 1])
    assert ops.transpose(x, axes=[-1, 0, 1]).shape == (4, 2, 3)


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_pad_constant_values_outside_constant_mode_uses_keras_wording(mode):
    with pytest.raises(ValueError, match="Argument `constant_values` can only be provided "
                                         "when `mode == 'constant'`"):
        ops.pad(ops.ones((2, 3)), ((1, 1), (1, 1)), mode=mode, constant_values=2)


def test_reshape_rejects_negative_entries_other_than_one_minus_one():
    x = ops.zeros((20,))
    # numpy alone accepted -2 as an unknown dimension
    with pytest.raises(ValueError, match=r"non-negative integer.*-1.*newshape=\(-2, 5\)"):
        ops.reshape(x, (-2, 5))
    with pytest.raises(ValueError, match=r"at most one unknown dimension.*newshape=\(-1, -1, 5\)"):
        ops.reshape(x, (-1, -1, 5))
    assert ops.reshape(x, (-1, 5)).shape == (4, 5)


def test_moveaxis_rejects_out_of_range_and_repeated_axes():
    x = ops.zeros((2, 2, 3))
    # axis 3 used to wrap around to 0 silently (sparsemax(x, axis=3) returned a result)
    with pytest.raises(ValueError, match="`source` axis 3 is out of bounds for a tensor of rank 3"):
        ops.moveaxis(x, 3, -1)
    with pytest.raises(ValueError, match="`destination` axis -4 is out of bounds"):
        ops.moveaxis(x, 0, -4)
    with pytest.raises(ValueError, match="repeated axis in `source`"):
        ops.moveaxis(x, [0, 0], [1, 2])
    with pytest.raises(ValueError, match="out of bounds"):
        ops.sparsemax(x, axis=3)
    assert ops.moveaxis(x, [0, -1], [-1, 0]).shape == (3, 2, 2)


def test_swapaxes_rejects_an_out_of_range_axis():
    with pytest.raises(ValueError, match="axis 5 is out of bounds"):
        ops.swapaxes(ops.zeros((3, 4)), 5, 0)
    assert ops.swapaxes(ops.zeros((3, 4)), -1, 0).shape == (4, 3)


def test_stack_and_take_along_axis_reject_an_out_of_range_axis():
    a, idx = np.ones((3, 4)), np.zeros((3, 2), "int32")
    with pytest.raises(ValueError, match="axis 10 is out of bounds"):
        ops.stack([a, a], axis=10)
    with pytest.raises(ValueError, match="axis 10 is out of bounds"):
        ops.take_along_axis(a, idx, axis=10)
    assert ops.stack([a, a], axis=-3).shape == (2, 3, 4)
    assert ops.stack([a, a], axis=2).shape == (3, 4, 2)
