"""Graph nodes for the functional API.

`keras.Input(shape=(784,))` returns a KerasTensor (defined on the autodiff
floor, `kerasish.autodiff.keras_tensor`, so that ops recognise it). Calling
a layer on KerasTensors records a `Node` and returns new KerasTensors, so a
functional `Model` can later replay the graph on real data.
"""
from kerasish.autodiff.keras_tensor import KerasTensor, any_symbolic, in_trace, tracing  # noqa: F401
from kerasish.utils import tree


class Node:
    """One call of a layer inside a functional graph.

    Args:
        layer: the layer called.
        call_args, call_kwargs: the arguments, KerasTensors left in place.
        outputs: the KerasTensors it produced (nested structure).
    """

    def __init__(self, layer, call_args, call_kwargs, outputs):
        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.input_tensors = [x for x in tree.flatten([call_args, call_kwargs])
                              if isinstance(x, KerasTensor)]
        self.output_tensors = tree.flatten(outputs)
        node_index = len(layer._inbound_nodes)
        layer._inbound_nodes.append(self)
        for i, t in enumerate(self.output_tensors):
            t._keras_history = (layer, node_index, i)

    @property
    def parent_nodes(self):
        """Nodes that produced this node's inputs."""
        parents = []
        for t in self.input_tensors:
            layer, node_index, _ = t._keras_history
            node = layer._inbound_nodes[node_index]
            if node not in parents:
                parents.append(node)
        return parents

    @property
    def is_input(self):
        return not self.input_tensors


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
