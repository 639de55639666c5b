"""`keras.utils`: data helpers, seeding, progress bar, and nested-structure tools.

This package is the lowest floor (pure-Python helpers every other package
may use), so it imports nothing of kerasish outside itself. The `keras.utils`
names whose code lives on higher floors (`PyDataset`, `set_random_seed`,
`is_keras_tensor`, `clear_session`, ...) are added to this namespace by
`kerasish/__init__.py`, the top floor.
"""
from kerasish.utils.file_utils import get_file
from kerasish.utils.numerical_utils import normalize, to_categorical
from kerasish.utils.progbar import Progbar
from kerasish.utils.registry import (CustomObjectScope, custom_object_scope,
                                     deserialize_keras_object, get_custom_objects,
                                     get_registered_name, get_registered_object,
                                     register_keras_serializable, serialize_keras_object)
from kerasish.utils.sequence_utils import pad_sequences


def plot_model(model, to_file="model.png", *args, **kwargs):
    """Keras's `plot_model` needs pydot and graphviz; like Keras, raises when pydot is missing."""
    try:
        import pydot  # noqa: F401  # optional dependency
    except ImportError:
        raise ImportError("You must install pydot (`pip install pydot`) for `plot_model` "
                          "to work.") from None
    raise NotImplementedError("kerasish does not draw model graphs; use `model.summary()`.")
