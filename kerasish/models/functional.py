"""Functional: a model defined by a graph of layer calls on KerasTensors."""
import warnings

from kerasish.layers import symbolic
from kerasish.backend.config import is_float
from kerasish.layers.core.input_layer import InputLayer
from kerasish.layers.core.lambda_layer import SymbolicOp
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.models.model import Model
from kerasish.ops import core, manipulation
from kerasish.saving import functional_config
from kerasish.utils import naming, tree


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

    _saves_layers_as_list = True   # the `.keras` format stores its layers as a "layers" list

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(name=name or _functional_name(type(self)), trainable=trainable, **kwargs)
        for what, struct in (("inputs", inputs), ("outputs", outputs)):
            for t in tree.flatten(struct):
                if not isinstance(t, KerasTensor):
                    raise ValueError(
                        f"All `{what}` values must be KerasTensors. Received: {what}={struct} "
                        f"including invalid value {t} of type {type(t)}"
                    )
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self._inputs = tree.flatten(inputs)
        self._outputs = tree.flatten(outputs)
        _check_outputs_connected(self._inputs, self._outputs, outputs)
        self._nodes, self._functional_layers, self._nodes_by_depth = _map_graph(
            self._inputs, self._outputs)
        _check_unique_names(self._functional_layers)
        self.built = True

    @property
    def layers(self):
        """The layers of the graph, InputLayers included; ops on KerasTensors
        (`x + 1`, `ops.sum(x)`) are not layers, as in Keras."""
        return [l for l in self._functional_layers if not getattr(l, "_is_operation", False)]

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Model.layers` attribute is reserved and should not be used. "
                             "Please use another name.")

    @property
    def inputs(self):
        return list(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def input(self):
        """The `inputs` given to the constructor (same structure), as in Keras."""
        return self._inputs_struct

    @property
    def output(self):
        """The `outputs` given to the constructor (same structure), as in Keras."""
        return self._outputs_struct

    @property
    def input_shape(self):
        shapes = [t.shape for t in self._inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [t.shape for t in self._outputs]
        return shapes[0] if len(shapes) == 1 else shapes

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
        if isinstance(inputs, dict):
            flat = self._inputs_from_dict(inputs)
            if isinstance(self._inputs_struct, dict) and set(inputs) != set(self._inputs_struct):
                self._inputs_struct_mismatch(inputs, raise_error=False)
        else:
            if isinstance(self._inputs_struct, dict):
                # As Keras: positional inputs fill a dict model in sorted-key order, so
                # they are refused when that order is not the order the dict was given in.
                keys = list(self._inputs_struct)
                self._inputs_struct_mismatch(inputs, raise_error=keys != sorted(keys))
            flat = tree.flatten(inputs)
        if len(flat) != len(self._inputs):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self._inputs)} input(s), but it received '
                f"{len(flat)} input tensors."
            )
        return [_adapt(x, kt) for x, kt in zip(flat, self._inputs)]

    def _inputs_struct_mismatch(self, inputs, raise_error):
        """Keras's warning (or error) for inputs whose structure is not the model's."""
        expected = tree.map_structure(lambda t: t.name, self._inputs_struct)
        received = tree.map_structure(
            lambda x: "None" if x is None else f"Tensor(shape={tuple(getattr(x, 'shape', ()))})",
            inputs)
        message = ("The structure of `inputs` doesn't match the expected structure.\n"
                   f"Expected: {expected}\nReceived: inputs={received}")
        if raise_error:
            raise ValueError(message)
        warnings.warn(message, stacklevel=4)

    def _inputs_from_dict(self, inputs):
        """Dict inputs looked up by Input name (as Keras); unknown keys never fill a slot."""
        names = self.input_names
        if isinstance(self._inputs_struct, dict) and not all(n in inputs for n in names) \
                and all(k in inputs for k in self._inputs_struct):
            return tree.flatten({k: inputs[k] for k in self._inputs_struct})
        for name in names:
            if name not in inputs:
                raise ValueError(
                    f'Missing data for input "{name}". You passed a data dictionary with keys '
                    f"{list(inputs.keys())}. Expected the following keys: {names}")
        return [inputs[n] for n in names]

    def compute_output_spec(self, *args, **kwargs):
        return symbolic.output_spec(self, args, kwargs)

    def get_config(self):
        return functional_config.get_functional_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config, custom_objects = _with_op_classes(config, custom_objects)
        return functional_config.functional_from_config(cls, config, custom_objects)


def _with_op_classes(config, custom_objects):
    """Resolves the ops of a functional config (`{"module": "keras.src.ops.numpy",
    "class_name": "NotEqual", ...}`, as Keras writes a mask or `x + 1`) to
    kerasish op nodes, without confusing them with layers of the same class name
    (the `Add` op vs the `Add` layer)."""
    entries, objects = [], dict(custom_objects or {})
    for entry in config.get("layers", []):
        module = entry.get("module") or ""
        if module.startswith("keras.src.ops") and entry.get("class_name"):
            key = f"kerasish_op>{entry['class_name']}"
            objects[key] = SymbolicOp.for_op(entry["class_name"])
            entry = {**entry, "registered_name": key}
        entries.append(entry)
    if len(objects) == len(custom_objects or {}):
        return config, custom_objects
    return {**config, "layers": entries}, objects


def _adapt(x, kt):
    """Casts to the Input's dtype and fixes a missing/extra trailing unit axis."""
    if x is None:
        return x
    x = core.convert_to_tensor(x)
    if x.dtype != kt.dtype and (not is_float(x._value.dtype) or not kt.dtype.startswith("float")):
        x = core.cast(x, kt.dtype)
    if x.ndim == len(kt.shape) - 1 and kt.shape[-1] == 1:
        x = manipulation.expand_dims(x, -1)
    elif x.ndim == len(kt.shape) + 1 and x.shape[-1] == 1:
        x = manipulation.squeeze(x, -1)
    return x


def _functional_name(cls):
    """"functional", "functional_1", ... (or the subclass's own snake-case name)."""
    return naming.auto_name(cls.__name__)


def _map_graph(inputs, outputs):
    """Orders the graph's nodes and layers as Keras does (by depth, then DFS order).

    Returns:
        (nodes to execute, in order; layers incl. InputLayers, in Keras's order;
        {depth: nodes at that depth}, input nodes included, as Keras's
        `_nodes_by_depth`).
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
    nodes_by_depth = {}
    for node in ordered:
        nodes_by_depth.setdefault(depth_of_node[id(node)], []).append(node)
    return nodes, [layer for _, layer in layers], nodes_by_depth


def _check_unique_names(layers):
    """Keras's error for two layers (or ops) with one name in one functional model."""
    names = [layer.name for layer in layers]
    for name in names:
        if names.count(name) != 1:
            raise ValueError(f'The name "{name}" is used {names.count(name)} times in the '
                             "model. All operation names should be unique.")


def _is_input_passthrough(node, input_ids):
    return all(id(t) in input_ids for t in node.output_tensors)


def _paths(struct, prefix=()):
    """The flatten-order paths of a nested structure's leaves ("", "0", "a.1", ...)."""
    if isinstance(struct, dict):
        return [p for k in sorted(struct) for p in _paths(struct[k], prefix + (k,))]
    if isinstance(struct, (list, tuple)):
        return [p for i, v in enumerate(struct) for p in _paths(v, prefix + (i,))]
    return [".".join(str(p) for p in prefix)]


def _check_outputs_connected(inputs, outputs, outputs_struct):
    """Keras's error for an output that cannot be computed from `inputs`."""
    input_ids = {id(t) for t in inputs}
    for path, tensor in zip(_paths(outputs_struct), outputs):
        stack, seen = [tensor], set()
        while stack:
            t = stack.pop()
            if id(t) in input_ids or id(t) in seen or t._keras_history is None:
                continue
            seen.add(id(t))
            layer, node_index, _ = t._keras_history
            node = layer._inbound_nodes[node_index]
            if node.is_input:
                raise ValueError(f"Output with path `{path}` is not connected to `inputs`")
            stack.extend(node.input_tensors)


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
