"""`keras.utils`: data helpers, seeding, progress bar, and nested-structure tools.

This package is the lowest floor (pure-Python helpers every other package
may use), so its `__init__` imports only modules of that floor. The
`keras.utils` names whose code lives on higher floors (`PyDataset`,
`Progbar`, `set_random_seed`, `is_keras_tensor`, `clear_session`,
`plot_model`, ...) are added to this namespace by `kerasish/__init__.py`, the
top floor.
"""
from kerasish.utils.config import Config
from kerasish.utils.file_utils import get_file
from kerasish.utils.learning_curves import plot_history
from kerasish.utils.numerical_utils import normalize, to_categorical
from kerasish.utils.registry import (CustomObjectScope, custom_object_scope,
                                     get_custom_objects,
                                     get_registered_name, get_registered_object,
                                     register_keras_serializable)
from kerasish.utils.registry import deserialize_object_as_keras as deserialize_keras_object
from kerasish.utils.registry import serialize_object_as_keras as serialize_keras_object
from kerasish.utils.sequence_utils import pad_sequences
