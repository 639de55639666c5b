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


def __getattr__(name):
    target = _ALIASES.get(name, name)
    if target in _LAZY:
        return getattr(importlib.import_module(_LAZY[target]), target)
    raise AttributeError(f"module 'kerasish.utils' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_LAZY) + list(_ALIASES))
