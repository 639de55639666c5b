"""Symbolic tensors and graph nodes for the functional API.

`keras.Input(shape=(784,))` returns a KerasTensor: a shape (with None for
unknown sizes) and a dtype, no data. Calling a layer on KerasTensors
records a `Node` and returns new KerasTensors, so a functional `Model`
can later replay the graph on real data.
"""
from kerasish.backend import config
from kerasish.utils import tree


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
        from kerasish.utils import naming
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

    def _op(self, fn, *args, op_name="SymbolicOp", **kwargs):
        from kerasish.layers import symbolic
        return symbolic.symbolic_op(fn, op_name, (self,) + args, kwargs)


def _install_operators():
    """KerasTensor arithmetic (x + 1, 1 - x, x[:, 0], ...) records the op Keras records."""
    from kerasish import ops
    from kerasish.layers import symbolic

    def binary(fn, op_name):
        return lambda self, other: symbolic.symbolic_op(fn, op_name, (self, other), {})

    def rbinary(fn, op_name):
        return lambda self, other: symbolic.symbolic_op(fn, op_name, (other, self), {})

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
    KerasTensor.__neg__ = lambda self: symbolic.symbolic_op(ops.negative, "Negative", (self,), {})
    KerasTensor.__abs__ = lambda self: symbolic.symbolic_op(ops.absolute, "Absolute", (self,), {})
    KerasTensor.__getitem__ = lambda self, key: symbolic.symbolic_op(
        lambda a: a[key], "GetItem", (self,), {})


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
