"""Legacy HDF5 weights (tf.keras 2 and Keras 3 `model.save("x.h5")` files).

Layout: `@layer_names` lists every layer (chunked as layer_names0, 1, ...
when large); each layer group has `@weight_names`, paths of its datasets
relative to the group. Loading is by order of the layers that have
weights (or by layer name with `by_name=True`), all or nothing; then the
model's own variables from `top_level_model_weights` when present.
String attributes may be `str` or `bytes` (fixed-length or variable).
"""
import warnings

import numpy as np

from kerasish.saving import saving_lib

HDF5_OBJECT_HEADER_LIMIT = 64512   # bytes; larger attributes are chunked (as Keras)
TOP_LEVEL = "top_level_model_weights"


def read_attr_list(group, name):
    """A string-list attribute, concatenating chunks `name0`, `name1`, ... (str or bytes).

    Args:
        group: an h5py Group (or File).
        name: the attribute name, e.g. "layer_names".

    Returns:
        list of str (empty when the attribute is absent or an empty array).
    """
    if name in group.attrs:
        values = _as_list(group.attrs[name])
    else:
        values, i = [], 0
        while f"{name}{i}" in group.attrs:
            values.extend(_as_list(group.attrs[f"{name}{i}"]))
            i += 1
    return [v.decode("utf8") if isinstance(v, (bytes, np.bytes_)) else str(v) for v in values]


def _as_list(value):
    if isinstance(value, (str, bytes)):
        return [value]
    return list(np.asarray(value).reshape(-1)) if np.asarray(value).size else []


def write_attr_list(group, name, values):
    """Writes a string-list attribute, chunked like Keras when above 64512 bytes.

    Args:
        group: an h5py Group (or File).
        name: the attribute name.
        values: list of str. An empty list is stored as an empty float64
            array, as Keras does.
    """
    if not values:
        group.attrs[name] = np.zeros((0,), dtype="float64")
        return
    data = np.asarray([v.encode("utf8") for v in values])
    parts = [data]
    while any(part.nbytes > HDF5_OBJECT_HEADER_LIMIT for part in parts):
        parts = np.array_split(data, len(parts) + 1)
    if len(parts) == 1:
        group.attrs[name] = list(values)       # variable-length strings, as Keras 3
        return
    for i, part in enumerate(parts):           # fixed-length bytes chunks, as Keras
        group.attrs[f"{name}{i}"] = part


def is_legacy(h5_file):
    """True when the file uses the legacy layout (root or under `model_weights`)."""
    return _has_layer_names(h5_file) or "model_weights" in h5_file


def _has_layer_names(group):
    return "layer_names" in group.attrs or "layer_names0" in group.attrs


def weights_root(h5_file):
    """The group holding `layer_names`: the root, or `model_weights` of a full-model file."""
    if not _has_layer_names(h5_file) and "model_weights" in h5_file:
        return h5_file["model_weights"]
    return h5_file


def legacy_weights(layer):
    """A layer's weights in legacy save order: trainable then non-trainable."""
    return layer.trainable_weights + layer.non_trainable_weights


def load_weights(model, h5_file, by_name=False, skip_mismatch=False, source="the weights file"):
    """Loads legacy HDF5 weights into `model`; raises before assigning anything on mismatch.

    Args:
        model: the model to fill.
        h5_file: an open h5py File (root or full-model layout).
        by_name: match layers by name instead of by order.
        skip_mismatch: warn and skip layers whose weights do not fit.
        source: how to name the file in messages.

    Raises:
        ValueError: layer count, weight count or shape mismatch (naming the
            file, both layer names and both shapes).
    """
    root = weights_root(h5_file)
    saved = [(name, read_attr_list(_layer_group(root, name, source), "weight_names"))
             for name in read_attr_list(root, "layer_names")]
    saved = [(name, weights) for name, weights in saved if weights]
    layers = [layer for layer in model.layers if layer.weights]
    pairs = _pair_by_name(layers, saved) if by_name else _pair_in_order(layers, saved, source)
    assignments = []
    for k, (layer, (name, weight_names)) in enumerate(pairs):
        values = [_read(root[name], w, source) for w in weight_names]
        problem = _check(k, layer, name, legacy_weights(layer), values, source)
        if problem is None:
            assignments.extend(zip(legacy_weights(layer), values))
        elif skip_mismatch:
            warnings.warn(f"Skipping loading of weights for layer '{layer.name}': {problem}",
                          stacklevel=3)
        else:
            raise ValueError(problem + " Nothing was loaded (the model's weights are unchanged).")
    assignments.extend(_top_level(model, root, skip_mismatch, source))
    for variable, value in assignments:
        variable.assign(value)


def _layer_group(root, name, source):
    if name not in root:
        raise ValueError(f"{source}: `layer_names` lists '{name}' but the file has no group "
                         "of that name (the file is damaged or not a Keras weights file).")
    return root[name]


def _read(group, weight_name, source):
    try:
        return np.asarray(group[weight_name])
    except (KeyError, OSError, ValueError) as e:
        raise ValueError(f"{source}: cannot read weight '{weight_name}' of layer group "
                         f"'{group.name}' ({e}). Nothing was loaded.") from None


def _top_level(model, root, skip_mismatch, source):
    own = saving_lib.own_variables(model)
    if TOP_LEVEL not in root or not own:
        return []
    names = read_attr_list(root[TOP_LEVEL], "weight_names")
    values = [_read(root[TOP_LEVEL], w, source) for w in names]
    problem = _check(len(model.layers), model, TOP_LEVEL, own, values, source)
    if problem is None:
        return list(zip(own, values))
    if skip_mismatch:
        warnings.warn(f"Skipping loading of the model's own weights: {problem}", stacklevel=4)
        return []
    raise ValueError(problem + " Nothing was loaded (the model's weights are unchanged).")


def _pair_in_order(layers, saved, source):
    if len(layers) != len(saved):
        raise ValueError(
            "Layer count mismatch when loading weights from file. Model expected "
            f"{len(layers)} layers, found {len(saved)} saved layers. (file: {source}; model "
            f"layers with weights: {[l.name for l in layers]}; file layers with weights: "
            f"{[name for name, _ in saved]})"
        )
    return list(zip(layers, saved))


def _pair_by_name(layers, saved):
    by_name = dict(saved)
    return [(layer, (layer.name, by_name[layer.name])) for layer in layers if layer.name in by_name]


def _check(k, layer, name, variables, values, source):
    if len(variables) != len(values):
        return (f"Weight count mismatch for layer #{k} (named {layer.name} in the current model, "
                f"{name} in the save file {source}). Layer expects {len(variables)} weight(s). "
                f"Received {len(values)} saved weight(s).")
    for v, value in zip(variables, values):
        if tuple(v.shape) != value.shape:
            return (f"Shape mismatch in layer #{k} (named {layer.name} in the current model, "
                    f"{name} in the save file {source}) for weight {v.path}. Weight expects "
                    f"shape {tuple(v.shape)}. Received saved weight with shape {value.shape}.")
    return None


def save_weights_to_group(group, model, backend, keras_version):
    """Writes `model`'s weights in the legacy layout into `group` (Keras 3 naming).

    Weight names are Keras 3 variable paths (e.g. `mlp/dense/kernel`);
    datasets live at those paths relative to each layer group.

    Args:
        group: the h5py group (`model_weights` of a full-model file).
        model: the model.
        backend, keras_version: strings stored as attributes.
    """
    layers = model.layers
    write_attr_list(group, "layer_names", [layer.name for layer in layers])
    group.attrs["backend"] = backend
    group.attrs["keras_version"] = keras_version
    for layer in sorted(layers, key=lambda l: l.name):
        write_variables(group.create_group(layer.name), legacy_weights(layer))
    write_variables(group.create_group(TOP_LEVEL), saving_lib.own_variables(model))


def write_variables(group, variables):
    """Writes variables at their paths inside `group` and lists them in `@weight_names`.

    Args:
        group: the h5py group of one layer (or `optimizer_weights`).
        variables: the Variables, in save order.
    """
    names = []
    for variable in variables:
        name = _unique_path(group, getattr(variable, "path", None) or variable.name)
        group.create_dataset(name, data=variable.numpy())
        names.append(name)
    write_attr_list(group, "weight_names", names)


def _unique_path(group, name):
    candidate, i = name, 0
    while candidate in group:
        i += 1
        candidate = f"{name}_{i}"
    return candidate
