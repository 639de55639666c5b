"""KerasTensor: a symbolic tensor (shape and dtype, no data), and symbolic tracing.

`keras.Input(shape=(784,))` returns a KerasTensor. Every `keras.ops`
function accepts KerasTensors: an `Op` called on them returns KerasTensors
described by its `compute_output_spec` (see `kerasish.autodiff.op`), without
computing anything. At the top level (outside a trace) an op function called
on KerasTensors also records a graph node, so a functional `Model` can
replay it later (`kerasish.ops.symbolic`); inside a trace (`tracing()`, used
to find a layer's output spec by running its `call` on KerasTensors) no node
is recorded.

This module sits on the autodiff floor, below the ops, so that `Op` and the
op functions can recognise KerasTensors; graph nodes (`Node`) live with the
layers.
"""
import threading

from kerasish.backend import config
from kerasish.backend.symbolic_scope import SymbolicScope
from kerasish.utils import naming


class KerasTensor:
    """A symbolic placeholder: shape, dtype and the node that produced it.

    Args:
        shape: tuple with ints or None (unknown size).
        dtype: dtype name.
        sparse, ragged: accepted as in Keras (kerasish has neither kind).
        name: optional name.

    Example:
        >>> x = keras.Input(shape=(3,))
        >>> x.shape
        (None, 3)
    """

    def __init__(self, shape, dtype=None, sparse=False, ragged=False, name=None):
        if shape is None or not hasattr(shape, "__iter__"):
            raise ValueError(f"Cannot convert '{shape}' to a shape (KerasTensor needs a tuple "
                             "of ints or None).")
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = config.standardize_dtype(dtype)
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        if name is None:  # "keras_tensor", "keras_tensor_1", ...; a trace's own take no number
            name = "traced_keras_tensor" if in_trace() else naming.auto_name("KerasTensor")
        self.name = name
        self._keras_history = None  # (layer, node_index, tensor_index)
        self._keras_mask = None  # a bool KerasTensor when the layer producing it masks

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return (f"<KerasTensor shape={self.shape}, dtype={self.dtype}, "
                f"sparse={self.sparse}, ragged={self.ragged}, name={self.name}>")

    def __array__(self, *args, **kwargs):
        raise ValueError(
            "A KerasTensor is symbolic: it is a placeholder for a tensor in a functional "
            "model and has no value. Call the model on data to get values."
        )

    def __len__(self):
        raise TypeError("KerasTensor has no len(); use .shape.")

    def __iter__(self):
        raise NotImplementedError("Iterating over a symbolic KerasTensor is not supported.")

    def __bool__(self):
        raise TypeError(
            "A symbolic KerasTensor cannot be used as a Python bool (it has no value); "
            "use keras.ops.cond / ops.where for data-dependent choices.")


class NoShapeRule(TypeError):
    """An op met KerasTensors but has no shape rule for them (see `kerasish.ops.symbolic`)."""


def is_symbolic(value):
    """True if `value` is a KerasTensor or a list/tuple/dict holding one (at any depth)."""
    cls = value.__class__
    if cls is KerasTensor:
        return True
    if cls in _CONTAINERS:
        for leaf in (value.values() if cls is dict else value):
            if is_symbolic(leaf):
                return True
    return False


_CONTAINERS = (list, tuple, dict)


def any_symbolic(*args, **kwargs):
    """True if any leaf of the arguments is a KerasTensor."""
    for x in args:
        if is_symbolic(x):
            return True
    for x in kwargs.values():
        if is_symbolic(x):
            return True
    return False


_state = threading.local()


def in_trace():
    """True while a symbolic trace runs (ops on KerasTensors record no graph nodes)."""
    return getattr(_state, "depth", 0) > 0


class tracing:  # noqa: N801 - used as `with tracing():`
    """Context in which ops and layers called on KerasTensors only infer output specs.

    Used to find a layer's output spec by running its `call` on KerasTensors
    (as Keras's `compute_output_spec` does): the ops inside return KerasTensors
    from their shape rules and no graph node is recorded. It is a
    `SymbolicScope` too, as Keras's `compute_output_spec` is.
    """

    def __enter__(self):
        _state.depth = getattr(_state, "depth", 0) + 1
        self._symbolic = SymbolicScope().__enter__()
        return self

    def __exit__(self, *exc):
        self._symbolic.__exit__(*exc)
        _state.depth -= 1
        return False


class not_tracing:  # noqa: N801 - used as `with not_tracing():`
    """Suspends a running trace: layers called on KerasTensors record graph nodes again.

    For graphs built while a trace runs (a Sequential built lazily inside a
    traced layer's `call` makes its inner Functional from real nodes).
    """

    def __enter__(self):
        self._depth = getattr(_state, "depth", 0)
        _state.depth = 0
        return self

    def __exit__(self, *exc):
        _state.depth = self._depth
        return False
