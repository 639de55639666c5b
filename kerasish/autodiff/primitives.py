"""The few primitives the engine needs itself, so autodiff imports nothing above it.

Gradient accumulation (`accumulate`), seeds (`ones_like`, `zeros_like`) and
the reshape/stack used by jacobians. `kerasish.ops.reshape` is built on
`Reshape` too, so its gradient rule exists once.
"""
from kerasish.autodiff import indexed_slices
from kerasish.autodiff.capture import constant_creator
from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor


@constant_creator
def zeros_like(x):
    """Zeros with `x`'s shape, dtype and device (not recorded).

    Args:
        x: a Tensor.

    Returns:
        Tensor.
    """
    return Tensor(x._device.xp.zeros(x._value.shape, x._value.dtype), x._device)


@constant_creator
def ones_like(x):
    """Ones with `x`'s shape, dtype and device (not recorded).

    Args:
        x: a Tensor.

    Returns:
        Tensor.
    """
    return Tensor(x._device.xp.ones(x._value.shape, x._value.dtype), x._device)


class Accumulate(Op):
    """`a + b` for two gradients of one tensor (same shape; recorded for higher order)."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "accumulate"

    def forward(self, device, a, b):
        return a + b

    def backward(self, saved, needs, g):
        return g, g


_ACCUMULATE = Accumulate()


def accumulate(a, b):
    """Sums two gradient Tensors of the same tensor.

    Args:
        a, b: Tensors of one shape.

    Returns:
        Tensor.
    """
    if b._device is not a._device:
        b = Tensor(a._device.send(b._value), a._device)
    total = _ACCUMULATE(a, b)
    indexed_slices.merge(total, a, b)
    return total


class Reshape(Op):
    """Reshape to `shape` (one entry may be -1); the gradient reshapes back."""

    name = "reshape"

    def __init__(self, shape):
        self.shape = tuple(shape)

    def forward(self, device, x):
        return x.reshape(self.shape)

    def save(self, inputs, outputs):
        return (inputs[0]._value.shape,)

    def backward(self, saved, needs, g):
        return (Reshape(saved[0])(g),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        known = [d for d in self.shape if d != -1]
        if -1 in self.shape:
            total = None if None in shape else _product(shape)
            missing = None if total is None else total // max(1, _product(known))
            return tuple(missing if d == -1 else d for d in self.shape), dtype
        return self.shape, dtype


def _product(dims):
    result = 1
    for d in dims:
        result *= d
    return result


class Stack(Op):
    """Stacks equal-shape, equal-dtype tensors along a new `axis`; the gradient unstacks."""

    name = "stack"

    def __init__(self, axis=0):
        self.axis = axis

    def forward(self, device, *xs):
        return device.xp.stack(xs, axis=self.axis)

    def backward(self, saved, needs, g):
        return Unstack(self.axis)(g)

    def compute_output_spec(self, *specs):
        shape = list(specs[0][0])
        axis = self.axis if self.axis >= 0 else self.axis + len(shape) + 1
        shape.insert(axis, len(specs))
        return tuple(shape), specs[0][1]


class Unstack(Op):
    """Splits `axis` into one output per entry; the gradient stacks."""

    name = "unstack"

    def __init__(self, axis=0):
        self.axis = axis

    def forward(self, device, x):
        return tuple(device.xp.moveaxis(x, self.axis, 0))

    def backward(self, saved, needs, grads):
        return (Stack(self.axis)(*grads),)

    def compute_output_spec(self, spec):
        shape = list(spec[0])
        n = shape.pop(self.axis)
        return [(tuple(shape), spec[1])] * n


def reshape(x, shape):
    """`Reshape(shape)(x)`.

    Args:
        x: a Tensor.
        shape: the new shape.

    Returns:
        Tensor.
    """
    return Reshape(shape)(x)


def stack(xs, axis=0):
    """`Stack(axis)(*xs)`.

    Args:
        xs: Tensors of one shape and dtype.
        axis: the new axis.

    Returns:
        Tensor.
    """
    return Stack(axis)(*xs)
