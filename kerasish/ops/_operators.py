"""Attaches Python operators to Tensor so `a + b`, `a @ b`, `a[i]` are ops.

Done here, not in tensor.py, because the ops depend on Tensor.
"""
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, elementwise as ew, linalg, manipulation as shape


def _swap(fn):
    return lambda self, other: fn(other, self)


_BINARY = {
    "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.divide,
    "floordiv": ew.floor_divide, "mod": ew.mod, "pow": ew.power, "matmul": linalg.matmul,
    "and": ew.logical_and, "or": ew.logical_or, "xor": ew.logical_xor,
}


def install():
    """Defines the arithmetic, comparison and indexing dunders on Tensor."""
    for name, fn in _BINARY.items():
        setattr(Tensor, f"__{name}__", lambda self, other, fn=fn: fn(self, other))
        setattr(Tensor, f"__r{name}__", _swap(fn))
    Tensor.__neg__ = lambda self: ew.negative(self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: ew.absolute(self)
    Tensor.__invert__ = lambda self: ew.logical_not(self)
    Tensor.__eq__ = lambda self, other: ew.equal(self, other)
    Tensor.__ne__ = lambda self, other: ew.not_equal(self, other)
    Tensor.__lt__ = lambda self, other: ew.less(self, other)
    Tensor.__le__ = lambda self, other: ew.less_equal(self, other)
    Tensor.__gt__ = lambda self, other: ew.greater(self, other)
    Tensor.__ge__ = lambda self, other: ew.greater_equal(self, other)
    Tensor.astype = lambda self, dtype: core.cast(self, dtype)
    Tensor.__getitem__ = shape.getitem
    Tensor.T = property(lambda self: shape.transpose(self))
    Tensor.reshape = lambda self, *s: shape.reshape(self, s[0] if len(s) == 1 else s)
