"""Whole models in the legacy HDF5 format (`model.save("x.h5")`, `load_model("x.h5")`).

A full-model file holds root attributes `model_config` (JSON,
`{"class_name", "config"}`), `training_config` (JSON, when compiled),
`backend`, `keras_version`; the weights in group `model_weights` (the
legacy layout of `legacy_h5`) and the optimizer state in
`optimizer_weights`. Files from Keras 3 and from tf.keras 2 are read
(tf.keras 2 configs use `batch_input_shape`, list-style `inbound_nodes`
and `Custom>Adam` optimizer names); files are written as Keras 3 does.
"""
import json
import logging
import warnings

import numpy as np

from kerasish import optimizers
from kerasish.saving import compat, legacy_h5, serialization

BACKEND = "numpy"
# tf.keras 2 optimizer settings that have no effect in Keras 3 / kerasish.
_LEGACY_OPTIMIZER_KEYS = ("jit_compile", "is_legacy_optimizer")


def save_model(model, h5_file, keras_version, include_optimizer=True):
    """Writes config, training config, weights and optimizer state into `h5_file`.

    Args:
        model: a built model.
        h5_file: an h5py File open for writing.
        keras_version: the version string to record.
        include_optimizer: also write `training_config` and `optimizer_weights`.
    """
    h5_file.attrs["backend"] = BACKEND
    h5_file.attrs["keras_version"] = keras_version
    h5_file.attrs["model_config"] = json.dumps(
        {"class_name": _class_name(model), "config": model.get_config()}, default=json_default)
    compiled = include_optimizer and getattr(model, "compiled", False)
    if compiled:
        h5_file.attrs["training_config"] = json.dumps(_training_config(model),
                                                      default=json_default)
    legacy_h5.save_weights_to_group(h5_file.create_group("model_weights"), model, BACKEND,
                                    keras_version)
    optimizer = getattr(model, "optimizer", None)
    if compiled and optimizer is not None and getattr(optimizer, "built", False):
        group = h5_file.create_group("optimizer_weights")
        legacy_h5.write_variables(group, list(optimizer.variables))


def _class_name(model):
    name = serialization.get_registered_name(type(model))
    return "Functional" if name == "Functional" else name


def _training_config(model):
    config = model._compile_config or {}
    optimizer = model.optimizer
    serialize = serialization.serialize_keras_object
    return {"loss": serialize(config.get("loss")),
            "loss_weights": config.get("loss_weights"),
            "metrics": serialize(config.get("metrics")),
            "weighted_metrics": serialize(config.get("weighted_metrics")),
            "run_eagerly": False, "steps_per_execution": 1, "jit_compile": False,
            "optimizer_config": {"class_name": type(optimizer).__name__,
                                 "config": optimizer.get_config()}}


def json_default(value):
    """`json.dumps` fallback for numpy scalars and arrays."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def load_model(h5_file, source, custom_objects=None, compile=True):
    """Rebuilds, fills and (optionally) compiles the model stored in a legacy file.

    Args:
        h5_file: an open h5py File with a `model_config` attribute.
        source: the file path, for messages.
        custom_objects: dict name -> class/function for user objects.
        compile: compile from `training_config` and restore the optimizer.

    Returns:
        The model.

    Raises:
        ValueError: no `model_config` (a weights-only file), or a config
            that cannot be rebuilt (e.g. an unknown class).
    """
    config = _json_attr(h5_file, "model_config")
    if config is None:
        raise ValueError(
            f"No model config found in the file at {source}: it holds weights only (e.g. "
            "from tf.keras `save_weights`). Rebuild the model in code and call "
            "`model.load_weights(path)`.")
    model = serialization.deserialize_keras_object(compat.normalize(config, legacy=True),
                                                   custom_objects=custom_objects)
    unbuilt = [layer.name for layer in model._flatten_layers() if not layer.built]
    if unbuilt:
        raise ValueError(
            f"{source}: the rebuilt model '{model.name}' is not built (layers {unbuilt}); a "
            "legacy .h5 file records no input shape for a subclassed model. Create the model "
            "in code, call it on a batch of data, then `model.load_weights(path)`.")
    legacy_h5.load_weights(model, h5_file, source=source)
    if compile:
        _compile(model, h5_file, source, custom_objects)
    return model


def _json_attr(h5_file, name):
    value = h5_file.attrs.get(name)
    if value is None:
        return None
    if isinstance(value, (bytes, np.bytes_)):
        value = value.decode("utf8")
    else:
        value.encode("utf8")  # h5py keeps undecodable bytes as surrogates: a damaged file
    return json.loads(value)


def _compile(model, h5_file, source, custom_objects):
    training = _json_attr(h5_file, "training_config")
    if training is None:
        logging.getLogger("kerasish").warning(
            "No training configuration found in %s, so the model was *not* compiled. Compile "
            "it manually.", source)
        return
    optimizer = deserialize_optimizer(training["optimizer_config"], custom_objects)
    model.compile(optimizer=optimizer,
                  loss=resolve_compile_object(training.get("loss"), custom_objects),
                  loss_weights=training.get("loss_weights"),
                  metrics=resolve_compile_object(training.get("metrics"), custom_objects),
                  weighted_metrics=resolve_compile_object(training.get("weighted_metrics"),
                                                          custom_objects))
    model.optimizer.build(model.trainable_variables)
    if "optimizer_weights" in h5_file:
        _load_optimizer_weights(model.optimizer, h5_file["optimizer_weights"], source)


def deserialize_optimizer(config, custom_objects=None):
    """An optimizer from a Keras 3 or tf.keras 2 (`Custom>Adam`) config.

    Args:
        config: `{"class_name", "config"[, "module", "registered_name"]}` or a name.
        custom_objects: dict name -> class for custom optimizers.

    Returns:
        A fresh optimizer.
    """
    if not isinstance(config, dict):
        return optimizers.get(config)
    cls = serialization.find_class(config, custom_objects)
    if cls is not None and not _is_builtin_optimizer(cls):
        return cls.from_config(dict(config.get("config") or {}))
    class_name = str(config["class_name"])
    if class_name.startswith("Custom>"):
        class_name = class_name[len("Custom>"):]
    settings = {k: v for k, v in (config.get("config") or {}).items()
                if k not in _LEGACY_OPTIMIZER_KEYS}
    return optimizers.deserialize({"class_name": class_name, "config": settings},
                                  custom_objects=custom_objects)


def _is_builtin_optimizer(cls):
    return cls in optimizers.ALL_OBJECTS


def resolve_compile_object(value, custom_objects=None):
    """Loss/metric entries of a compile config: configs and registered names -> objects."""
    if isinstance(value, dict) and "class_name" in value and "config" in value:
        return serialization.deserialize_keras_object(value, custom_objects=custom_objects)
    if isinstance(value, str):
        found = serialization.get_registered_object(value, custom_objects)
        return value if found is None else found
    if isinstance(value, list):
        return [resolve_compile_object(v, custom_objects) for v in value]
    if isinstance(value, dict):
        return {k: resolve_compile_object(v, custom_objects) for k, v in value.items()}
    return value


def _load_optimizer_weights(optimizer, group, source):
    names = legacy_h5.read_attr_list(group, "weight_names")
    values = [np.asarray(group[name]) for name in names]
    variables = list(optimizer.variables)
    if len(values) == len(variables) - 1 and _has_learning_rate_variable(optimizer):
        variables = [v for v in variables if v is not optimizer._learning_rate]  # tf.keras 2
    problem = _optimizer_mismatch(variables, values)
    if problem:
        warnings.warn(f"Error in loading the saved optimizer state from {source} ({problem}). "
                      "As a result, your model is starting with a freshly initialized optimizer.",
                      stacklevel=4)
        return
    for variable, value in zip(variables, values):
        variable.assign(value)


def _has_learning_rate_variable(optimizer):
    lr = getattr(optimizer, "_learning_rate", None)
    return any(v is lr for v in optimizer.variables)


def _optimizer_mismatch(variables, values):
    if len(variables) != len(values):
        return f"the optimizer has {len(variables)} variables, the file {len(values)}"
    for v, value in zip(variables, values):
        if tuple(v.shape) != value.shape:
            return f"variable '{v.path}' has shape {tuple(v.shape)}, the file {value.shape}"
    return None
