"""Keras 3's weights layout: a walk over the model's objects into HDF5 groups.

The walk (as Keras 3's `saving_lib`): a Sequential/Functional model lists
`layers` first (as `layers/<snake_case class>`, uniquified per container),
then its attributes in sorted order (private ones last): a layer or
optimizer attribute `a` goes to path `a`, a list/dict attribute to
`a/<snake_case class>[_k]`. Each object stores its own variables as
datasets "0", "1", ... in `<path>/vars` (with `@name`). An object reached
twice is stored once, at its first path.
"""
import h5py
import numpy as np

from kerasish.utils.naming import to_snake_case

_SKIP = {"_inbound_nodes", "_functional_layers", "_stack", "_nodes", "_inputs", "_outputs",
         "_inputs_struct", "_outputs_struct", "_compile_loss", "_compile_metrics",
         "_loss_tracker", "_trainable_variables", "_non_trainable_variables", "_init_args",
         "_graph_outputs", "_trainable_cache", "_losses", "history", "_input_tensor",
         "_parent_model", "_callbacks"}


def _is_saveable(value):
    from kerasish.layers.layer import Layer
    return isinstance(value, Layer) or _is_optimizer(value)


def _is_optimizer(value):
    return hasattr(value, "apply_gradients") and hasattr(value, "variables")


def own_variables(obj):
    """The variables an object stores itself (not its sublayers')."""
    if _is_optimizer(obj):
        return list(obj.variables)
    return obj._own_variables()


def _children(obj):
    from kerasish.models.functional import Functional
    from kerasish.models.sequential import Sequential
    if isinstance(obj, (Sequential, Functional)):
        yield "layers", obj.layers
    if _is_optimizer(obj):
        return
    names = sorted((k for k in vars(obj) if k not in _SKIP), key=lambda k: (k.startswith("_"), k))
    for name in names:
        value = vars(obj)[name]
        if _is_saveable(value) or isinstance(value, (list, tuple, dict)):
            yield name, value


def walk(obj, path="", visited=None):
    """Yields (path, object) for every saveable object in Keras's order."""
    visited = set() if visited is None else visited
    if id(obj) in visited:
        return
    visited.add(id(obj))
    yield path, obj
    for name, child in _children(obj):
        child_path = f"{path}/{name}" if path else name
        if _is_saveable(child):
            yield from walk(child, child_path, visited)
        else:
            values = list(child.values()) if isinstance(child, dict) else list(child)
            used = {}
            for value in values:
                if not _is_saveable(value):
                    continue
                base = to_snake_case(type(value).__name__)
                used[base] = used.get(base, -1) + 1
                key = base if used[base] == 0 else f"{base}_{used[base]}"
                yield from walk(value, f"{child_path}/{key}", visited)


def write_weights(model, target):
    """Writes every object's variables in Keras 3's layout.

    Args:
        model: the model.
        target: a file path or a writable file object (e.g. BytesIO).
    """
    with h5py.File(target, "w") as f:
        for path, obj in walk(model):
            group = f.require_group(f"{path}/vars" if path else "vars")
            group.attrs["name"] = getattr(obj, "name", "")
            for i, variable in enumerate(own_variables(obj)):
                group.create_dataset(str(i), data=variable.numpy())


def read_weights(model, h5_root, skip_mismatch=False):
    """Loads a Keras 3 layout group into `model`, all or nothing.

    Every variable is checked first; values are assigned only if all fit
    (with `skip_mismatch`, mismatching objects are skipped with a warning).
    """
    import warnings
    assignments, errors = [], []
    for path, obj in walk(model):
        variables = own_variables(obj)
        if not variables:
            continue
        if _is_optimizer(obj) and not getattr(obj, "built", False):
            continue
        group = h5_root.get(f"{path}/vars" if path else "vars")
        stored = [] if group is None else sorted(group.keys(), key=int)
        problem = _mismatch(obj, variables, group, stored)
        if problem:
            if skip_mismatch:
                warnings.warn(f"Skipping loading weights for '{path or obj.name}': {problem}", stacklevel=3)
                continue
            errors.append(problem)
            continue
        assignments.extend((v, group[k][()]) for v, k in zip(variables, stored))
    if errors:
        raise ValueError(
            f"A total of {len(errors)} objects could not be loaded. Nothing was loaded.\n"
            + "\n".join(errors)
        )
    for variable, value in assignments:
        variable.assign(value)


def _mismatch(obj, variables, group, stored):
    label = f"Layer '{obj.name}'" if not _is_optimizer(obj) else f"Optimizer '{obj.name}'"
    if len(stored) != len(variables):
        return (f"{label} expected {len(variables)} variables, but received {len(stored)} "
                f"variables during loading. Expected: {[v.name for v in variables]}")
    for v, k in zip(variables, stored):
        shape = tuple(group[k].shape)
        if shape != tuple(v.shape):
            return (f"{label}: variable '{v.name}' has shape {tuple(v.shape)} but the file has "
                    f"shape {shape}.")
    return None


def unbuilt_layers(model):
    """Layers that have not been built (and so have no variables yet)."""
    return [layer for layer in model._flatten_layers() if not layer.built]


def as_numpy(value):
    return np.asarray(value)
