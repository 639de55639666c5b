"""Legacy HDF5 weights (tf.keras 2 and Keras 3 `model.save("x.h5")` files).

Layout: `@layer_names` lists every layer (chunked as layer_names0, 1, ...
when large); each layer group has `@weight_names`, paths of its datasets
relative to the group. Loading is by order of the layers that have
weights (or by layer name with `by_name=True`), all or nothing.
"""
import warnings

import numpy as np


def read_attr_list(group, name):
    """A string-list attribute, concatenating chunks `name0`, `name1`, ... (str or bytes)."""
    if name in group.attrs:
        values = list(group.attrs[name])
    else:
        values, i = [], 0
        while f"{name}{i}" in group.attrs:
            values.extend(group.attrs[f"{name}{i}"])
            i += 1
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]


def is_legacy(h5_file):
    """True when the file uses the legacy layout (root or under `model_weights`)."""
    return "layer_names" in h5_file.attrs or "layer_names0" in h5_file.attrs or "model_weights" in h5_file


def _weights_root(h5_file):
    if "layer_names" not in h5_file.attrs and "layer_names0" not in h5_file.attrs \
            and "model_weights" in h5_file:
        return h5_file["model_weights"]
    return h5_file


def _legacy_weights(layer):
    return layer.trainable_weights + layer.non_trainable_weights


def load_weights(model, h5_file, by_name=False, skip_mismatch=False):
    """Loads legacy HDF5 weights into `model`; raises before assigning anything on mismatch."""
    root = _weights_root(h5_file)
    saved = [(name, read_attr_list(root[name], "weight_names"))
             for name in read_attr_list(root, "layer_names")]
    saved = [(name, weights) for name, weights in saved if weights]
    layers = [layer for layer in model.layers if layer.weights]
    pairs = _pair_by_name(layers, saved) if by_name else _pair_in_order(layers, saved)
    assignments = []
    for k, (layer, (name, weight_names)) in enumerate(pairs):
        values = [np.asarray(root[name][w]) for w in weight_names]
        variables = _legacy_weights(layer)
        problem = _check(k, layer, name, variables, values)
        if problem:
            if skip_mismatch:
                warnings.warn(f"Skipping loading of weights for layer '{layer.name}': {problem}",
                              stacklevel=3)
                continue
            raise ValueError(problem + " Nothing was loaded.")
        assignments.extend(zip(variables, values))
    for variable, value in assignments:
        variable.assign(value)


def _pair_in_order(layers, saved):
    if len(layers) != len(saved):
        raise ValueError(
            "Layer count mismatch when loading weights from file. Model expected "
            f"{len(layers)} layers, found {len(saved)} saved layers."
        )
    return list(zip(layers, saved))


def _pair_by_name(layers, saved):
    by_name = dict(saved)
    return [(layer, (layer.name, by_name[layer.name])) for layer in layers if layer.name in by_name]


def _check(k, layer, name, variables, values):
    if len(variables) != len(values):
        return (f"Weight count mismatch for layer #{k} (named {layer.name} in the current model, "
                f"{name} in the save file). Layer expects {len(variables)} weight(s). Received "
                f"{len(values)} saved weight(s)")
    for v, value in zip(variables, values):
        if tuple(v.shape) != value.shape:
            return (f"Shape mismatch in layer #{k} (named {layer.name}) for weight {v.path}. "
                    f"Weight expects shape {tuple(v.shape)}. Received saved weight with shape "
                    f"{value.shape}")
    return None
