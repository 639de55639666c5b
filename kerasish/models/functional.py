"""Functional: a model defined by a graph of layer calls on KerasTensors."""
import warnings

from kerasish.layers import call_utils, symbolic
from kerasish.layers.core.input_layer import InputLayer
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.keras_tensor import KerasTensor, Node
from kerasish.layers.layer import Layer
from kerasish.models.model import Model
from kerasish.ops import core, manipulation
from kerasish.ops.function import (Function,
                                    check_outputs_connected as _check_outputs_connected,
                                    check_unique_names as _check_unique_names,
                                    map_graph as _map_graph, paths as _paths, run_nodes)
from kerasish.saving import functional_config
from kerasish.utils import naming, tree


class Functional(Model, Function):
    """A model built as `keras.Model(inputs, outputs)` from a layer graph.

    As in Keras it is a `keras.Function` too (the same graph, with weights
    and the Layer API; `Layer`'s methods come first in the lookup order).

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
    # Keras counts a functional model's own (input) node first when a config's
    # input_layers/output_layers name one of its calls: the first call is node 1.
    _config_node_offset = 1
    # As Keras's Functional: its `__call__` converts no inputs, so the mask it fills
    # in is recorded in the call's node (layers.symbolic.records_filled_arguments).
    _convert_input_args = False

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(name=name or _functional_name(type(self)), trainable=trainable, **kwargs)
        self.__dict__.pop("_manual_input_spec", None)  # Layer's `input_spec = None` sets none
        for what, struct in (("inputs", inputs), ("outputs", outputs)):
            for t in tree.flatten(struct):
                if not isinstance(t, KerasTensor):
                    raise ValueError(
                        f"All `{what}` values must be KerasTensors. Received: {what}={struct} "
                        f"including invalid value {t} of type {type(t)}"
                    )
        for what in ("inputs", "outputs"):   # Keras's Function checks, in its words
            if not tree.flatten(inputs if what == "inputs" else outputs):
                raise ValueError(f"`{what}` argument cannot be empty. Received:\n"
                                 f"inputs={inputs}\noutputs={outputs}")
        _warn_dict_keys_not_names(inputs)
        if not all(_is_input_tensor(t) for t in tree.flatten(inputs)):
            inputs, outputs = _clone_graph_nodes(inputs, outputs)
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self._inputs = tree.flatten(inputs)
        self._outputs = tree.flatten(outputs)
        _check_outputs_connected(self._inputs, self._outputs, outputs)
        self._nodes, self._operations, self._nodes_by_depth = _map_graph(
            self._inputs, self._outputs)
        _check_unique_names(self._operations)
        self.built = True
        self._path = self.name   # built when made: Keras gives it its name as path

    def add_loss(self, loss):
        """Not supported on a functional model, as in Keras 3.

        Keras 3 raises a bare `NotImplementedError` here (symbolic losses are
        a TODO there); accepting the loss would silently drop it. Add losses
        from inside a layer's `call()` instead.

        Args:
            loss: ignored.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError

    @property
    def layers(self):
        """The layers of the graph, InputLayers included; ops on KerasTensors
        (`x + 1`, `ops.sum(x)`) are not layers, as in Keras."""
        return [l for l in self._operations if not getattr(l, "_is_operation", False)]

    @property
    def operations(self):
        """The layers and ops of the graph (`x + 1`, `ops.sum(x)`), by depth as Keras."""
        return list(self._operations)

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
    def input_spec(self):
        """One InputSpec per input (shape without the batch size, a trailing unit axis
        may be missing or extra, named after its InputLayer or dict key), as Keras;
        None for inputs nested in a dict. Setting it replaces the checks."""
        if "_manual_input_spec" in self.__dict__:
            return self.__dict__["_manual_input_spec"]
        struct = self._inputs_struct
        if isinstance(struct, dict):
            if not all(isinstance(t, KerasTensor) for t in struct.values()):
                return None  # deeply nested dict: not checked (as Keras)
            return [_input_spec_of(struct[k], name=k) for k in sorted(struct)]
        return [_input_spec_of(t) for t in self._inputs]

    @input_spec.setter
    def input_spec(self, value):
        self.__dict__["_manual_input_spec"] = value

    @property
    def _input_names(self):
        # private: Keras 3's Functional has no public `input_names` (Keras 2 had)
        return [t._keras_history[0].name for t in self._inputs]

    @property
    def output_names(self):
        return [t._keras_history[0].name for t in self._outputs]

    def call(self, inputs, training=None, mask=None, **kwargs):
        # (`**kwargs` as Keras's signature, which its call-error message lists)
        values = self._standardize_inputs(inputs)
        tensor_map = {id(kt): v for kt, v in zip(self._inputs, values)}

        def call_node(node, args, kwargs):
            if training is not None and isinstance(node.layer, Layer):
                # As Keras: a model called in a set mode (fit: True, predict and
                # evaluate: False) passes it to every layer, overriding the
                # `training=` recorded in its graph.
                kwargs["training"] = training
            return node.layer(*args, **kwargs)

        run_nodes(self._nodes, tensor_map, call_node)
        return tree.pack_sequence_as(self._outputs_struct,
                                     [tensor_map[id(t)] for t in self._outputs])

    def _standardize_inputs(self, inputs):
        """Flattens user inputs in `self._inputs` order, matching dtypes and ranks."""
        call_utils.name_step_inputs(inputs)
        flat = self._flatten_inputs(inputs, warn=True)
        if len(flat) != len(self._inputs):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self._inputs)} input(s), but it received '
                f"{len(flat)} input tensors."
            )
        return [self._adapt(x, i) for i, x in enumerate(flat)]

    def _flatten_inputs(self, inputs, warn):
        """The inputs as a flat list in `self._inputs` order (dicts looked up by name).

        As Keras: inputs whose structure is not the model's get a warning (an
        error when positional inputs would fill a dict model out of its order);
        a dict given to a list model is first reordered by Input name.
        """
        struct = self._inputs_struct
        if isinstance(inputs, dict):
            flat = self._inputs_from_dict(inputs)
            received = inputs if isinstance(struct, dict) else flat
        else:
            flat = tree.flatten(inputs)
            single = isinstance(struct, list) and len(struct) == 1 and not tree.is_nested(inputs)
            received = [inputs] if single else inputs
        if warn and _structure(received) != _structure(struct):
            keys = list(struct) if isinstance(struct, dict) else None
            self._inputs_struct_mismatch(
                received, raise_error=keys is not None and not isinstance(inputs, dict)
                and keys != sorted(keys))
        return flat

    def _adapt(self, x, index):
        """Input `index` as Keras feeds it: cast to the Input's dtype, a missing or
        extra trailing unit axis fixed; None only for an optional Input."""
        kt = self._inputs[index]
        if x is None:
            layer = kt._keras_history[0]
            if isinstance(layer, InputLayer) and not layer.optional:
                raise ValueError(f"The input '{kt.name}' is not optional, but None was passed. "
                                 "Please provide a valid tensor.")
            return x
        given, x = x, core.convert_to_tensor(x)
        if x.dtype != kt.dtype and not (kt.dtype == "string" and x.dtype == "object"):
            # (an object array of str/bytes, e.g. a text dataset's batch, is text as is)
            x = core.cast(x, kt.dtype)
        if x.ndim == len(kt.shape):
            return x
        if x.ndim == len(kt.shape) - 1 and kt.shape[-1] == 1:
            return manipulation.expand_dims(x, -1)
        if x.ndim == len(kt.shape) + 1 and x.shape[-1] == 1:
            return manipulation.squeeze(x, -1)
        path = _paths(self._inputs_struct)[index]
        raise ValueError(
            f"Invalid input shape for input {call_utils.describe_input(given, x)} with name "
            f"'{kt.name}' and path '{path}'. Expected shape {kt.shape}, but input has "
            f"incompatible shape {call_utils.traced_shape(x.shape)}")

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
        """Dict inputs looked up by the model's dict keys, else by Input name (as Keras);
        unknown keys never fill a slot."""
        struct = self._inputs_struct
        if isinstance(struct, dict):
            keys = sorted(struct)
            for key in keys:
                if key not in inputs:
                    raise ValueError(
                        f'Missing data for input "{key}". You passed a data dictionary with '
                        f"keys {list(inputs.keys())}. Expected the following keys: {keys}")
            return tree.flatten({k: inputs[k] for k in struct})
        names = self._input_names
        for name in names:
            if name not in inputs:
                raise ValueError(
                    f'Missing data for input "{name}". You passed a data dictionary with keys '
                    f"{list(inputs.keys())}. Expected the following keys: {names}")
        return [inputs[n] for n in names]

    def compute_output_spec(self, *args, **kwargs):
        inputs = args[0] if args else kwargs.get("inputs")
        flat = self._flatten_inputs(inputs, warn=False)
        if len(flat) == len(self._inputs) and all(
                isinstance(x, KerasTensor) and tuple(x.shape) == tuple(ref.shape)
                for x, ref in zip(flat, self._inputs)):
            # The graph's own input shapes: its output specs (as Keras's shortcut).
            return tree.map_structure(lambda t: KerasTensor(t.shape, t.dtype),
                                      self._outputs_struct)
        if len(flat) == len(self._inputs) and args:
            args = (tree.pack_sequence_as(self._inputs_struct, flat),) + tuple(args[1:])
        return symbolic.output_spec(self, args, kwargs)

    def get_build_config(self):
        """Keras 3.15.1's value for a functional model (built from its graph)."""
        return {"input_shape": None}

    def get_config(self):
        return functional_config.get_functional_config(self)

    # no `from_config` of its own, as Keras: `Model.from_config` revives a functional
    # config as a graph, and gives any other config (a subclass's own `get_config`)
    # to the constructor


def _structure(value):
    """A nested structure's shape, leaves blanked (lists and tuples alike, as Keras
    compares them)."""
    if isinstance(value, dict):
        return {k: _structure(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_structure(v) for v in value]
    return None


def _input_spec_of(tensor, name=None):
    layer = tensor._keras_history[0]
    return InputSpec(shape=(None,) + tuple(tensor.shape[1:]) if tensor.shape else (),
                     allow_last_axis_squeeze=True, name=name or layer.name,
                     optional=bool(getattr(layer, "optional", False)))


def _is_input_tensor(tensor):
    """A tensor made by an InputLayer (`keras.Input`), not by a layer call."""
    layer, node_index, _ = tensor._keras_history
    return layer._inbound_nodes[node_index].is_input


def _warn_dict_keys_not_names(inputs):
    if not isinstance(inputs, dict):
        return
    for key, value in inputs.items():
        if isinstance(value, KerasTensor) and key != value.name:
            warnings.warn(
                "When providing `inputs` as a dict, all keys in the dict must match the names "
                f"of the corresponding tensors. Received key '{key}' mapping to value {value} "
                f"which has name '{value.name}'. Change the tensor name to '{key}' (via "
                f"`Input(..., name='{key}')`)", stacklevel=4)


def _clone_graph_nodes(inputs, outputs):
    """A model cut out of a graph (Keras's `clone_graph_nodes`): each intermediate
    tensor given as an input gets a new Input of its shape, and the layer calls
    between the inputs and `outputs` are recorded again (same layers, new nodes),
    so the new graph starts at Inputs and the original graph is unchanged."""
    clones = {}
    for t in tree.flatten(inputs):
        if id(t) not in clones:
            clones[id(t)] = t if _is_input_tensor(t) else InputLayer(
                batch_shape=t.shape, dtype=t.dtype, name=f"{t.name}CLONE").output

    def clone(x):
        if not isinstance(x, KerasTensor) or _is_input_tensor(x):
            return clones.get(id(x), x)
        if id(x) not in clones:
            clones[id(x)] = KerasTensor(x.shape, x.dtype, sparse=x.sparse, name=x.name)
        return clones[id(x)]

    for node in _nodes_between(inputs, outputs):
        Node(node.layer, tree.map_structure(clone, list(node.call_args)),
             {k: tree.map_structure(clone, v) for k, v in node.call_kwargs.items()},
             tree.map_structure(clone, node.outputs))
    return tree.map_structure(clone, inputs), tree.map_structure(clone, outputs)


def _nodes_between(inputs, outputs):
    """The nodes that compute `outputs` from `inputs`, parents first."""
    stop = {id(t) for t in tree.flatten(inputs)}
    ordered, seen = [], set()

    def visit(tensor):
        if id(tensor) in stop:
            return
        layer, node_index, _ = tensor._keras_history
        node = layer._inbound_nodes[node_index]
        if id(node) in seen:
            return
        seen.add(id(node))
        for t in node.input_tensors:
            visit(t)
        ordered.append(node)

    for t in tree.flatten(outputs):
        visit(t)
    return [n for n in ordered if not n.is_input]


def _functional_name(cls):
    """"functional", "functional_1", ... (or the subclass's own snake-case name)."""
    return naming.auto_name(cls.__name__)


__all__ = ["Functional", "InputLayer"]
