"""Symbolic tensors and graph nodes for the functional API.

`keras.Input(shape=(784,))` returns a KerasTensor: a shape (with None for
unknown sizes) and a dtype, no data. Calling a layer on KerasTensors
records a `Node` and returns new KerasTensors, so a functional `Model`
can later replay the graph on real data.
"""
from kerasish.backend import config
from kerasish.utils import naming, tree


class KerasTensor:
    """A symbolic placeholder: shape, dtype and the node that produced it.

    Args:
        shape: tuple with ints or None.
        dtype: dtype name.
        name: optional name.

    Example:
        >>> x = keras.Input(shape=(3,))
        >>> x.shape
        (None, 3)
    """

    def __init__(self, shape, dtype=None, sparse=False, ragged=False, name=None):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = config.standardize_dtype(dtype)
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        self.name = name or naming.auto_name("KerasTensor")  # "keras_tensor", "keras_tensor_1", ...
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


def any_symbolic(*args, **kwargs):
    """True if any leaf of the arguments is a KerasTensor (checked cheaply first)."""
    for x in args + tuple(kwargs.values()) if kwargs else args:
        if isinstance(x, KerasTensor):
            return True
        if isinstance(x, (list, tuple, dict)) and any(
                isinstance(leaf, KerasTensor) for leaf in tree.flatten(x)):
            return True
    return False


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
