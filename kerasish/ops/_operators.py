"""Attaches Python operators to Tensor and KerasTensor so `a + b`, `a @ b`, `a[i]` are ops.

Done here, not in tensor.py / keras_tensor.py, because the ops depend on them.
On KerasTensors the operators take the ops' symbolic path and record the
graph node Keras records (`x / 2` is `TrueDivide`, `x[:, 0]` is `GetItem`).
"""
import numpy as np

from kerasish.autodiff.keras_tensor import KerasTensor, in_trace
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend import config
from kerasish.ops import (core, elementwise as ew, extras, linalg, manipulation as shape, symbolic,
                          unary)


def _swap(fn):
    return lambda self, other: fn(other, self)


_BINARY = {
    "add": ew.add_operator, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.divide,
    "floordiv": ew.floor_divide, "mod": ew.mod_operator, "pow": ew.power, "matmul": linalg.matmul,
    "and": ew.logical_and, "or": ew.logical_or, "xor": ew.logical_xor,
}


_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")


def _as_own_dtype(self, other):
    """TensorFlow's eager operators (which Keras's tensors use) convert a numpy or
    list operand to the tensor's dtype: float32 tensor * float64 array is float32,
    an int32 tensor + an int64 array int32. Other operands are left to the op."""
    if not isinstance(other, (np.ndarray, np.generic, list, tuple)):
        return other
    array = np.asarray(other)
    own = self.dtype
    if array.dtype.kind in "iub" and own.startswith(("int", "uint")) or \
            array.dtype.kind in "fiub" and own.startswith(("float", "bfloat")):
        return array.astype(config.to_numpy_dtype(own), copy=False)
    return other


def _int_true_divide(x, y):
    """TensorFlow's `/` of two same-dtype integers: float32 for 8/16-bit, else float64."""
    dtype = x.dtype if isinstance(x, Tensor) else y.dtype
    other = y if isinstance(x, Tensor) else x
    same = isinstance(other, int) and not isinstance(other, bool) or \
        getattr(other, "dtype", None) == dtype
    if not (dtype.startswith(("int", "uint")) and same):
        return ew.divide_operator(x, y)
    to = "float32" if dtype in ("int8", "int16", "uint8", "uint16") else "float64"
    return ew.divide_operator(core.cast(x, to), core.cast(y, to) if isinstance(y, Tensor) else y)


def _tensor_equals(self, other, negate):
    """TensorFlow's `==` / `!=` of tensors: `None` gives a Python bool, and operands whose
    shapes do not broadcast a scalar bool tensor (not equal), not an error."""
    if other is None:
        return negate
    if not isinstance(other, str):
        try:
            np.broadcast_shapes(tuple(self.shape), np.shape(other))
        except ValueError:
            return core.convert_to_tensor(negate)
    return (ew.not_equal if negate else ew.equal)(self, other)


def _operator(fn):
    return lambda self, other: fn(self, _as_own_dtype(self, other))


def _reflected(fn):
    return lambda self, other: fn(_as_own_dtype(self, other), self)


def install():
    """Defines the arithmetic, comparison and indexing dunders on Tensor."""
    for name, fn in _BINARY.items():
        if name == "truediv":
            fn = _int_true_divide
        if name in _ARITHMETIC:
            setattr(Tensor, f"__{name}__", _operator(fn))
            setattr(Tensor, f"__r{name}__", _reflected(fn))
            continue
        setattr(Tensor, f"__{name}__", lambda self, other, fn=fn: fn(self, other))
        setattr(Tensor, f"__r{name}__", _swap(fn))
    Tensor.__neg__ = lambda self: ew.negative(self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: ew.absolute(self)
    Tensor.__invert__ = lambda self: ew.logical_not(self)
    Tensor.__eq__ = lambda self, other: _tensor_equals(self, other, False)
    Tensor.__ne__ = lambda self, other: _tensor_equals(self, other, True)
    Tensor.__lt__ = lambda self, other: ew.less(self, other)
    Tensor.__le__ = lambda self, other: ew.less_equal(self, other)
    Tensor.__gt__ = lambda self, other: ew.greater(self, other)
    Tensor.__ge__ = lambda self, other: ew.greater_equal(self, other)
    Tensor.astype = lambda self, dtype: core.cast(self, dtype)
    Tensor.__getitem__ = shape.getitem
    Tensor.T = property(lambda self: shape.transpose(self))
    Tensor.reshape = lambda self, *s: shape.reshape(self, s[0] if len(s) == 1 else s)
    # Keras's variables (not its TF tensors) define round(): ops.round of the value
    Variable.__round__ = lambda self, ndigits=None: unary.round(self.value, decimals=ndigits or 0)


_SYMBOLIC_BINARY = {
    "add": (ew.add, "Add"), "sub": (ew.subtract, "Subtract"),
    "mul": (ew.multiply, "Multiply"), "truediv": (ew.true_divide, "TrueDivide"),
    "pow": (ew.power, "Power"), "matmul": (linalg.matmul, "Matmul"),
    "floordiv": (ew.floor_divide, "FloorDivide"), "mod": (ew.mod, "Mod"),
}
_SYMBOLIC_COMPARISONS = {"lt": (ew.less, "Less"), "le": (ew.less_equal, "LessEqual"),
                         "gt": (ew.greater, "Greater"), "ge": (ew.greater_equal, "GreaterEqual")}


def _symbolic_getitem(x, key):
    """`x[key]` on a KerasTensor: inside a trace, the indexing shape rule; at the
    top level a `GetItem` node whose arguments are `x` and the key, as Keras
    records (and serializes) it."""
    if in_trace():
        return shape.getitem(x, key)
    return symbolic.symbolic_call(extras.get_item, "GetItem", (x, key), {})


def install_symbolic():
    """Defines KerasTensor's arithmetic, comparison and indexing operators."""
    def binary(fn, op_name):
        return lambda self, other: symbolic.symbolic_call(fn, op_name, (self, other), {})

    def rbinary(fn, op_name):
        return lambda self, other: symbolic.symbolic_call(fn, op_name, (other, self), {})

    for name, (fn, op_name) in _SYMBOLIC_BINARY.items():
        setattr(KerasTensor, f"__{name}__", binary(fn, op_name))
        setattr(KerasTensor, f"__r{name}__", rbinary(fn, op_name))
    for name, (fn, op_name) in _SYMBOLIC_COMPARISONS.items():
        setattr(KerasTensor, f"__{name}__", binary(fn, op_name))
    KerasTensor.__neg__ = lambda self: symbolic.symbolic_call(ew.negative, "Negative", (self,), {})
    KerasTensor.__abs__ = lambda self: symbolic.symbolic_call(ew.absolute, "Absolute", (self,), {})
    KerasTensor.__getitem__ = _symbolic_getitem
