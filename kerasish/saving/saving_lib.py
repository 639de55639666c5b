"""Keras 3's weights layout: a walk over the model's objects into HDF5 groups.

The walk (as Keras 3's `saving_lib`): a Sequential/Functional model lists
`layers` first (as `layers/<snake_case class>`, uniquified per container),
then its attributes in sorted order (private ones last): a layer or
optimizer attribute `a` goes to path `a`, a list/dict attribute to
`a/<snake_case class>[_k]` (a nested list to `a/container[_k]/...`). Each
object stores its own variables as datasets "0", "1", ... in `<path>/vars`
(with `@name`). An object reached twice is stored once, at its first path.

Loading is all or nothing: every value is read and checked before the
first variable changes. As in Keras, a layer whose variables do not match
the file is an error, while an optimizer whose state does not match is
skipped with a warning (its slots may not exist yet).
"""
import math
import os
import tempfile
import warnings

import h5py
import numpy as np

from kerasish.autodiff.tensor import Variable
from kerasish.layers.layer import _SKIP_ATTRS, Layer
from kerasish.utils.naming import to_snake_case
from kerasish.utils.summary_utils import readable_memory_size

_SKIP = {"_inbound_nodes", "_operations", "_stack", "_nodes", "_inputs", "_outputs",
         "_inputs_struct", "_outputs_struct", "_compile_loss", "_compile_metrics",
         "_loss_tracker", "_trainable_variables", "_non_trainable_variables", "_init_args",
         "_functional", "_trainable_cache", "_losses", "history", "_input_tensor",
         "_parent_model", "_callbacks", "_compile_config", "_initial_weights",
         "_build_shapes", "_nodes_by_depth", "_trainer_state"}
_LEGACY_LAYERS = "_layer_checkpoint_dependencies"   # Keras 2.13-2.15 ".keras" files

# Decompression-bomb limits, Keras 3.15.1's (CWE-409). Keras and kerasish store
# archive members uncompressed, so real files expand about 1:1 (DEFLATE cannot
# pass ~1032:1). A member that declares more than a floor and more than
# `_ZIP_MEMBER_MAX_EXPANSION` times its stored size is refused before it is
# decompressed: config.json and model.weights.h5 with the in-memory floor, every
# member (when the archive has assets) with the lower extraction floor.
_ZIP_MEMBER_BOMB_FLOOR_BYTES = 1 << 32      # 4 GiB
_ZIP_MEMBER_MAX_EXPANSION = 100
_ZIP_EXTRACT_BOMB_FLOOR_BYTES = 1 << 28     # 256 MiB
# HDF5 "shape bombs": a dataset declaring far more bytes than it stores.
_H5_DATASET_BOMB_FLOOR_BYTES = 1 << 32      # 4 GiB
_H5_DATASET_MAX_EXPANSION = 1000


def _is_saveable(value):
    return isinstance(value, Layer) or _is_optimizer(value)


def _is_optimizer(value):
    return hasattr(value, "apply_gradients") and hasattr(value, "variables") \
        and not isinstance(value, type)


def own_variables(obj):
    """The variables an object stores itself (not its sublayers').

    Args:
        obj: a layer, model or optimizer.

    Returns:
        list of Variables in save order (trainable then non-trainable for
        layers; `optimizer.variables` for optimizers).
    """
    if _is_optimizer(obj):
        return list(obj.variables)
    trainable, non_trainable = list(obj._trainable_variables), list(obj._non_trainable_variables)
    known = {id(v) for v in trainable + non_trainable}
    for variable in _attribute_variables(obj):
        if id(variable) not in known:
            # appended to a list attribute after it was assigned: Keras tracks it at the
            # append, after the tracked ones of its kind
            known.add(id(variable))
            (trainable if variable.trainable else non_trainable).append(variable)
    return trainable + non_trainable


def saved_variables(obj):
    """The variables an object writes into its `vars` group, in order: its own
    variables, except for layers with Keras's serialization spec (Dense,
    EinsumDense, Embedding, conv layers), which write only the spec's.

    Args:
        obj: a layer, model or optimizer.

    Returns:
        list of Variables.
    """
    if getattr(obj, "_serialized_variables", None) is not None:
        return obj._saved_variables()
    return own_variables(obj)


def _attribute_variables(obj):
    """Variables assigned as attributes (also in lists/dicts), not sublayers' or caches."""
    skip = _SKIP | _SKIP_ATTRS
    stack = [v for k, v in reversed(list(vars(obj).items())) if k not in skip]
    containers = set()
    while stack:
        value = stack.pop()
        if isinstance(value, Variable):
            yield value
        elif isinstance(value, (list, tuple, dict)) and not isinstance(value, Layer):
            if id(value) in containers:  # seen before, or a container holding itself
                continue
            containers.add(id(value))
            stack.extend(reversed(list(value.values()) if isinstance(value, dict) else value))


def _children(obj):
    if getattr(type(obj), "_saves_layers_as_list", False):   # Sequential, Functional
        yield "layers", obj.layers
    if _is_optimizer(obj):
        return
    attrs = dict(vars(obj))
    attrs.update(_user_properties(obj))
    if isinstance(obj, Layer) and "layers" not in attrs and \
            isinstance(getattr(type(obj), "layers", None), property):
        # a subclassed Model: Keras walks `dir()`, where Model's `layers` property is
        # not skipped (its skip set is a plain Layer's), so the sublayers not reached
        # under an attribute sorting before "layers" are saved as "layers/<class>"
        attrs["layers"] = obj.layers
    names = sorted((k for k in attrs if k not in _SKIP), key=lambda k: (k.startswith("_"), k))
    for name in names:
        value = attrs[name]
        if _is_saveable(value) or isinstance(value, (list, tuple, dict)):
            yield name, value


def _user_properties(obj):
    """The values of the properties a user's class defines (Keras walks `dir()`, so an
    object reached through a property is found there too); kerasish's own properties
    (`layers`, `weights`, ...) are views of state already walked."""
    found = {}
    for klass in type(obj).__mro__:
        if klass.__module__.startswith("kerasish.") or klass is object:
            continue
        for name, member in vars(klass).items():
            if isinstance(member, property) and not name.startswith("__") and name not in found:
                try:
                    found[name] = getattr(obj, name)
                except Exception:  # as Keras: a property that raises is not followed
                    continue
    return found


def walk(obj, path="", visited=None, revisits=False):
    """Yields (path, object) for every saveable object in Keras 3's order.

    Args:
        obj: the root (a model, layer or optimizer).
        path: the root's path ("" for the file root).
        visited: ids already yielded (shared across the walk).
        revisits: also yield an object reached again under another path
            (without walking into it again); loading tries those paths
            when the first one does not fit, as Keras does.

    Example:
        >>> [p for p, _ in walk(model)]
        ['', 'layers/dense', 'layers/dense_1', 'optimizer']
    """
    visited = set() if visited is None else visited
    if id(obj) in visited:
        if revisits:
            yield path, obj
        return
    visited.add(id(obj))
    yield path, obj
    for name, child in _children(obj):
        child_path = f"{path}/{name}" if path else name
        if _is_saveable(child):
            yield from walk(child, child_path, visited, revisits)
        else:
            yield from _walk_container(child, child_path, visited, set(), revisits)


def _walk_container(container, path, visited, seen_containers, revisits=False):
    if id(container) in seen_containers:
        return
    seen_containers.add(id(container))
    values = list(container.values()) if isinstance(container, dict) else list(container)
    used = {}
    for value in values:
        if _is_saveable(value):
            key = _unique(to_snake_case(type(value).__name__), used)
            yield from walk(value, f"{path}/{key}", visited, revisits)
        elif isinstance(value, (list, tuple, dict)):
            key = _unique("container", used)
            yield from _walk_container(value, f"{path}/{key}", visited, seen_containers,
                                       revisits)


def _paths_by_object(model):
    """[(object, [path, ...])] in walk order: the first path, then the others it is
    reached by."""
    order, paths = [], {}
    for path, obj in walk(model, revisits=True):
        if id(obj) not in paths:
            order.append(obj)
            paths[id(obj)] = []
        paths[id(obj)].append(path)
    return [(obj, paths[id(obj)]) for obj in order]


def _unique(base, used):
    used[base] = used.get(base, -1) + 1
    return base if used[base] == 0 else f"{base}_{used[base]}"


def weight_entries(model):
    """Every object's variables, in the file's order.

    Yields:
        (group path such as "layers/dense/vars", the object's name, [(dataset key,
        numpy array), ...]) for every object, with or without variables.
    """
    for path, obj in walk(model):
        group = f"{path}/vars" if path else "vars"
        name = str(getattr(obj, "name", ""))
        if _has_custom_store(obj):
            store = {}
            obj.save_own_variables(store)   # e.g. lookup layers' "idf_weights"
            yield group, name, [(str(k), np.asarray(v)) for k, v in store.items()]
        else:
            yield group, name, [(str(i), variable.numpy())
                                for i, variable in enumerate(saved_variables(obj))]


def write_weights(model, target):
    """Writes every object's variables in Keras 3's layout.

    Args:
        model: the model (or any layer).
        target: a file path or a writable binary file object (e.g. BytesIO).

    Example:
        >>> write_weights(model, "model.weights.h5")
    """
    with h5py.File(target, "w") as f:
        for group_path, name, items in weight_entries(model):
            group = f.require_group(group_path)
            group.attrs["name"] = name
            for key, value in items:
                group.create_dataset(key, data=value)


def _has_custom_store(obj):
    """Objects whose class overrides `save_own_variables` or `load_own_variables`
    (lookup layers' idf weights, user layers): their state goes through those
    methods, as in Keras. Other objects use the all-or-nothing walk below."""
    if _is_optimizer(obj):
        return False
    return any(callable(getattr(obj, name, None)) and
               not getattr(getattr(type(obj), name, None), "_kerasish_default", False)
               for name in ("save_own_variables", "load_own_variables"))


def write_assets(model, add_file):
    """Calls `save_assets(dir)` of every object that has one (Keras's `assets/<path>/`).

    Args:
        model: the root object.
        add_file: called as `add_file(archive_name, local_path)` for each file written.
    """
    for path, obj in walk(model):
        if not callable(getattr(obj, "save_assets", None)):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            obj.save_assets(tmp)
            for name in sorted(os.listdir(tmp)):
                add_file("/".join(p for p in ("assets", path, name) if p),
                         os.path.join(tmp, name))


def read_assets(model, names, read):
    """Calls `load_assets(dir)` of every object that has one, with its files from
    `assets/<path>/` (`names`: the archive's member names; `read(name)`: bytes)."""
    for path, obj in walk(model):
        if not callable(getattr(obj, "load_assets", None)):
            continue
        prefix = "/".join(p for p in ("assets", path) if p) + "/"
        members = [n for n in names if n.startswith(prefix) and "/" not in n[len(prefix):]]
        with tempfile.TemporaryDirectory() as tmp:
            for name in members:
                with open(os.path.join(tmp, name[len(prefix):]), "wb") as f:
                    f.write(read(name))
            obj.load_assets(tmp)


def vars_group(h5_root, path):
    """The `<path>/vars` group of a Keras 3 layout file, or None.

    Falls back to Keras 2.13-2.15's `_layer_checkpoint_dependencies` name
    for `layers`, as Keras 3 does.
    """
    key = f"{path}/vars" if path else "vars"
    group = _get_group(h5_root, key)
    if group is None and _LEGACY_LAYERS in h5_root:
        group = _get_group(h5_root, key.replace("layers", _LEGACY_LAYERS))
    return group


def _get_group(root, key):
    try:
        found = root.get(key)
    except (KeyError, TypeError, ValueError):
        return None
    return found if isinstance(found, h5py.Group) else None


def _stored_keys(group, source, path):
    if group is None:
        return []
    keys = [k for k in group.keys() if isinstance(group[k], h5py.Dataset)]
    if not all(k.isdigit() for k in keys):
        raise ValueError(
            f"{source}: group '{group.name}' (for '{path or 'the model'}') has datasets "
            f"{sorted(keys)}, but Keras 3 weights files number them '0', '1', ... This looks "
            "like a legacy HDF5 weights file; load it from a path ending in `.h5`."
        )
    return sorted(keys, key=int)


def read_weights(model, h5_root, skip_mismatch=False, source="the weights file"):
    """Loads a Keras 3 layout group into `model`, all or nothing.

    Every value is read and checked first; variables change only if every
    layer fits. With `skip_mismatch`, mismatching layers are skipped with a
    warning instead. Extra groups in the file are ignored (as in Keras).

    Args:
        model: the model (or layer) to load into.
        h5_root: an open h5py File or Group in Keras 3's layout.
        skip_mismatch: warn and skip layers whose variables do not fit.
        source: how to name the file in messages.

    Raises:
        ValueError: naming the file, each layer/variable and both shapes.
    """
    assignments, errors, skipped, custom = [], [], [], []
    for obj, paths in _paths_by_object(model):
        if _has_custom_store(obj):
            groups = [vars_group(h5_root, p) for p in paths]
            custom.append((obj, next((g for g in groups if g is not None), None)))
            continue
        variables = own_variables(obj)
        path, group, stored, problem = _fitting_path(obj, paths, variables, h5_root, source)
        if not variables and not stored:
            continue
        if problem is None:
            assignments.extend((v, group[k]) for v, k in zip(variables, stored))
        elif _is_optimizer(obj):
            skipped.append(_optimizer_warning(obj, variables, stored, problem, source))
        elif skip_mismatch:
            skipped.append(f"Skipping loading weights for '{path or obj.name}' from {source}: "
                           f"{problem}")
        else:
            errors.append(problem)
    if errors:
        raise ValueError(
            f"A total of {len(errors)} objects could not be loaded from {source}. Nothing was "
            "loaded (the model's weights are unchanged).\n" + "\n".join(errors))
    values = [(variable, _read(dataset, source)) for variable, dataset in assignments]
    for variable, value in values:
        variable.assign(value)
    for obj, group in custom:
        obj.load_own_variables({} if group is None else
                               {k: _read(group[k], source) for k in group.keys()
                                if isinstance(group[k], h5py.Dataset)})
    for message in skipped:
        warnings.warn(message, stacklevel=3)


def _fitting_path(obj, paths, variables, h5_root, source):
    """(path, group, stored keys, problem) of the first path whose group fits the
    object's variables; else the first path's, with its problem."""
    first = None
    for path in paths:
        group = vars_group(h5_root, path)
        stored = _stored_keys(group, source, path)
        problem = (None if not variables and not stored
                   else _mismatch(obj, path, variables, group, stored))
        if problem is None:
            return path, group, stored, None
        first = first or (path, group, stored, problem)
    return first


def _read(dataset, source):
    safe_get_h5_dataset(dataset.parent, dataset.name.rsplit("/", 1)[-1])  # bombs, links
    try:
        return dataset[()]
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(
            f"Could not read dataset '{dataset.name}' from {source} (the file may be truncated "
            f"or corrupted). Nothing was loaded: {e}") from None


def _optimizer_warning(optimizer, variables, stored, problem, source):
    if len(variables) == len(stored):
        return (f"Skipping variable loading for optimizer '{optimizer.name}' from {source}: "
                f"{problem}")
    # Keras's text (the file is not named there)
    message = (f"Skipping variable loading for optimizer '{optimizer.name}', "
               f"because it has {len(variables)} variables whereas the saved optimizer has "
               f"{len(stored)} variables. ")
    if not variables:
        message += "This is likely because the optimizer has not been called/built yet."
    return message


def _mismatch(obj, path, variables, group, stored):
    where = f" (file group '{path}/vars')" if path else ""
    label = (f"Optimizer '{obj.name}'" if _is_optimizer(obj) else f"Layer '{obj.name}'") + where
    if len(stored) != len(variables):
        if not variables and not getattr(obj, "built", True):
            return (f"{label} was never built and thus it doesn't have any variables. However "
                    f"the weights file lists {len(stored)} variables for this layer. Build the "
                    "model (call it on data) before loading.")
        return (f"{label} expected {len(variables)} variables, but received {len(stored)} "
                f"variables during loading. Expected: {[v.name for v in variables]}")
    for v, k in zip(variables, stored):
        shape = tuple(group[k].shape)
        if shape != tuple(v.shape):
            return (f"{label}: variable '{v.name}' (#{k}) has shape {tuple(v.shape)} in the "
                    f"model but shape {shape} in the file; the shapes must match.")
    return None


def unbuilt_layers(model):
    """Layers that have not been built (and so have no variables yet)."""
    return [layer for layer in model._flatten_layers() if not layer.built]


def as_numpy(value):
    """`np.asarray(value)` (kept for callers of the lead's API)."""
    return np.asarray(value)


def _reject_zip_bomb(archive, name):
    """Refuses the member `name` when it expands like a decompression bomb.

    Args:
        archive: an open `zipfile.ZipFile`.
        name: the member about to be read into memory.

    Raises:
        KeyError: no such member.
        ValueError: in Keras's words, naming the declared and stored sizes.
    """
    info = archive.getinfo(name)
    if (info.file_size > _ZIP_MEMBER_BOMB_FLOOR_BYTES
            and info.file_size > _ZIP_MEMBER_MAX_EXPANSION * info.compress_size):
        raise ValueError(
            f"Not allowed: ZIP member '{name}' declares {readable_memory_size(info.file_size)} "
            f"but only {readable_memory_size(info.compress_size)} are stored on disk; refusing "
            "to load a potential decompression bomb.")


def _reject_zip_extract_bomb(archive):
    """Refuses an archive any of whose members (assets included) expands like a
    decompression bomb, member by member (genuine weights beside a bomb do not
    dilute it).

    Args:
        archive: an open `zipfile.ZipFile`.

    Raises:
        ValueError: in Keras's words, naming the member and both sizes.
    """
    for info in archive.infolist():
        if (info.file_size > _ZIP_EXTRACT_BOMB_FLOOR_BYTES
                and info.file_size > _ZIP_MEMBER_MAX_EXPANSION * info.compress_size):
            raise ValueError(
                f"Not allowed: archive member '{info.filename}' declares "
                f"{readable_memory_size(info.file_size)} but only "
                f"{readable_memory_size(info.compress_size)} are stored on disk; refusing to "
                "extract a potential decompression bomb.")


def _safe_zip_read(archive, name):
    """`archive.read(name)`, refused first when the member is a decompression bomb
    (zipfile never inflates past the declared size, so checking it bounds the memory)."""
    _reject_zip_bomb(archive, name)
    with archive.open(name, "r") as f:
        return f.read()


def safe_get_h5_dataset(group, name):
    """`group[name]`, checked to be a plain dataset that is not a "shape bomb".

    As Keras 3.15.1: links, external and virtual datasets are refused, and so
    is a dataset declaring more than 4 GiB and more than 1000 times the bytes
    it stores on disk (it would allocate its declared size when read).

    Args:
        group: an open h5py Group (or File).
        name: the dataset's name, possibly a path `a/b/c`.

    Returns:
        The `h5py.Dataset`.

    Raises:
        KeyError: no such member.
        ValueError: a link, a group, an external/virtual dataset, or a shape bomb.

    Example:
        >>> kernel = safe_get_h5_dataset(f, "layers/dense/vars/0")[()]
    """
    if "/" in name:
        group_name, name = name.rsplit("/", 1)
        group = group[group_name]
    if name not in group:
        raise KeyError(name)
    kind = group.get(name, default=None, getclass=True, getlink=True)
    if kind in (h5py.ExternalLink, h5py.SoftLink):
        raise ValueError(f"Not allowed: H5 file with {kind.__name__}")
    dataset = group[name]
    if not isinstance(dataset, h5py.Dataset):
        raise ValueError(f"Invalid H5 file, expected Dataset, received {type(dataset)}")
    if dataset.external:
        raise ValueError(f"Not allowed: H5 file with external Dataset: {dataset.external}")
    if dataset.is_virtual:
        raise ValueError("Not allowed: H5 file with virtual Dataset")
    declared = math.prod(dataset.shape) * dataset.dtype.itemsize
    stored = dataset.id.get_storage_size()
    if declared > _H5_DATASET_BOMB_FLOOR_BYTES and declared > _H5_DATASET_MAX_EXPANSION * stored:
        raise ValueError(
            f"Not allowed: H5 dataset '{name}' declares {readable_memory_size(declared)} but "
            f"only {readable_memory_size(stored)} are stored on disk; refusing to load a "
            "potential decompression/shape bomb.")
    return dataset
