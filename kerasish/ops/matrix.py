"""Matrix structure and linear algebra: tril, triu, diag, diagonal, trace, inv, solve, det.

Every gradient is written with ops (second order works).
"""
import numpy as np

from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op, broadcast_shapes
from kerasish.autodiff.tensor import Tensor
from kerasish.backend.config import is_float
from kerasish.ops import core, elementwise as ew, linalg, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor, float_operand
from kerasish.ops.indexing import _index_add
from kerasish.ops.symbolic import keras_op


def _triangle(name, fn):
    def op(x, k=0):
        x = convert_to_tensor(x)
        if x.ndim < 2:
            raise ValueError(f"ops.{name}: needs a tensor of rank >= 2; got shape {x.shape}.")
        return Triangle(name, fn, k)(x)
    op.__name__ = op.__qualname__ = name
    side = "below" if name == "tril" else "above"
    op.__doc__ = (
        f"Keeps the elements on and {side} the k-th diagonal of the last two axes, zeroes the rest.\n\n"
        "    Args:\n        x: tensor of rank >= 2.\n        k: diagonal offset.\n\n"
        "    Returns:\n        Tensor.\n\n"
        f"    Example:\n        >>> ops.{name}(ops.ones((3, 3)))\n")
    return keras_op(op, name=op.__name__)


class Triangle(Op):
    """tril/triu of the last two axes; the gradient is the same mask applied to `g`."""

    elementwise = True  # shaped like its (broadcast) inputs

    def __init__(self, name, fn, k):
        self.name, self.fn, self.k = name, fn, k

    def forward(self, device, x):
        return self.fn(device.xp)(x, k=self.k)

    def backward(self, saved, needs, g):
        return (self(g),)


tril = _triangle("tril", lambda xp: xp.tril)
triu = _triangle("triu", lambda xp: xp.triu)


def _diag_positions(n, k):
    rows = np.arange(n) + max(-k, 0)
    cols = np.arange(n) + max(k, 0)
    return rows, cols


@keras_op
def diag(x, k=0):
    """Builds a diagonal matrix from a 1-D tensor, or extracts a diagonal of a 2-D one.

    Args:
        x: 1-D or 2-D tensor.
        k: diagonal offset.

    Returns:
        Tensor (2-D for 1-D input, 1-D for 2-D input).

    Example:
        >>> ops.diag(ops.convert_to_tensor([1, 2]))   # [[1, 0], [0, 2]]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor and x.ndim == 1:
        size = None if x.shape[0] is None else x.shape[0] + abs(k)
        return KerasTensor((size, size), x.dtype)
    if x.ndim == 1:
        n = x.shape[0]
        size = n + abs(k)
        rows, cols = _diag_positions(n, k)
        if not is_float(x._value.dtype):
            return Tensor(x._device.xp.diag(x._value, k), x._device)
        return _index_add(x, (rows, cols), (size, size))
    if x.ndim == 2:
        return diagonal(x, offset=k)
    raise ValueError(f"ops.diag: needs a 1-D or 2-D tensor; got shape {x.shape}.")


@keras_op
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The diagonal over `axis1`/`axis2`, as the last axis of the result (numpy.diagonal).

    Example:
        >>> ops.diagonal(ops.reshape(ops.arange(4), (2, 2)))   # [0, 3]
    """
    x = convert_to_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"ops.diagonal: needs a tensor of rank >= 2; got shape {x.shape}.")
    moved = shape_ops.moveaxis(x, (axis1, axis2), (-2, -1))
    n_rows, n_cols = moved.shape[-2:]
    if x.__class__ is KerasTensor:
        n = None if n_rows is None or n_cols is None else \
            max(0, min(n_rows - max(-offset, 0), n_cols - max(offset, 0)))
        return KerasTensor(moved.shape[:-2] + (n,), x.dtype)
    n = max(0, min(n_rows - max(-offset, 0), n_cols - max(offset, 0)))
    rows, cols = _diag_positions(n, offset)
    return moved[..., rows, cols]


@keras_op
def trace(x, offset=0, axis1=0, axis2=1):
    """Sum of the diagonal (small int dtypes accumulate in int32).

    Example:
        >>> ops.trace(ops.eye(3))   # 3.0
    """
    return reduction.sum(diagonal(x, offset, axis1, axis2), axis=-1)


def _square_matrix(name, x):
    x = float_operand(x)
    if x.ndim < 2 or None not in x.shape[-2:] and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"ops.{name}: needs square matrices (..., n, n); got {core.describe(x)}.")
    return x


def _mT(x):
    return shape_ops.swapaxes(x, -1, -2)


@keras_op
def inv(x):
    """Matrix inverse over the last two axes; gradient -inv^T g inv^T.

    Example:
        >>> ops.inv(ops.eye(2) * 2.0)   # [[0.5, 0], [0, 0.5]]
    """
    x = _square_matrix("inv", x)
    try:
        return _INV(x)
    except np.linalg.LinAlgError as err:
        raise ValueError(f"ops.inv: singular matrix ({core.describe(x)}): {err}.") from None


class Inv(Op):
    """Matrix inverse; gradient `-inv^T g inv^T`."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "inv"

    def forward(self, device, x):
        return device.xp.linalg.inv(x)

    def save(self, inputs, outputs):
        return (outputs[0],)

    def backward(self, saved, needs, g):
        out = saved[0]
        return (ew.negative(linalg.matmul(_mT(out), linalg.matmul(g, _mT(out)))),)


_INV = Inv()


@keras_op
def solve(a, b):
    """Solves `a @ x = b` for x (a: (..., n, n), b: (..., n, m) or (..., n)).

    Example:
        >>> ops.solve(ops.eye(2) * 2.0, ops.ones((2, 1)))   # [[0.5], [0.5]]
    """
    a = _square_matrix("solve", a)
    b = float_operand(b)
    vector = b.ndim == a.ndim - 1
    b2 = shape_ops.expand_dims(b, -1) if vector else b
    if None not in (b2.shape[-2], a.shape[-1]) and b2.shape[-2] != a.shape[-1]:
        raise ValueError(f"ops.solve: a and b do not fit ({core.describe(a, b)}).")
    out = _SOLVE(a, b2)
    return shape_ops.squeeze(out, -1) if vector else out


class Solve(Op):
    """`a @ x = b` for x (b: (..., n, m)); gradients `-gb x^T` and `gb = solve(a^T, g)`."""

    name = "solve"

    def forward(self, device, a, b):
        return device.xp.linalg.solve(a, b)

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        a, out = saved
        gb = solve(_mT(a), g)
        return ew.negative(linalg.matmul(gb, _mT(out))), gb

    def compute_output_spec(self, a, b):
        return broadcast_shapes(a[0][:-2], b[0][:-2]) + tuple(b[0][-2:]), a[1]


_SOLVE = Solve()


@keras_op
def slogdet(x):
    """(sign, log|det|) of square matrices; log|det| is differentiable.

    Example:
        >>> sign, logabs = ops.slogdet(ops.eye(2) * 2.0)   # 1.0, log(4)
    """
    return _SLOGDET(_square_matrix("slogdet", x))


class SlogDet(Op):
    """(sign, log|det|); the gradient of log|det| is `inv(x)^T`."""

    name = "slogdet"

    def forward(self, device, x):
        sign, logabs = device.xp.linalg.slogdet(x)
        xp = device.xp
        return xp.asarray(sign, dtype=x.dtype), xp.asarray(logabs, dtype=x.dtype)

    def save(self, inputs, outputs):
        return (inputs[0],)

    def backward(self, saved, needs, grads):
        return (ew.multiply(grads[1][..., None, None], _mT(inv(saved[0]))),)

    def compute_output_spec(self, spec):
        return [(tuple(spec[0][:-2]), spec[1])] * 2


_SLOGDET = SlogDet()


@keras_op
def logdet(x):
    """log(det(x)) of positive-determinant matrices (via slogdet).

    Example:
        >>> ops.logdet(ops.eye(2) * 2.0)   # log(4)
    """
    sign, logabs = slogdet(x)
    return ew.where(ew.greater(sign, 0), logabs, float("nan"))


@keras_op
def det(x):
    """Determinant of square matrices; gradient det * inv^T.

    Example:
        >>> ops.det(ops.eye(2) * 2.0)   # 4.0
    """
    return _DET(_square_matrix("det", x))


class Det(Op):
    """Determinant; gradient `det * inv(x)^T`."""

    name = "det"

    def forward(self, device, x):
        return device.xp.asarray(device.xp.linalg.det(x), dtype=x.dtype)

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        x, out = saved
        return (ew.multiply(ew.multiply(g, out)[..., None, None], _mT(inv(x))),)

    def compute_output_spec(self, spec):
        return tuple(spec[0][:-2]), spec[1]


_DET = Det()
