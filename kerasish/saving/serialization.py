"""Object <-> config dicts in Keras 3's format, and the custom-object registry.

A serialized object looks like Keras 3's:
`{"module": "keras.layers", "class_name": "Dense", "config": {...}, "registered_name": None}`.
The registry itself lives on the lowest floor (`kerasish.utils.registry`), so
that initializers, losses, ... use it without loading the saving API; these
are its Keras-facing names.
"""
from kerasish.utils.registry import (CustomObjectScope, custom_object_scope,
                                     deserialize_keras_object, find_class, get_custom_objects,
                                     get_registered_name, get_registered_object, in_safe_mode,
                                     register_keras_serializable, safe_mode_scope,
                                     serialize_keras_object)

__all__ = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object", "find_class",
           "get_custom_objects", "get_registered_name", "get_registered_object", "in_safe_mode",
           "register_keras_serializable", "safe_mode_scope", "serialize_keras_object"]
