"""`keras.utils`: data helpers, seeding, progress bar, and nested-structure tools.

Names are imported on first use (PEP 562), so `import kerasish` stays light
and the modules here may depend on the rest of the package.
"""
import importlib

_LAZY = {
    "to_categorical": "kerasish.utils.numerical_utils",
    "normalize": "kerasish.utils.numerical_utils",
    "pad_sequences": "kerasish.utils.sequence_utils",
    "get_file": "kerasish.utils.file_utils",
    "Progbar": "kerasish.utils.progbar",
    "PyDataset": "kerasish.data",
    "unpack_x_y_sample_weight": "kerasish.trainers.data_adapters",
    "pack_x_y_sample_weight": "kerasish.trainers.data_adapters",
    "register_keras_serializable": "kerasish.saving.serialization",
    "serialize_keras_object": "kerasish.saving.serialization",
    "deserialize_keras_object": "kerasish.saving.serialization",
    "custom_object_scope": "kerasish.saving.serialization",
    "CustomObjectScope": "kerasish.saving.serialization",
    "get_custom_objects": "kerasish.saving.serialization",
    "get_registered_name": "kerasish.saving.serialization",
    "get_registered_object": "kerasish.saving.serialization",
    "clear_session": "kerasish.backend",
    "standardize_dtype": "kerasish.backend",
    "load_img": "kerasish.utils.image_utils",
    "img_to_array": "kerasish.utils.image_utils",
    "array_to_img": "kerasish.utils.image_utils",
    "save_img": "kerasish.utils.image_utils",
    "split_dataset": "kerasish.utils.dataset_utils",
    "image_dataset_from_directory": "kerasish.utils.image_dataset_utils",
    "text_dataset_from_directory": "kerasish.utils.text_dataset_utils",
    "timeseries_dataset_from_array": "kerasish.utils.timeseries_dataset_utils",
    "audio_dataset_from_directory": "kerasish.utils.audio_dataset_utils",
    "FeatureSpace": "kerasish.layers.preprocessing.feature_space",
}
_ALIASES = {"Sequence": "PyDataset"}


def set_random_seed(seed):
    """Seeds Python's `random`, numpy and every kerasish device generator.

    Args:
        seed: an int.

    Example:
        >>> keras.utils.set_random_seed(42)
    """
    from kerasish import random
    random.set_seed(int(seed))


def is_keras_tensor(x):
    """True if `x` is a symbolic KerasTensor (from `keras.Input` or a layer call on one)."""
    from kerasish.layers.keras_tensor import KerasTensor
    return isinstance(x, KerasTensor)


def get_source_inputs(tensor):
    """The `keras.Input` tensors that `tensor` was computed from (a list).

    Example:
        >>> x = keras.Input((3,)); y = keras.layers.Dense(2)(x)
        >>> keras.utils.get_source_inputs(y) == [x]
        True
    """
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return [tensor]
    layer, node_index, _ = history
    node = layer._inbound_nodes[node_index]
    if node.is_input:
        return [tensor]
    sources = []
    for t in node.input_tensors:
        for source in get_source_inputs(t):
            if all(source is not s for s in sources):
                sources.append(source)
    return sources


def plot_model(model, to_file="model.png", *args, **kwargs):
    """Keras's `plot_model` needs pydot and graphviz; like Keras, raises when pydot is missing."""
    try:
        import pydot  # noqa: F401
    except ImportError:
        raise ImportError("You must install pydot (`pip install pydot`) for `plot_model` "
                          "to work.") from None
    raise NotImplementedError("kerasish does not draw model graphs; use `model.summary()`.")


def __getattr__(name):
    target = _ALIASES.get(name, name)
    if target in _LAZY:
        return getattr(importlib.import_module(_LAZY[target]), target)
    raise AttributeError(f"module 'kerasish.utils' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_LAZY) + list(_ALIASES))
