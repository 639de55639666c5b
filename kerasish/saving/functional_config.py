"""Functional model <-> config in Keras 3's format (tf.keras 2's is read too).

Each layer entry carries `name` and `inbound_nodes`: a list of
`{"args": [...], "kwargs": {...}}` where tensors appear as
`{"class_name": "__keras_tensor__", "config": {"shape", "dtype",
"keras_history": [layer_name, node_index, tensor_index]}}`. Node indexes
count only the nodes that belong to this model. tf.keras 2 configs list
each node as `[[layer_name, node_index, tensor_index, kwargs], ...]`;
`functional_from_config` accepts both.
"""
from kerasish.layers import symbolic
from kerasish.layers.call_utils import call_signature
from kerasish.layers.core.lambda_layer import SymbolicOp
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.saving import saving_api, serialization
from kerasish.utils import tree


def _local_node_index(model):
    """Maps (layer id, global node index) to the node's index within this model."""
    index = {}
    model_nodes = {id(n) for n in model._nodes}
    for layer in model._operations:
        local = 0
        for i, node in enumerate(layer._inbound_nodes):
            if id(node) in model_nodes or node.is_input:
                index[(id(layer), i)] = local
                local += 1
    return index


def _history(tensor, local):
    layer, node_index, tensor_index = tensor._keras_history
    return [layer.name, local.get((id(layer), node_index), node_index), tensor_index]


def _encode(value, local):
    if isinstance(value, KerasTensor):
        return {"class_name": "__keras_tensor__",
                "config": {"shape": tuple(value.shape), "dtype": value.dtype,
                           "keras_history": _history(value, local)}}
    if isinstance(value, tuple):
        return tuple(_encode(v, local) for v in value)
    if isinstance(value, list):
        return [_encode(v, local) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v, local) for k, v in value.items()}
    if isinstance(value, slice):  # an index of `x[...]` (GetItem), as Keras serializes it
        return {"class_name": "__slice__", "config": {
            "start": value.start, "stop": value.stop, "step": value.step}}
    if value is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    return value


def get_functional_config(model):
    """Keras 3's config dict of a Functional model."""
    local = _local_node_index(model)
    model_nodes = {id(n) for n in model._nodes}
    layers = []
    for layer in model._operations:
        if getattr(layer, "_saves_layers_as_list", False):
            # a nested model: as Keras's serialize_keras_object (module,
            # build_config and compile_config as in a `.keras` config)
            entry = saving_api.model_config(layer)
            if entry.get("build_config") is None:
                entry.pop("build_config")
        else:
            entry = serialization.serialize_keras_object(layer)
            # Keras's operations (ops on KerasTensors) have no build config
            build = layer.get_build_config() if layer.built and \
                not layer._inbound_nodes[0].is_input and \
                not getattr(layer, "_is_operation", False) else None
            if build is not None:  # Keras's key order: build_config, then name
                entry["build_config"] = _copied(build)
        entry["name"] = layer.name
        entry["inbound_nodes"] = [
            {"args": _encode(tuple(node.call_args), local),
             "kwargs": _encode(_with_mask_kwarg(layer, node), local)}
            for node in layer._inbound_nodes if id(node) in model_nodes]
        layers.append(entry)

    def refs(struct):
        """The `[layer_name, node_index, tensor_index]` of each tensor, in the
        structure's own nesting (dicts, lists, tuples)."""
        if isinstance(struct, KerasTensor):
            name, node_index, tensor_index = _history(struct, local)
            offset = getattr(struct._keras_history[0], "_config_node_offset", 0)
            return [name, node_index + offset, tensor_index]
        if isinstance(struct, dict):
            return {k: refs(v) for k, v in struct.items()}
        return type(struct)(refs(v) for v in struct) if isinstance(struct, tuple) \
            else [refs(v) for v in struct]

    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": refs(model._inputs_struct),
            "output_layers": refs(model._outputs_struct)}


def _with_mask_kwarg(layer, node):
    """A node's kwargs as Keras records them: a layer whose `call` takes `mask`,
    called on one tensor argument, gets `mask` (None when the input has none),
    unless Keras's `__call__` converted the inputs (then the node keeps the
    caller's kwargs: `symbolic.records_filled_arguments`)."""
    kwargs = node.call_kwargs
    if "mask" in kwargs or not call_signature(type(layer)).has_mask or \
            not symbolic.records_filled_arguments(layer, node.call_args, kwargs):
        return kwargs
    with_tensors = [v for v in list(node.call_args) + list(kwargs.values())
                    if any(isinstance(t, KerasTensor) for t in tree.flatten(v))]
    return {**kwargs, "mask": None} if len(with_tensors) == 1 else kwargs


def _copied(value):
    """A copy of nested dicts/lists/tuples, tuples kept (Keras's `serialize_dict`)."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copied(v) for v in value)
    return value


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


def functional_from_config(cls, config, custom_objects=None):
    """Rebuilds a Functional model by replaying the recorded layer calls."""
    config, custom_objects = _with_op_classes(config, custom_objects)
    created, outputs_of = {}, {}
    pending = []
    for entry in config["layers"]:
        layer = serialization.deserialize_keras_object(entry, custom_objects=custom_objects)
        created[entry["name"]] = layer
        if type(layer).__name__ == "InputLayer":
            outputs_of[(entry["name"], 0)] = layer.output
        for node in entry.get("inbound_nodes", []):
            pending.append((entry["name"], node))
    counters = {}
    while pending:
        progressed = False
        remaining, missing = [], set()
        for name, node in pending:
            try:
                args, kwargs = _node_arguments(node, outputs_of)
            except KeyError as e:
                if isinstance(e.args[0], tuple) and e.args[0][0] not in created:
                    missing.add(e.args[0][0])
                remaining.append((name, node))
                continue
            result = created[name](*args, **kwargs)
            index = counters.get(name, 0)
            counters[name] = index + 1
            outputs_of[(name, index)] = result
            progressed = True
        if not progressed:
            unresolved = sorted({n for n, _ in remaining})
            if missing:
                raise ValueError(f"Cannot rebuild the functional graph: unresolved layers "
                                 f"{unresolved}. Missing node: {', '.join(sorted(missing))} "
                                 "(an input no layer of the config produces).")
            raise ValueError(f"Cannot rebuild the functional graph: unresolved layers "
                             f"{unresolved}: their inputs form a loop.")
        pending = remaining

    def resolve(ref):
        if isinstance(ref, dict):
            return {k: resolve(v) for k, v in ref.items()}
        if not _is_tensor_ref(ref):
            resolved = [resolve(r) for r in ref]
            return tuple(resolved) if isinstance(ref, tuple) else resolved
        name, node_index, tensor_index = ref
        # A nested functional model's calls count from 1 here (its own node is 0),
        # in Keras's configs; older kerasish configs counted from 0.
        shifted = node_index - getattr(created.get(name), "_config_node_offset", 0)
        if shifted >= 0 and (name, shifted) in outputs_of:
            node_index = shifted
        return tree.flatten(outputs_of[(name, node_index)])[tensor_index]

    inputs = _unwrap_single(config["input_layers"], resolve)
    outputs = _unwrap_single(config["output_layers"], resolve)
    return cls(inputs, outputs, name=config.get("name"), trainable=config.get("trainable", True))


def _is_tensor_ref(ref):
    """`[layer_name, node_index, tensor_index]` (not a structure of them)."""
    return isinstance(ref, (list, tuple)) and len(ref) == 3 and isinstance(ref[0], str)


def _unwrap_single(refs, resolve):
    """A list holding one tensor ref is that single tensor (one input or output)."""
    if isinstance(refs, list) and len(refs) == 1 and _is_tensor_ref(refs[0]):
        return resolve(refs[0])
    return resolve(refs)


def _node_arguments(node, outputs_of):
    """(args, kwargs) of one recorded call; KeyError while an input is not built yet.

    Keras 3 nodes are `{"args": [...], "kwargs": {...}}`; tf.keras 2 nodes
    are lists of `[layer_name, node_index, tensor_index, kwargs]` whose
    tensors form the first argument (a list when there are several).
    """
    if isinstance(node, dict):
        return (_decode(node.get("args", []), outputs_of),
                _decode(node.get("kwargs", {}), outputs_of))
    tensors, kwargs = [], {}
    for entry in node:
        name, node_index, tensor_index = entry[:3]
        kwargs = entry[3] if len(entry) > 3 else {}
        tensors.append(tree.flatten(outputs_of[(name, node_index)])[tensor_index])
    return [tensors[0] if len(tensors) == 1 else tensors], dict(kwargs or {})


def _decode(value, outputs_of):
    if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
        name, node_index, tensor_index = value["config"]["keras_history"]
        return tree.flatten(outputs_of[(name, node_index)])[tensor_index]
    if isinstance(value, dict) and value.get("class_name") == "__slice__":
        config = value["config"]
        return slice(config["start"], config["stop"], config["step"])
    if isinstance(value, dict) and value.get("class_name") == "__ellipsis__":
        return Ellipsis
    if isinstance(value, (list, tuple)):
        return type(value)(_decode(v, outputs_of) for v in value)
    if isinstance(value, dict):
        return {k: _decode(v, outputs_of) for k, v in value.items()}
    return value
