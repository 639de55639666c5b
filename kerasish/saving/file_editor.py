"""`keras.saving.KerasFileEditor`: inspect, edit and resave a weights file.

The file's weights become a nested dict, `{"layers": {"dense": {"0": array,
"1": array}}, "optimizer": {...}}` (the Keras 3 layout of `saving_lib`
without its `vars` groups); `summary()` prints it as a tree, `compare()`
checks it against a model, the edit methods change the dict and `save()`
writes it back as a `.weights.h5` file. Texts and results are Keras
3.15.1's (printed through `rich`, as Keras does).

One deliberate difference: Keras's editor drops the sublayers of an object
that has a `vars` group of its own (a nested Sequential or a Bidirectional
wrapper shows nothing, and `save()` loses their weights); here they stay in
the dict, so an edited file keeps every weight it had.
"""
import collections
import json
import os
import zipfile

import h5py
import numpy as np
import rich.console

from kerasish.saving import atomic, file_errors, saving_lib

_MAX_DATASET_BYTES = 1 << 32  # Keras refuses larger datasets (4 GiB) when opening


class KerasFileEditor:
    """Utility to inspect, edit, and resave Keras weights files.

    Useful to adapt an old weights file after changing a model's architecture.

    Args:
        filepath: a `.weights.h5` file or a `.keras` archive.

    Example:
        >>> editor = keras.saving.KerasFileEditor("model.weights.h5")
        >>> editor.summary()                        # the weight structure
        >>> editor.delete_object("layers/dense_2")  # drop a layer's weights
        >>> editor.add_object("layers/einsum_dense", weights={"0": kernel, "1": bias})
        >>> editor.save("edited.weights.h5")
    """

    def __init__(self, filepath):
        self.filepath = filepath = os.fspath(filepath)
        self.metadata = None
        self.config = None
        self.model = None
        self.console = rich.console.Console(highlight=False)
        if filepath.endswith(".keras"):
            self.weights_dict = self._open_archive(filepath)
        elif filepath.endswith(".weights.h5"):
            file_errors.check_readable(filepath)
            with file_errors.open_h5(filepath) as h5:
                self.weights_dict = read_weights_tree(h5)
        else:
            raise ValueError("Invalid filename: expected a `.keras` `.weights.h5` extension. "
                             f"Received: filepath={filepath}")
        self.console.print(f"Keras model file [color(33)]'{filepath}'[/]")
        if self.metadata is not None:
            self.console.print(f"Saved with Keras [color(33)]{self.metadata['keras_version']}[/]"
                               f" - date: [color(33)]{self.metadata['date_saved']}[/]")

    def _open_archive(self, filepath):
        file_errors.check_readable(filepath)
        with zipfile.ZipFile(filepath, "r") as archive:
            self.config = json.loads(archive.read("config.json"))
            self.metadata = json.loads(archive.read("metadata.json"))
            data = archive.read("model.weights.h5")
        with file_errors.open_h5(filepath, data) as h5:
            return read_weights_tree(h5)

    # Looking ----------------------------------------------------------------------------
    def summary(self):
        """Prints the weight structure of the opened file (a tree of objects and shapes)."""
        self.console.print("Weights structure")
        self._print_tree(self.weights_dict, prefix="  ", first=True)

    def _print_tree(self, tree, prefix, first=False):
        items = list(tree.items())
        for index, (key, value) in enumerate(items):
            last = index == len(items) - 1
            connector = "> " if first and index == 0 else "└─ " if last else "├─ "
            if isinstance(value, dict):
                self.console.print(f"{prefix}{connector}[bold]{key}[/]")
                self._print_tree(value, prefix + ("    " if last else "│   "))
            else:
                self.console.print(f"{prefix}{connector}[bold]{key}[/]: "
                                   f"shape={value.shape}, dtype={value.dtype}")

    def compare(self, reference_model):
        """Compares the opened file with a model and prints every mismatch.

        Args:
            reference_model: the model (or layer) the file should fit.

        Returns:
            dict with `"status"` (`"success"` or `"error"`), `"error_count"` and
            `"match_count"`, counted as Keras 3.15.1 counts them (its match
            count adds the running total of each nested object again, so it
            can exceed the number of weights).
        """
        self.console.print("Running comparison")
        reference = weight_spec(reference_model)
        checked = set()
        errors, matches = self._compare(self.weights_dict, reference, "", "saved file",
                                        "reference model", 0, 0, checked)
        reverse_errors, _ = self._compare(reference, self.weights_dict, "", "reference model",
                                          "saved file", 0, 0, checked)
        errors += reverse_errors
        self.console.print("─────────────────────")
        if errors == 0:
            self.console.print("[color(28)][bold]Comparison successful:[/] saved file is "
                               "compatible with the reference model[/]")
            self.console.print(f"    Found {matches} matching weight{_plural(matches)}")
        else:
            self.console.print(f"[color(160)][bold]Found {errors} error{_plural(errors)}:[/] "
                               "saved file is not compatible with the reference model[/]")
        return {"status": "success" if errors == 0 else "error", "error_count": errors,
                "match_count": matches}

    def _compare(self, target, reference, path, target_name, ref_name, errors, matches,
                 checked):
        """Walks `reference`, counting what `target` lacks or shapes differently."""
        for key, ref_value in reference.items():
            inner = f"{path}/{key}"
            if inner in checked:
                continue
            if key not in target:
                errors += 1
                checked.add(inner)
                self._print_missing(inner, ref_value, target_name, ref_name)
            elif isinstance(ref_value, dict):
                sub_errors, sub_matches = self._compare(target[key], ref_value, inner,
                                                        target_name, ref_name, errors, matches,
                                                        checked)
                errors += sub_errors
                matches += sub_matches
            elif tuple(target[key].shape) != tuple(ref_value.shape):
                errors += 1
                checked.add(inner)
                self.console.print(f"[color(160)]...Weight shape mismatch for [bold]{inner}[/][/]"
                                   f"\n    In {ref_name}: shape={tuple(ref_value.shape)}"
                                   f"\n    In {target_name}: shape={tuple(target[key].shape)}")
            else:
                matches += 1
        return errors, matches

    def _print_missing(self, inner, ref_value, target_name, ref_name):
        kind = "Object" if isinstance(ref_value, dict) else "Weight"
        self.console.print(f"[color(160)]...{kind} [bold]{inner}[/] present in {ref_name}, "
                           f"missing from {target_name}[/]")
        if isinstance(ref_value, dict):
            self.console.print(f"    In {ref_name}, {inner} contains the following keys: "
                               f"{list(ref_value.keys())}")

    # Editing ----------------------------------------------------------------------------
    def rename_object(self, object_name, new_name):
        """Renames an object (e.g. a layer).

        Args:
            object_name: its name (`"dense_2"`, if unique in the file) or path
                (`"layers/dense_2"`).
            new_name: the new leaf name (not a path).
        """
        if "/" in new_name:
            raise ValueError("Argument `target_name` should be a leaf name, not a full path "
                             f"name. Received: target_name='{new_name}'")
        for parent, key in self._find(object_name):
            parent[new_name] = parent.pop(key)

    def delete_object(self, object_name):
        """Removes an object (e.g. a layer) and all its weights.

        Args:
            object_name: its name (if unique in the file) or path.
        """
        for parent, key in self._find(object_name):
            parent.pop(key)

    def add_object(self, object_path, weights):
        """Adds a new object (e.g. a layer) with its weights.

        Args:
            object_path: the object's full path (e.g. `"layers/dense_2"`).
            weights: dict of weight name (`"0"`, `"1"`, ...) to array.
        """
        _check_weights(weights)
        *parents, leaf = object_path.split("/")
        tree = self.weights_dict
        for element in parents:
            if element not in tree:
                raise ValueError(f"Path '{'/'.join(parents)}' not found in model.")
            tree = tree[element]
        tree[leaf] = weights

    def delete_weight(self, object_name, weight_name):
        """Removes one weight of an object.

        Args:
            object_name: the object's name (if unique) or path.
            weight_name: the weight's name (e.g. `"0"`).
        """
        for parent, key in self._find(object_name):
            if weight_name not in parent[key]:
                raise ValueError(f"Weight {weight_name} not found in object {object_name}. "
                                 f"Weights found: {list(parent[key].keys())}")
            parent[key].pop(weight_name)

    def add_weights(self, object_name, weights):
        """Adds weights to an existing object.

        Args:
            object_name: the object's name (if unique) or path.
            weights: dict of weight name (`"2"`, ...) to array.
        """
        _check_weights(weights)
        for parent, key in self._find(object_name):
            parent[key].update(weights)

    def _find(self, name):
        """[(parent dict, key)] for an object named by path or by a unique name."""
        if "/" in name:
            *parents, leaf = name.split("/")
            tree = self.weights_dict
            for element in parents:
                if element not in tree:
                    raise ValueError(f"Path '{name}' not found in model.")
                tree = tree[element]
            if leaf not in tree:
                raise ValueError(f"Path '{name}' not found in model.")
            return [(tree, leaf)]
        found = [(tree, name) for tree in _subtrees(self.weights_dict) if name in tree]
        if len(found) > 1:
            raise ValueError(f"Name '{name}' occurs more than once in the model; "
                             "try passing a complete path")
        if not found:
            raise ValueError(f"Source name '{name}' does not appear in the model. "
                             "Use `editor.weights_summary()` to list all objects.")
        return found

    # Saving -----------------------------------------------------------------------------
    def save(self, filepath):
        """Writes the (edited) weights as a `.weights.h5` file, atomically.

        Args:
            filepath: path ending in `.weights.h5`.
        """
        filepath = os.fspath(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError("Invalid `filepath` argument: expected a `.weights.h5` extension. "
                             f"Received: filepath={filepath}")
        with atomic.atomic_path(filepath) as tmp, h5py.File(tmp, "w") as h5:
            _write_tree(h5, self.weights_dict, "")

    def resave_weights(self, filepath):
        """Same as `save(filepath)`."""
        self.save(filepath)


def read_weights_tree(group):
    """The weights of a Keras 3 layout file as nested dicts of arrays, without `vars` levels.

    An object's own variables (its `vars` datasets) come first, then its
    sub-objects; objects without any weight are left out.

    Args:
        group: an open `h5py.File` or group.

    Returns:
        `collections.OrderedDict` of name -> array or nested dict.
    """
    tree = collections.OrderedDict()
    own = group.get("vars") if "vars" in group else None
    if isinstance(own, h5py.Group):
        tree.update(read_weights_tree(own))
    for key in group.keys():
        link = group.get(key, getclass=True, getlink=True)
        if link in (h5py.ExternalLink, h5py.SoftLink):
            raise ValueError(f"Not allowed: H5 file with {link.__name__}")
        value = group[key]
        if isinstance(value, h5py.Dataset):
            tree[key] = _read_dataset(value)
        elif isinstance(value, h5py.Group) and key != "vars":
            node = read_weights_tree(value)
            if node:
                tree[key] = node
    return tree


def _read_dataset(dataset):
    """A dataset's array, refusing external/virtual storage and sizes over 4 GiB (as Keras)."""
    if dataset.external:
        raise ValueError(f"Not allowed: H5 file Dataset with external links: {dataset.external}")
    if dataset.is_virtual:
        raise ValueError(f"Not allowed: H5 file with virtual Dataset at {dataset.name}")
    size = int(np.prod(dataset.shape, dtype=object)) * dataset.dtype.itemsize
    if size > _MAX_DATASET_BYTES:
        raise ValueError(f"HDF5 dataset too large to load safely ({size} bytes; limit is "
                         f"{_MAX_DATASET_BYTES}).")
    try:
        return dataset[()]
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(f"Could not read dataset '{dataset.name}' (the file may be truncated "
                         f"or corrupted): {e}") from None


def _write_tree(h5, tree, path):
    """Writes nested dicts back in the Keras 3 layout (`<path>/vars/<name>`)."""
    leaves = {k: v for k, v in tree.items() if not isinstance(v, dict)}
    if leaves:
        group = h5.require_group(f"{path}/vars" if path else "vars")
        for name, value in leaves.items():
            group.create_dataset(name, data=np.asarray(value))
    for name, value in tree.items():
        if isinstance(value, dict) and value:
            _write_tree(h5, value, f"{path}/{name}" if path else name)


def weight_spec(obj):
    """What `obj` would write to a weights file: nested dicts of name -> array-like
    with `.shape` (objects without weights left out), as `read_weights_tree` reads it.

    Args:
        obj: a model, layer or optimizer.
    """
    spec = collections.OrderedDict()
    for path, saveable in saving_lib.walk(obj):
        variables = saving_lib.own_variables(saveable)
        if not variables:
            continue
        node = spec
        for element in path.split("/") if path else []:
            node = node.setdefault(element, collections.OrderedDict())
        for index in sorted(range(len(variables)), key=str):  # h5py lists names sorted
            node[str(index)] = variables[index]
    return spec


def _subtrees(tree):
    """Every dict in `tree`, outermost first."""
    found = [tree]
    for value in tree.values():
        if isinstance(value, dict):
            found.extend(_subtrees(value))
    return found


def _check_weights(weights):
    if not isinstance(weights, dict):
        raise ValueError("Argument `weights` should be a dict where keys are weight names "
                         "(usually '0', '1', etc.) and values are NumPy arrays. "
                         f"Received: type(weights)={type(weights)}")


def _plural(count):
    return "" if count == 1 else "s"
