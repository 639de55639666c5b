"""`keras.ops` on KerasTensors: an op called on symbolic tensors records a graph op.

Called on KerasTensors (anywhere in its arguments), `ops.sum(x, axis=1)`
returns a KerasTensor produced by a `Sum` op node, as in Keras, and
`x + 1` a node of `Add`; on real tensors the ops run unchanged.
"""
import functools
import inspect

from kerasish import ops
from kerasish.layers.core.lambda_layer import SymbolicOp
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.utils import tree

_NOT_SYMBOLIC = {"convert_to_numpy", "convert_to_tensor", "is_tensor", "dtype", "cond",
                 "while_loop", "fori_loop", "scan", "map", "vectorized_map",
                 "associative_scan", "switch", "custom_gradient"}
_STATIC = {"shape": lambda x: tuple(x.shape), "ndim": lambda x: len(x.shape)}


def op_class_name(function_name):
    """Keras's operation class for an op function: "not_equal" -> "NotEqual"."""
    return "".join(part[:1].upper() + part[1:] for part in function_name.split("_"))


def symbolic_dispatch(fn, name=None):
    """Wraps an op so that KerasTensor arguments record a graph op instead of failing.

    Called on KerasTensors (anywhere in its arguments), `ops.sum(x, axis=1)`
    returns a KerasTensor produced by a `Sum` op node, as in Keras; on real
    tensors the op runs unchanged.
    """
    name = name or fn.__name__
    if name in _STATIC:
        static = _STATIC[name]

        @functools.wraps(fn)
        def static_wrapper(x, *args, **kwargs):
            return static(x) if isinstance(x, KerasTensor) else fn(x, *args, **kwargs)
        static_wrapper._kerasish_symbolic = True
        return static_wrapper
    op_name = op_class_name(getattr(fn, "__name__", name))

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for a in args:  # fast path: one type check per argument
            cls = a.__class__
            if cls is KerasTensor or (cls in _CONTAINERS and _nested_symbolic(a)):
                return symbolic_op(fn, op_name, args, kwargs)
        if kwargs:
            for a in kwargs.values():
                cls = a.__class__
                if cls is KerasTensor or (cls in _CONTAINERS and _nested_symbolic(a)):
                    return symbolic_op(fn, op_name, args, kwargs)
        return fn(*args, **kwargs)
    wrapper._kerasish_symbolic = True
    return wrapper


_CONTAINERS = (list, tuple, dict)


def _nested_symbolic(value):
    return any(isinstance(leaf, KerasTensor) for leaf in tree.flatten(value))


def symbolic_op(fn, op_name, args, kwargs):
    """Records `fn(*args, **kwargs)` on KerasTensors as an op node; returns its outputs."""
    fn = getattr(fn, "__wrapped__", fn)
    names = [k for k, v in kwargs.items() if any(isinstance(t, KerasTensor) for t in tree.flatten(v))]
    fixed = {k: v for k, v in kwargs.items() if k not in names}
    op = SymbolicOp.for_op(op_name, fn)(fn, fixed, tensor_kwarg_names=names)
    return op(*args, *[kwargs[k] for k in names])


def install_symbolic_dispatch(module):
    """Makes every public tensor function of `module` (e.g. `kerasish.ops`) accept
    KerasTensors as `symbolic_dispatch` describes; idempotent."""
    for name in dir(module):
        fn = getattr(module, name)
        if name.startswith("_") or name in _NOT_SYMBOLIC or not inspect.isfunction(fn) \
                or getattr(fn, "_kerasish_symbolic", False):
            continue
        setattr(module, name, symbolic_dispatch(fn, name))


def install_operators():
    """KerasTensor arithmetic (x + 1, 1 - x, x[:, 0], ...) records the op Keras records."""
    def binary(fn, op_name):
        return lambda self, other: symbolic_op(fn, op_name, (self, other), {})

    def rbinary(fn, op_name):
        return lambda self, other: symbolic_op(fn, op_name, (other, self), {})

    pairs = {"add": (ops.add, "Add"), "sub": (ops.subtract, "Subtract"),
             "mul": (ops.multiply, "Multiply"), "truediv": (ops.true_divide, "TrueDivide"),
             "pow": (ops.power, "Power"), "matmul": (ops.matmul, "Matmul"),
             "floordiv": (ops.floor_divide, "FloorDivide"), "mod": (ops.mod, "Mod")}
    for name, (fn, op_name) in pairs.items():
        setattr(KerasTensor, f"__{name}__", binary(fn, op_name))
        setattr(KerasTensor, f"__r{name}__", rbinary(fn, op_name))
    comparisons = {"lt": (ops.less, "Less"), "le": (ops.less_equal, "LessEqual"),
                   "gt": (ops.greater, "Greater"), "ge": (ops.greater_equal, "GreaterEqual")}
    for name, (fn, op_name) in comparisons.items():
        setattr(KerasTensor, f"__{name}__", binary(fn, op_name))
    KerasTensor.__neg__ = lambda self: symbolic_op(ops.negative, "Negative", (self,), {})
    KerasTensor.__abs__ = lambda self: symbolic_op(ops.absolute, "Absolute", (self,), {})
    KerasTensor.__getitem__ = lambda self, key: symbolic_op(
        lambda a: a[key], "GetItem", (self,), {})
