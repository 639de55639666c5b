"""`keras.saving`: weights files, `.keras` archives and the custom-object registry."""
from kerasish.saving.saving_api import load_model, load_weights, save_model, save_weights
from kerasish.saving.serialization import (CustomObjectScope, custom_object_scope,
                                           deserialize_keras_object, get_custom_objects,
                                           get_registered_name, get_registered_object,
                                           register_keras_serializable,
                                           serialize_keras_object)

__all__ = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object", "load_model",
           "load_weights", "register_keras_serializable", "save_model", "save_weights",
           "serialize_keras_object"]
