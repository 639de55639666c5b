"""Public saving entry points: save_weights, load_weights, save_model, load_model.

Formats: Keras 3 `.weights.h5`; the `.keras` zip (metadata.json,
config.json, model.weights.h5, stored uncompressed); legacy `.h5` weights
from tf.keras 2 / Keras 3 (read). Every write is atomic.
"""
import datetime
import io
import json
import zipfile

import h5py

from kerasish.saving import atomic, legacy_h5, saving_lib, serialization

KERAS_VERSION = "3.15.1"


def _require_built(model, action):
    unbuilt = saving_lib.unbuilt_layers(model)
    if unbuilt:
        raise ValueError(
            f"Cannot {action}: layer '{unbuilt[0].name}' of model '{model.name}' was never built "
            "and so has no variables yet. Call the model on a batch of data (or `model.build`) first."
        )


def save_weights(model, filepath, overwrite=True, max_shard_size=None):
    """Writes `model`'s weights (and built optimizer state) to `<name>.weights.h5`."""
    filepath = str(filepath)
    if not filepath.endswith(".weights.h5"):
        raise ValueError(
            f"The filename must end in `.weights.h5`. Received: filepath={filepath}"
        )
    if max_shard_size is not None:
        raise NotImplementedError("save_weights(max_shard_size=...) sharding is not supported yet.")
    _require_built(model, "save weights")
    with atomic.atomic_path(filepath, overwrite) as tmp:
        saving_lib.write_weights(model, tmp)


def _open_h5(filepath, data=None):
    try:
        return h5py.File(io.BytesIO(data) if data is not None else filepath, "r")
    except OSError as e:
        raise ValueError(
            f"{filepath!r} is not a readable HDF5 weights file (truncated or another format): {e}"
        ) from None


def load_weights(model, filepath, skip_mismatch=False, by_name=False, **kwargs):
    """Loads weights from `.weights.h5`, `.keras` or legacy `.h5`/`.hdf5` files."""
    filepath = str(filepath)
    if filepath.endswith(".keras"):
        with _open_zip(filepath) as archive:
            data = archive.read("model.weights.h5")
        with _open_h5(filepath, data) as f:
            saving_lib.read_weights(model, f, skip_mismatch=skip_mismatch)
        return
    if not filepath.endswith((".h5", ".hdf5")):
        raise ValueError(
            f"File format not supported: filepath={filepath}. kerasish reads `.keras`, "
            "`.weights.h5` and legacy `.h5`/`.hdf5` weight files."
        )
    _require_built(model, "load weights")
    with _open_h5(filepath) as f:
        if legacy_h5.is_legacy(f):
            legacy_h5.load_weights(model, f, by_name=by_name, skip_mismatch=skip_mismatch)
        else:
            if by_name:
                raise ValueError("by_name=True is only supported for legacy `.h5` weight files.")
            saving_lib.read_weights(model, f, skip_mismatch=skip_mismatch)


def _open_zip(filepath):
    try:
        return zipfile.ZipFile(filepath, "r")
    except (zipfile.BadZipFile, OSError) as e:
        raise ValueError(f"{filepath!r} is not a valid `.keras` archive: {e}") from None


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
    """The `config.json` content of a `.keras` archive."""
    entry = serialization.serialize_keras_object(model)
    if type(model).__name__ == "Functional":
        entry.update({"module": "keras.src.models.functional", "registered_name": "Functional"})
        entry["build_config"] = {"input_shape": None}
    else:
        build = model.get_build_config()
        entry["build_config"] = _jsonable(build) if build else None
    entry["compile_config"] = _compile_config(model)
    return entry


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Writes config + weights (+ optimizer state) to a `.keras` zip archive."""
    filepath = str(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError(
            "Invalid filepath extension for saving. Please add a `.keras` extension (kerasish "
            f"writes the Keras 3 zip format). Received: filepath={filepath}"
        )
    if zipped is False:
        raise NotImplementedError("save(zipped=False) (an unzipped folder) is not supported.")
    _require_built(model, "save the model")
    config = json.dumps(model_config(model), default=_json_default)
    metadata = json.dumps({"keras_version": KERAS_VERSION,
                           "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")})
    weights = io.BytesIO()
    saving_lib.write_weights(model, weights)
    with atomic.atomic_path(filepath, overwrite) as tmp:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr("metadata.json", metadata)
            archive.writestr("config.json", config)
            archive.writestr("model.weights.h5", weights.getvalue())


def _json_default(value):
    import numpy as np
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Rebuilds a model saved with `model.save(...keras)`: config, weights, optimizer."""
    filepath = str(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError(
            f"File format not supported: filepath={filepath}. kerasish's load_model reads "
            "`.keras` archives (legacy `.h5` full-model files: load_weights into a rebuilt model)."
        )
    with _open_zip(filepath) as archive:
        try:
            config = json.loads(archive.read("config.json"))
            data = archive.read("model.weights.h5")
        except KeyError as e:
            raise ValueError(f"{filepath!r} is missing {e} (not a Keras model archive).") from None
    with serialization.safe_mode_scope(safe_mode):
        model = serialization.deserialize_keras_object(config, custom_objects=custom_objects)
    build = config.get("build_config")
    if not model.built and build and build.get("input_shape") is not None:
        model.build_from_config(build)
    compile_config = config.get("compile_config") or {}
    if compile and compile_config:
        _compile_from_config(model, compile_config, custom_objects)
    with _open_h5(filepath, data) as f:
        saving_lib.read_weights(model, f)
    return model


def _compile_from_config(model, config, custom_objects):
    from kerasish import optimizers
    optimizer = optimizers.deserialize(config["optimizer"], custom_objects=custom_objects) \
        if isinstance(config.get("optimizer"), dict) else config.get("optimizer", "rmsprop")
    model.compile(optimizer=optimizer, loss=_maybe_object(config.get("loss"), custom_objects),
                  loss_weights=config.get("loss_weights"),
                  metrics=_maybe_object(config.get("metrics"), custom_objects),
                  weighted_metrics=_maybe_object(config.get("weighted_metrics"), custom_objects))
    model.optimizer.build(model.trainable_variables)


def _maybe_object(value, custom_objects):
    if isinstance(value, dict) and "class_name" in value and "config" in value:
        return serialization.deserialize_keras_object(value, custom_objects=custom_objects)
    if isinstance(value, list):
        return [_maybe_object(v, custom_objects) for v in value]
    if isinstance(value, dict):
        return {k: _maybe_object(v, custom_objects) for k, v in value.items()}
    return value
