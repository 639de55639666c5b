"""Functional: a model defined by a graph of layer calls on KerasTensors."""
from kerasish.layers.core.input_layer import InputLayer
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.models.model import Model
from kerasish.ops import core
from kerasish.utils import tree


class Functional(Model):
    """A model built as `keras.Model(inputs, outputs)` from a layer graph.

    Inputs and outputs may be single KerasTensors, lists or dicts. Layers
    may be shared (called several times); models nest as layers.

    Args:
        inputs: the `keras.Input` tensors.
        outputs: KerasTensors computed from them.
        name: model name ("functional" by default).

    Example:
        >>> a = keras.Input((16,)); b = keras.Input((8,))
        >>> x = keras.layers.Concatenate()([keras.layers.Dense(4)(a), b])
        >>> model = keras.Model([a, b], keras.layers.Dense(1)(x))
    """

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(name=name or _functional_name(), trainable=trainable, **kwargs)
        for t in tree.flatten([inputs, outputs]):
            if not isinstance(t, KerasTensor):
                raise ValueError(
                    "All `inputs` and `outputs` values must be KerasTensors (from keras.Input "
                    f"or layer calls). Received: {t!r}"
                )
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self._inputs = tree.flatten(inputs)
        self._outputs = tree.flatten(outputs)
        self._nodes, self._functional_layers = _map_graph(self._inputs, self._outputs)
        self.built = True

    @property
    def layers(self):
        return list(self._functional_layers)

    @property
    def inputs(self):
        return list(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def input_names(self):
        return [t._keras_history[0].name for t in self._inputs]

    @property
    def output_names(self):
        return [t._keras_history[0].name for t in self._outputs]

    def call(self, inputs, training=None, mask=None):
        values = self._standardize_inputs(inputs)
        tensor_map = {id(kt): v for kt, v in zip(self._inputs, values)}

        def lookup(x):
            return tensor_map[id(x)] if isinstance(x, KerasTensor) else x

        for node in self._nodes:
            args = tree.map_structure(lookup, list(node.call_args))
            kwargs = {k: tree.map_structure(lookup, v) for k, v in node.call_kwargs.items()}
            outputs = node.layer(*args, **kwargs)
            for kt, value in zip(node.output_tensors, tree.flatten(outputs)):
                tensor_map[id(kt)] = value
        return tree.pack_sequence_as(self._outputs_struct,
                                     [tensor_map[id(t)] for t in self._outputs])

    def _standardize_inputs(self, inputs):
        """Flattens user inputs in `self._inputs` order, matching dtypes and ranks."""
        if isinstance(inputs, dict) and not isinstance(self._inputs_struct, dict):
            names = self.input_names
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"Model '{self.name}': missing inputs {missing}; got keys {sorted(inputs)}.")
            flat = [inputs[n] for n in names]
        else:
            flat = tree.flatten(inputs)
        if len(flat) != len(self._inputs):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self._inputs)} input(s), but it received '
                f"{len(flat)} input tensors."
            )
        return [_adapt(x, kt) for x, kt in zip(flat, self._inputs)]

    def compute_output_spec(self, *args, **kwargs):
        from kerasish.layers import symbolic
        return symbolic.output_spec(self, args, kwargs)

    def get_config(self):
        from kerasish.saving import functional_config
        return functional_config.get_functional_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from kerasish.saving import functional_config
        return functional_config.functional_from_config(cls, config, custom_objects)


def _adapt(x, kt):
    """Casts to the Input's dtype and fixes a missing/extra trailing unit axis."""
    if x is None:
        return x
    x = core.convert_to_tensor(x)
    if x.dtype != kt.dtype and (x._value.dtype.kind != "f" or not kt.dtype.startswith("float")):
        x = core.cast(x, kt.dtype)
    from kerasish.ops import manipulation
    if x.ndim == len(kt.shape) - 1 and kt.shape[-1] == 1:
        x = manipulation.expand_dims(x, -1)
    elif x.ndim == len(kt.shape) + 1 and x.shape[-1] == 1:
        x = manipulation.squeeze(x, -1)
    return x


def _functional_name():
    from kerasish.utils import naming
    return naming.auto_name("Functional")


def _map_graph(inputs, outputs):
    """Orders the graph's nodes and layers as Keras does (by depth, then DFS order).

    Returns:
        (nodes to execute, in order; layers incl. InputLayers, in Keras's order).
    """
    input_ids = {id(t) for t in inputs}
    finished, in_progress, ordered, layer_index = set(), set(), [], {}

    def visit(tensor):
        layer, node_index, _ = tensor._keras_history
        node = layer._inbound_nodes[node_index]
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError(f"The graph has a cycle through layer '{layer.name}'.")
        layer_index.setdefault(id(layer), (len(layer_index), layer))
        in_progress.add(id(node))
        if not node.is_input and id(tensor) not in input_ids:
            for t in node.input_tensors:
                visit(t)
        finished.add(id(node))
        in_progress.discard(id(node))
        ordered.append(node)

    for t in outputs:
        visit(t)
    depth_of_node, depth_of_layer = {}, {}
    for node in reversed(ordered):
        depth = max(depth_of_node.get(id(node), 0), depth_of_layer.get(id(node.layer), 0))
        depth_of_layer[id(node.layer)] = depth
        depth_of_node[id(node)] = depth
        for parent in node.parent_nodes:
            depth_of_node[id(parent)] = max(depth + 1, depth_of_node.get(id(parent), 0))
    _check_connected(ordered, input_ids)
    nodes = sorted((n for n in ordered if not n.is_input and not _is_input_passthrough(n, input_ids)),
                   key=lambda n: -depth_of_node[id(n)])
    layers = sorted((entry for entry in layer_index.values()),
                    key=lambda e: (-depth_of_layer[id(e[1])], e[0]))
    return nodes, [layer for _, layer in layers]


def _is_input_passthrough(node, input_ids):
    return all(id(t) in input_ids for t in node.output_tensors)


def _check_connected(nodes, input_ids):
    available = set(input_ids)
    for node in nodes:
        if node.is_input:
            if not all(id(t) in input_ids for t in node.output_tensors):
                name = node.layer.name
                raise ValueError(
                    f"Graph disconnected: cannot find parent for the input '{name}'. The model's "
                    "outputs depend on an Input that was not passed in `inputs`."
                )
            continue
        if _is_input_passthrough(node, input_ids):
            continue
        for t in node.input_tensors:
            if id(t) not in available:
                raise ValueError(
                    f"Graph disconnected: layer '{node.layer.name}' needs a tensor that cannot be "
                    "computed from the model's inputs."
                )
        available.update(id(t) for t in node.output_tensors)


__all__ = ["Functional", "InputLayer"]
