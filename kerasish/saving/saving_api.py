"""Public saving entry points: save_weights, load_weights, save_model, load_model.

Formats: Keras 3 `.weights.h5`; the `.keras` zip (metadata.json,
config.json, model.weights.h5, stored uncompressed); legacy `.h5`/`.hdf5`
(tf.keras 2 and Keras 3 `model.save("x.h5")`: read, and written by
`model.save("x.h5")`). Every write is atomic (a failure leaves any previous
file intact) and every load is all or nothing (a failure leaves the
model's weights unchanged).
"""
import datetime
import errno
import io
import json
import os
import zipfile

import h5py

from kerasish.layers import symbolic
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import _overrides
from kerasish.saving import (atomic, compat, file_errors, legacy_h5, legacy_model,
                             saving_lib, serialization, sharded_weights)
from kerasish.utils import io_utils

KERAS_VERSION = "3.15.1"
_LEGACY_SUFFIXES = (".h5", ".hdf5")
_LEGACY_SAVE_WARNING = (
    "You are saving your model as an HDF5 file via `model.save()` or "
    "`keras.saving.save_model(model)`. This file format is considered legacy. We recommend "
    "using instead the native Keras format, e.g. `model.save('my_model.keras')` or "
    "`keras.saving.save_model(model, 'my_model.keras')`. ")


_UNBUILT = {"save weights": "You are saving a model that has not yet been built.",
            "load weights": "You are loading weights into a model that has not yet been built.",
            "save the model": "You are saving a model that has not yet been built."}


def _require_built(model, action):
    unbuilt = saving_lib.unbuilt_layers(model)
    if unbuilt:
        raise ValueError(
            f"Cannot {action}: {_UNBUILT[action]} Layer {unbuilt[0].name!r} of model "
            f"{model.name!r} was never built "
            "and so has no variables yet. Call the model on a batch of data (or `model.build`) "
            "first."
        )


def save_weights(model, filepath, overwrite=True, max_shard_size=None):
    """Writes `model`'s weights (and built optimizer state) to `<name>.weights.h5`, or
    sharded (`max_shard_size`) to `<name>.weights.json` and `<name>_00000.weights.h5`, ...

    Args:
        model: a built model.
        filepath: path ending in `.weights.h5`, or with `max_shard_size` in
            `.weights.json` (a `.weights.h5` one is renamed, with Keras's warning).
        overwrite: replace an existing file (atomically) when True.
        max_shard_size: None, or the largest shard in GB (Keras's split; see
            `kerasish.saving.sharded_weights`).

    Example:
        >>> model.save_weights("model.weights.h5")
        >>> model.save_weights("big.weights.json", max_shard_size=2)   # 2 GB shards
    """
    filepath = os.fspath(filepath)
    if max_shard_size is None and not filepath.endswith(".weights.h5"):
        raise ValueError(
            f"The filename must end in `.weights.h5`. Received: filepath={filepath}"
        )
    if max_shard_size is not None and not filepath.endswith(("weights.h5", "weights.json")):
        raise ValueError("The filename must end in `.weights.json` when `max_shard_size` is "
                         f"specified. Received: filepath={filepath}")
    _require_built(model, "save weights")
    if max_shard_size is not None:
        atomic.check_destination(filepath, overwrite)
        sharded_weights.write_sharded_weights(model, filepath, max_shard_size)
        return
    with atomic.atomic_path(filepath, overwrite) as tmp:
        saving_lib.write_weights(model, tmp)


class MissingFileError(FileNotFoundError, ValueError):
    """A file to load does not exist (a ValueError too, as Keras raises)."""


def _missing_weights_file(filepath):
    """Keras's error for `load_weights` from a missing file (h5py's or zipfile's text)."""
    if filepath.endswith((".keras", ".json")):
        return FileNotFoundError(errno.ENOENT, "No such file or directory", filepath)
    return FileNotFoundError(
        errno.ENOENT, "Unable to synchronously open file (unable to open file: name = "
        f"'{filepath}', errno = 2, error message = 'No such file or directory', flags = 0, "
        "o_flags = 0)")


def _check_exists(filepath, weights=False):
    if not os.path.exists(filepath):
        if weights:
            raise _missing_weights_file(filepath)
        raise MissingFileError(f"No such file: {filepath!r}. File not found: filepath={filepath}. "
                               "Please ensure the file is an accessible `.keras` zip file.")
    if os.path.isdir(filepath):
        raise IsADirectoryError(
            f"{filepath!r} is a directory; expected a `.keras`, `.weights.h5` or `.h5` file "
            "(SavedModel folders from TensorFlow are not supported).")
    file_errors.check_readable(filepath)


def _open_h5(filepath, data=None):
    return file_errors.open_h5(filepath, data)


def load_weights(model, filepath, skip_mismatch=False, by_name=False, **kwargs):
    """Loads weights from `.weights.h5`, `.keras` or legacy `.h5`/`.hdf5` files.

    All or nothing: on any mismatch nothing is assigned.

    Args:
        model: the model to fill (built).
        filepath: the file.
        skip_mismatch: warn and skip layers whose weights do not fit.
        by_name: legacy `.h5` only: match layers by name instead of order.

    Raises:
        FileNotFoundError: no such file.
        ValueError: not a weights file, or weights that do not fit (the
            message names the file, layer, variable and both shapes).
    """
    filepath = os.fspath(filepath)
    if kwargs:
        raise TypeError(f"load_weights() got unexpected keyword arguments {sorted(kwargs)}.")
    if filepath.endswith(".weights.json"):
        return _load_sharded(model, filepath, skip_mismatch, by_name)
    if not filepath.endswith((".keras",) + _LEGACY_SUFFIXES):
        raise ValueError(
            f"File format not supported: filepath={filepath}. kerasish reads `.keras`, "
            "`.weights.h5`, sharded `.weights.json` and legacy `.h5`/`.hdf5` weight files."
        )
    _check_exists(filepath, weights=True)
    _require_built(model, "load weights")
    if filepath.endswith(".keras"):
        if by_name:
            raise ValueError("by_name=True is only supported for legacy `.h5` weight files.")
        data = _read_archive(filepath, "model.weights.h5")
        with _open_h5(filepath, data) as f, file_errors.damage_is_named(filepath):
            saving_lib.read_weights(model, f, skip_mismatch=skip_mismatch, source=filepath)
        return
    with _open_h5(filepath) as f, file_errors.damage_is_named(filepath):
        if legacy_h5.is_legacy(f):
            legacy_h5.load_weights(model, f, by_name=by_name, skip_mismatch=skip_mismatch,
                                   source=filepath)
        else:
            if by_name:
                raise ValueError("by_name=True is only supported for legacy `.h5` weight files "
                                 f"({filepath!r} uses the Keras 3 `.weights.h5` layout).")
            saving_lib.read_weights(model, f, skip_mismatch=skip_mismatch, source=filepath)


def _load_sharded(model, filepath, skip_mismatch, by_name):
    """Loads `save_weights(..., max_shard_size=...)`'s json map and shards."""
    if by_name:
        raise ValueError("`by_name` only supports loading legacy '.h5' or '.hdf5' files. "
                         f"Received: {filepath}")
    _check_exists(filepath, weights=True)
    _require_built(model, "load weights")
    with sharded_weights.read_sharded_weights(filepath) as merged:
        saving_lib.read_weights(model, merged, skip_mismatch=skip_mismatch, source=filepath)


def _open_zip(filepath):
    try:
        return zipfile.ZipFile(filepath, "r")
    except (zipfile.BadZipFile, OSError) as e:
        raise ValueError(f"{filepath!r} is not a valid `.keras` archive (not a zip file, or "
                         f"truncated): {e}") from None


def _read_archive(filepath, member):
    with _open_zip(filepath) as archive:
        return _read_member(filepath, archive, member)


def _read_member(filepath, archive, member):
    """One member's bytes; a decompression bomb is refused before it is read."""
    try:
        return saving_lib._safe_zip_read(archive, member)
    except KeyError as e:
        raise ValueError(f"{filepath!r} is missing {e} (not a Keras model archive).") from None
    except (zipfile.BadZipFile, OSError, EOFError) as e:   # e.g. bad CRC in a damaged file
        raise ValueError(f"{filepath!r} is a damaged `.keras` archive: {e}") from None


def _compile_config(model):
    if not getattr(model, "compiled", False):
        return {}
    config = dict(model._compile_config)
    config["optimizer"] = serialization.serialize_keras_object(model.optimizer)
    for key in ("loss", "metrics", "weighted_metrics"):
        config[key] = serialization.serialize_keras_object(config.get(key))
    config.update({"run_eagerly": False, "steps_per_execution": 1, "jit_compile": False})
    return config


def model_config(model):
    """The `config.json` content of a `.keras` archive.

    Args:
        model: the model.

    Returns:
        dict with module, class_name, config, registered_name, build_config
        and compile_config, as Keras 3 writes it.
    """
    entry = serialization.serialize_keras_object(model)
    kind = type(model).__name__
    if kind == "Functional":
        entry.update({"module": "keras.src.models.functional", "registered_name": "Functional"})
        entry["build_config"] = {"input_shape": None}
    else:
        if kind == "Sequential" and type(model).__module__.startswith("kerasish."):
            entry["module"] = "keras"
        build = model.get_build_config()
        entry["build_config"] = _jsonable(build) if build else None
    entry["compile_config"] = _compile_config(model)
    return entry


def _jsonable(value):
    """A copy of nested dicts/lists/tuples; tuples stay tuples as in Keras's
    `serialize_dict` (a nested model's get_config shows `(None, 4)`; JSON writes lists)."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_jsonable(v) for v in value)
    return value


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Writes config + weights (+ optimizer state) to `.keras` (or legacy `.h5`).

    Args:
        model: a built model.
        filepath: path ending in `.keras` (or `.h5`/`.hdf5` for the legacy format).
        overwrite: replace an existing file (atomically) when True.
        zipped: only the zipped `.keras` format is supported.
        include_optimizer: legacy `.h5` only: False leaves out the training
            config and the optimizer state.

    Example:
        >>> model.save("model.keras")
        >>> restored = keras.models.load_model("model.keras")
    """
    if _is_file_object(filepath, "write"):  # a writable binary file: the `.keras` zip bytes
        if kwargs.keys() - {"include_optimizer"}:
            raise ValueError(f"save(): The following argument(s) are not supported: "
                             f"{sorted(kwargs.keys() - {'include_optimizer'})}")
        filepath.write(_keras_archive(model))
        return
    filepath = os.fspath(filepath)
    include_optimizer = kwargs.pop("include_optimizer", True)
    if "save_format" in kwargs:
        raise ValueError(
            "The `save_format` argument is deprecated in Keras 3. Please remove this argument "
            "and pass a file path with either `.keras` or `.h5` extension. Received: "
            f"save_format={kwargs['save_format']}")
    if kwargs:
        raise ValueError(f"save(): The following argument(s) are not supported: {sorted(kwargs)}")
    if filepath.endswith(_LEGACY_SUFFIXES):
        # Keras logs this (absl WARNING, to stderr) on every legacy save
        io_utils.logger.warning(_LEGACY_SAVE_WARNING)
        _require_built(model, "save the model")
        with atomic.atomic_path(filepath, overwrite) as tmp:
            with h5py.File(tmp, "w") as f:
                legacy_model.save_model(model, f, KERAS_VERSION, include_optimizer)
        return
    if not filepath.endswith(".keras"):
        raise ValueError(
            "Invalid filepath extension for saving. Please add either a `.keras` extension for "
            "the native Keras format (recommended) or a `.h5` extension. Use "
            "`model.export(filepath)` if you want to export a SavedModel for use with "
            f"TFLite/TFServing/etc. Received: filepath={filepath}."
        )
    if zipped is False:
        raise NotImplementedError("save(zipped=False) (an unzipped folder) is not supported by "
                                  "kerasish; save a zipped `.keras` file.")
    archive = _keras_archive(model)
    with atomic.atomic_path(filepath, overwrite) as tmp:
        with open(tmp, "wb") as f:
            f.write(archive)


def _is_file_object(value, method):
    return hasattr(value, method) and not isinstance(value, (str, bytes, os.PathLike))


def _keras_archive(model):
    """The bytes of `model`'s `.keras` zip (stored, not compressed). An unbuilt model
    saves its config and no weights, and loads back unbuilt (as Keras)."""
    config = json.dumps(model_config(model), default=legacy_model.json_default)
    metadata = json.dumps({"keras_version": KERAS_VERSION,
                           "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")})
    weights = io.BytesIO()
    saving_lib.write_weights(model, weights)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("metadata.json", metadata)
        archive.writestr("config.json", config)
        archive.writestr("model.weights.h5", weights.getvalue())
        saving_lib.write_assets(model, lambda name, path: archive.write(path, name))
    return buffer.getvalue()


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Rebuilds a model saved with `model.save`: config, weights, optimizer state.

    Reads `.keras` archives (Keras 3 and kerasish) and legacy full-model
    `.h5`/`.hdf5` files (Keras 3 and tf.keras 2).

    Args:
        filepath: the file.
        custom_objects: dict name -> class/function for custom objects
            that are not registered with `register_keras_serializable`.
        compile: compile the model as saved (and restore the optimizer).
        safe_mode: refuse to deserialize Python code (Lambda layers).

    Returns:
        The model.

    Raises:
        FileNotFoundError: no such file.
        ValueError: not a model file, an unknown class (named, with a hint
            to `custom_objects`), or weights that do not fit.

    Example:
        >>> model = keras.models.load_model("model.keras", custom_objects={"MyLayer": MyLayer})
    """
    if _is_file_object(filepath, "read"):  # a readable binary file holding a `.keras` zip
        with serialization.custom_object_scope(custom_objects or {}), \
                serialization.safe_mode_scope(safe_mode):
            return _load_keras_archive(io.BytesIO(filepath.read()), custom_objects, compile)
    filepath = os.fspath(filepath)
    if not filepath.endswith((".keras",) + _LEGACY_SUFFIXES):
        raise ValueError(
            f"File format not supported: filepath={filepath}. kerasish's load_model reads "
            "`.keras` archives and legacy `.h5`/`.hdf5` full-model files."
        )
    _check_exists(filepath)
    with serialization.custom_object_scope(custom_objects or {}), \
            serialization.safe_mode_scope(safe_mode):
        if filepath.endswith(_LEGACY_SUFFIXES):
            with _open_h5(filepath) as f, file_errors.damage_is_named(filepath):
                return legacy_model.load_model(f, filepath, custom_objects, compile)
        return _load_keras_archive(filepath, custom_objects, compile)


def _load_keras_archive(filepath, custom_objects, compile):
    """Keras's order: config.json, the model, model.weights.h5, then the assets (the
    whole archive checked for extraction bombs first when it has any)."""
    with _open_zip(filepath) as archive:
        model = _model_from_archive(filepath, archive, custom_objects, compile)
        data = _read_member(filepath, archive, "model.weights.h5")
        with _open_h5(filepath, data) as f, file_errors.damage_is_named(filepath):
            saving_lib.read_weights(model, f, source=filepath)
        names = archive.namelist()
        if len(names) > 3:  # metadata, config, weights + assets
            saving_lib._reject_zip_extract_bomb(archive)
        saving_lib.read_assets(model, names,
                               lambda name: saving_lib._safe_zip_read(archive, name))
    return model


def _model_from_archive(filepath, archive, custom_objects, compile):
    config_bytes = _read_member(filepath, archive, "config.json")
    try:
        config = json.loads(config_bytes)
    except ValueError as e:
        raise ValueError(f"{filepath!r}: config.json is not valid JSON: {e}") from None
    model = serialization.deserialize_keras_object(compat.normalize(config),
                                                   custom_objects=custom_objects)
    _build_for_loading(model, config.get("build_config"))
    compile_config = config.get("compile_config") or {}
    if compile and compile_config:
        if callable(getattr(model, "compile_from_config", None)):
            model.compile_from_config(compile_config)   # overridable, as in Keras
        else:
            _compile_from_config(model, compile_config, custom_objects)
    return model


def _build_for_loading(model, build_config):
    """Builds every layer from the saved input shape (subclassed models included).

    As Keras 3 does for a model without its own `build()`, a subclassed
    model is traced once on KerasTensors of the saved input shape (inference mode).
    """
    shape = (build_config or {}).get("input_shape")
    if shape is None:
        return
    if not model.built and _overrides(model, "build"):
        model.build_from_config(build_config)
    if saving_lib.unbuilt_layers(model):
        # Keras's Model.build_from_config runs `call` itself, outside the model's name
        # scope: the loaded weights' paths are "dense/kernel", not "net/dense/kernel"
        symbolic.trace_call(model, [_placeholders(shape, KerasTensor, model.compute_dtype)], {},
                            scoped=False)


def _placeholders(shape, make, dtype):
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
        return [_placeholders(s, make, dtype) for s in shape]
    return make(tuple(shape), dtype)


def _compile_from_config(model, config, custom_objects):
    optimizer = config.get("optimizer", "rmsprop")
    resolve = legacy_model.resolve_compile_object
    model.compile(optimizer=legacy_model.deserialize_optimizer(optimizer, custom_objects),
                  loss=resolve(config.get("loss"), custom_objects),
                  loss_weights=config.get("loss_weights"),
                  metrics=resolve(config.get("metrics"), custom_objects),
                  weighted_metrics=resolve(config.get("weighted_metrics"), custom_objects))
    model.optimizer.build(model.trainable_variables)
