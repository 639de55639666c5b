"""Sharded weights (`save_weights(..., max_shard_size=...)`), in Keras 3's layout.

A `<name>.weights.json` file holds `{"metadata": {"total_size": bytes},
"weight_map": {"/<path>/vars": "<name>_00000.weights.h5", ...}}` and the
variables go, in the order of the single-file layout, into
`<name>_00000.weights.h5`, `<name>_00001.weights.h5`, ...: a new shard starts
when the next variable would take the current one over `max_shard_size` GB
(as Keras's `ShardedH5IOStore`: the same files, names and split).
"""
import io
import json
import math
import os
import pathlib
import warnings

import h5py
import numpy as np

from kerasish.saving import saving_lib


def _readable_size(size):
    """Keras's `readable_memory_size`: bytes as "12.34 MB"."""
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def json_path(filepath, mode):
    """`filepath` with the `.json` suffix sharded weights need (Keras warns, then renames)."""
    path = pathlib.Path(filepath)
    if path.suffix != ".json":
        new_path = path.with_suffix(".json")
        warnings.warn(f"{'Saving' if mode == 'w' else 'Loading'} sharded weights requires "
                      f"`*.json` as the extension. The original path: {path} will be renamed "
                      f"to {new_path}.", stacklevel=4)
        path = new_path
    return path


def write_sharded_weights(model, filepath, max_shard_size):
    """Writes `model`'s weights as `<name>.weights.json` and its `.weights.h5` shards.

    Args:
        model: a built model.
        filepath: the `.weights.json` path (another suffix is replaced, with a warning).
        max_shard_size: the largest shard, in GB (float).

    Raises:
        ValueError: one variable alone is larger than `max_shard_size`.
    """
    path = json_path(filepath, "w")
    limit = float(max_shard_size) * 1024 ** 3
    base = path.stem.replace(".weights", "")
    shards, weight_map = [], {}
    total = current = 0
    h5 = None
    try:
        for group_path, name, items in saving_lib.weight_entries(model):
            group_name = f"/{group_path}"
            for key, value in items:
                value = np.asarray(value)
                size = math.prod(value.shape) * value.dtype.itemsize * 8 / 8
                total += size
                if size > limit:
                    raise ValueError(
                        f"The size of {key} is {_readable_size(size)} which exceeds the "
                        f"maximum shard size {_readable_size(limit)}. You can increase the "
                        "`max_shard_size` parameter to accommodate the size.")
                current += size
                if h5 is None or current > limit:
                    if h5 is not None:
                        h5.close()
                    shards.append(f"{base}_{len(shards):05}.weights.h5")
                    h5 = h5py.File(path.with_name(shards[-1]), "w")
                    current = size
                group = h5.require_group(group_name)
                group.attrs["name"] = name
                group.create_dataset(key, data=value)
                _record(weight_map, group_name, shards[-1])
        if h5 is None:   # no variables: one empty shard, as Keras
            shards.append(f"{base}_00000.weights.h5")
            h5 = h5py.File(path.with_name(shards[-1]), "w")
    finally:
        if h5 is not None:
            h5.close()
    with open(path, "w") as f:
        f.write(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map},
                           indent=4))
    return str(path)


def _record(weight_map, group_name, shard):
    """As Keras: a group's first variable maps it to its shard's name; a second one
    turns that into a list (even within one shard), extended by new shards."""
    known = weight_map.get(group_name)
    if known is None:
        weight_map[group_name] = shard
        return
    if not isinstance(known, list):
        known = weight_map[group_name] = [known]
    if shard not in known:
        known.append(shard)


def read_sharded_weights(filepath):
    """The shards of a `.weights.json` file, seen as one file in the single-file layout.

    Args:
        filepath: the `.weights.json` path (another suffix is replaced, with a warning).

    Returns:
        a `ShardedWeights` (a context manager; `saving_lib.read_weights` reads it).

    Raises:
        FileNotFoundError: the json file or a shard it names is missing.
        ValueError: the json file is not a sharding map.
    """
    path = json_path(filepath, "r")
    with open(path) as f:
        config = json.load(f)
    if not isinstance(config, dict) or not isinstance(config.get("weight_map"), dict):
        raise ValueError(f"{str(path)!r} is not a sharded weights file: it has no "
                         "'weight_map' (expected the `.weights.json` that "
                         "`save_weights(..., max_shard_size=...)` writes).")
    return ShardedWeights(path, config["weight_map"])


class ShardedWeights:
    """Read access to sharded weights by group path (`get("layers/dense/vars")`), each
    shard opened once; a group split over several shards is merged in memory.

    Args:
        path: the `.weights.json` path.
        weight_map: its "weight_map" ({"/<path>/vars": shard name or [names]}).
    """

    def __init__(self, path, weight_map):
        self.path = path
        self.weight_map = {key: names if isinstance(names, list) else [names]
                           for key, names in weight_map.items()}
        self._files = {}
        self._merged = None
        for names in self.weight_map.values():
            for name in names:
                shard = path.with_name(os.path.basename(name))
                if not shard.exists():
                    raise FileNotFoundError(f"The shard {str(shard)!r} named by {str(path)!r} "
                                            "does not exist.")

    def _file(self, name):
        if name not in self._files:
            self._files[name] = h5py.File(self.path.with_name(os.path.basename(name)), "r")
        return self._files[name]

    def __contains__(self, key):
        prefix = f"/{key}"
        return any(k == prefix or k.startswith(prefix + "/") for k in self.weight_map)

    def get(self, key):
        """The h5py group stored under `key` (e.g. "layers/dense/vars"), or None."""
        names = self.weight_map.get(f"/{key}")
        if not names:
            return None
        if len(names) == 1:
            return self._file(names[0]).get(key)
        if self._merged is None:
            self._merged = h5py.File(io.BytesIO(), "w")
        if key not in self._merged:
            merged = self._merged.require_group(key)
            for name in names:
                part = self._file(name).get(key)
                for attr, value in part.attrs.items():
                    merged.attrs[attr] = value
                for dataset in part:
                    merged.create_dataset(dataset, data=part[dataset][()])
        return self._merged[key]

    def close(self):
        for f in self._files.values():
            f.close()
        self._files = {}
        if self._merged is not None:
            self._merged.close()
            self._merged = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
