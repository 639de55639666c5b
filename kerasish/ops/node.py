"""Graph nodes: one call of an operation (a layer, an op, a `keras.Operation`) on KerasTensors.

Calling an operation on KerasTensors records a `Node` and returns new
KerasTensors whose `_keras_history` points back to it, so a functional
`Model` or a `keras.Function` can later replay the graph on real data.
The node lives on the ops floor so that `keras.Operation` (which `Layer`
subclasses) can record one.
"""
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.utils import tree


class Node:
    """One call of an operation inside a graph.

    Args:
        layer: the operation (layer or `keras.Operation`) called.
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
    def operation(self):
        """The operation called (Keras's name for `layer`)."""
        return self.layer

    @property
    def parent_nodes(self):
        """Nodes that produced this node's inputs (a bare `keras.KerasTensor` has none)."""
        parents = []
        for t in self.input_tensors:
            if t._keras_history is None:
                continue
            layer, node_index, _ = t._keras_history
            node = layer._inbound_nodes[node_index]
            if node not in parents:
                parents.append(node)
        return parents

    @property
    def is_input(self):
        return not self.input_tensors

    def __repr__(self):
        return f"<Node operation={self.layer.name}, id={id(self)}>"
