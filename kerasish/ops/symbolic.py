"""How `keras.ops` functions handle KerasTensors (the functional API's symbolic path).

Every public op function is declared with `@keras_op`. Called on real
tensors it runs unchanged (one class check per argument). Called with a
KerasTensor anywhere in its arguments:

- at the top level (building a functional model), it records one graph
  node named after Keras's operation class (`ops.sum` -> `Sum`,
  `ops.not_equal` -> `NotEqual`) and returns its KerasTensor outputs, as
  Keras's `Operation.symbolic_call` does;
- inside a trace (`kerasish.autodiff.keras_tensor.tracing`, used to find
  output specs), it runs its own body on the KerasTensors: each `Op` it
  applies answers with `compute_output_spec`, so the result carries the
  shape rules of the ops, with unknown sizes kept None.

The graph node is a `SymbolicOp` layer (`kerasish.layers`, a higher floor),
found by name in the registry when the first such call happens, as
cross-floor references are in this house (docs/design.md).
"""
import functools

from kerasish.autodiff.keras_tensor import (KerasTensor, NoShapeRule, in_trace, is_symbolic,
                                            tracing)
from kerasish.utils.registry import REGISTRY

_CONTAINERS = (list, tuple, dict)

# Keras's operation class names that are not the CamelCase of the function name.
_CLASS_NAMES = {"getitem": "GetItem"}


def op_class_name(function_name):
    """Keras's operation class for an op function: "not_equal" -> "NotEqual"."""
    if function_name in _CLASS_NAMES:
        return _CLASS_NAMES[function_name]
    return "".join(part[:1].upper() + part[1:] for part in function_name.split("_"))


_nested_symbolic = is_symbolic  # for a list/tuple/dict: a KerasTensor at any depth


def keras_op(fn=None, *, name=None):
    """Declares a public op function: KerasTensor arguments take the symbolic path.

    Args:
        fn: the op function (written for real tensors; its body must also
            run on KerasTensors, which it does when every `Op` it applies
            has a shape rule).
        name: the function's public name, when `fn.__name__` differs.

    Returns:
        the function, dispatching as the module docstring describes.

    Example:
        >>> @keras_op
        ... def double(x):
        ...     return ops.multiply(x, 2)
        >>> double(keras.Input((3,))).shape
        (None, 3)
    """
    if fn is None:
        return functools.partial(keras_op, name=name)
    op_name = op_class_name(name or fn.__name__)

    @functools.wraps(fn)
    def op(*args, **kwargs):
        for a in args:  # the fast path: one class check per argument
            cls = a.__class__
            if cls is KerasTensor or (cls in _CONTAINERS and _nested_symbolic(a)):
                return symbolic_call(fn, op_name, args, kwargs)
        if kwargs:
            for a in kwargs.values():
                cls = a.__class__
                if cls is KerasTensor or (cls in _CONTAINERS and _nested_symbolic(a)):
                    return symbolic_call(fn, op_name, args, kwargs)
        return fn(*args, **kwargs)
    op._kerasish_op_name = op_name
    return op


def symbolic_call(fn, op_name, args, kwargs):
    """`fn(*args, **kwargs)` with KerasTensors among the arguments.

    Inside a trace it runs `fn` itself (its Ops answer with shape rules);
    at the top level it records a graph node `op_name` and returns its
    outputs.
    """
    fn = getattr(fn, "__wrapped__", fn)
    if in_trace():
        return traced(fn, args, kwargs)
    graph_op = REGISTRY.lookup_public("layers.graph", "SymbolicOp")
    if graph_op is None:  # no functional API loaded: infer the outputs only
        with tracing():
            return traced(fn, args, kwargs)
    names = [k for k, v in kwargs.items() if is_symbolic(v)]
    fixed = {k: v for k, v in kwargs.items() if k not in names}
    node_op = graph_op.for_op(op_name, fn)(fn, fixed, tensor_kwarg_names=names)
    return node_op(*args, *[kwargs[k] for k in names])


def traced(fn, args, kwargs):
    """`fn` run on KerasTensors inside a trace.

    An op function whose body has no shape rule yet (it reads array values,
    or applies an Op without `compute_output_spec`) is evaluated instead by
    `evaluate_spec` (defined in `kerasish.ops.core`): see `EVALUATED`.
    """
    try:
        return fn(*args, **kwargs)
    except (NoShapeRule, AttributeError, TypeError):
        if _fallback[0] is None:
            raise
        EVALUATED.add(getattr(fn, "__name__", repr(fn)))
        return _fallback[0](fn, args, kwargs)


# The op functions that were evaluated on zeros instead of traced (by name); the
# tests hold it empty for the ops they cover.
EVALUATED = set()
_fallback = [None]


def set_fallback(evaluate):
    """Installs `evaluate(fn, args, kwargs)`, the spec of an op without shape rules."""
    _fallback[0] = evaluate
