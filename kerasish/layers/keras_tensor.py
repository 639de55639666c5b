"""Graph nodes for the functional API.

`keras.Input(shape=(784,))` returns a KerasTensor (defined on the autodiff
floor, `kerasish.autodiff.keras_tensor`, so that ops recognise it). Calling
a layer on KerasTensors records a `Node` (`kerasish.ops.node`) and returns new KerasTensors, so a
functional `Model` can later replay the graph on real data.
"""
from kerasish.autodiff.keras_tensor import (KerasTensor, any_symbolic, in_trace,  # noqa: F401
                                            not_tracing, tracing)
from kerasish.ops.node import Node  # noqa: F401
from kerasish.utils import tree


def is_keras_tensor(x):
    """True if `x` is a symbolic KerasTensor (from `keras.Input` or a layer call on one)."""
    return isinstance(x, KerasTensor)


def get_source_inputs(tensor):
    """The `keras.Input` tensors that `tensor` was computed from (a list).

    Example:
        >>> x = keras.Input((3,)); y = keras.layers.Dense(2)(x)
        >>> keras.utils.get_source_inputs(y) == [x]
        True
    """
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return [tensor]
    layer, node_index, _ = history
    node = layer._inbound_nodes[node_index]
    if node.is_input:
        return [tensor]
    sources = []
    for t in node.input_tensors:
        for source in get_source_inputs(t):
            if all(source is not s for s in sources):
                sources.append(source)
    return sources
