"""Keras's `saving_lib` entry points (`keras.src.saving.saving_lib.save_model`, ...).

They call the saving API, which itself builds on `saving_lib`, so they live here and
`kerasish/saving/__init__.py` attaches them to the `saving_lib` module, where Keras has them.
"""
from kerasish.saving import saving_api


def save_model(model, filepath, weights_format="h5", zipped=True):
    """Saves `model` as a `.keras` archive (`keras.saving.save_model`).

    Args:
        model: the model.
        filepath: a path or a writable binary file object.
        weights_format: "h5" (the only format written).
        zipped: write a zip archive (False: an unzipped folder is not supported).

    Example:
        >>> saving_lib.save_model(model, "model.keras")
    """
    if weights_format != "h5":
        raise ValueError(f"save_model: only weights_format='h5' is supported. "
                         f"Received: weights_format={weights_format!r}")
    return saving_api.save_model(model, filepath, zipped=zipped)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Loads a `.keras` archive (`keras.saving.load_model`).

    Example:
        >>> model = saving_lib.load_model("model.keras")
    """
    return saving_api.load_model(filepath, custom_objects=custom_objects, compile=compile,
                                 safe_mode=safe_mode)


def save_weights_only(model, filepath, max_shard_size=None, objects_to_skip=None):
    """Writes only the weights (`model.save_weights`).

    Example:
        >>> saving_lib.save_weights_only(model, "model.weights.h5")
    """
    if objects_to_skip:
        raise NotImplementedError("save_weights_only: `objects_to_skip` is not supported.")
    return saving_api.save_weights(model, filepath, max_shard_size=max_shard_size)


def load_weights_only(model, filepath, skip_mismatch=False, objects_to_skip=None):
    """Reads weights into `model` (`model.load_weights`); also reads a `.keras` archive's weights.

    Example:
        >>> saving_lib.load_weights_only(model, "model.weights.h5")
    """
    if objects_to_skip:
        raise NotImplementedError("load_weights_only: `objects_to_skip` is not supported.")
    return saving_api.load_weights(model, filepath, skip_mismatch=skip_mismatch)
