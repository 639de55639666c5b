"""`keras.saving`: weights files, `.keras` archives and the custom-object registry."""
from kerasish.saving import lib_entry_points, saving_lib
from kerasish.saving.file_editor import KerasFileEditor
from kerasish.saving.saving_api import load_model, load_weights, save_model, save_weights
from kerasish.saving.serialization import (CustomObjectScope, custom_object_scope,
                                           get_custom_objects,
                                           get_registered_name, get_registered_object,
                                           register_keras_serializable)
# the public function gives Keras's output (build/compile configs, function dicts)
from kerasish.utils.registry import deserialize_object_as_keras as deserialize_keras_object
from kerasish.utils.registry import serialize_object_as_keras as serialize_keras_object

# Keras keeps these in keras.src.saving.saving_lib (they sit above it here).
saving_lib.save_model = lib_entry_points.save_model
saving_lib.load_model = lib_entry_points.load_model
saving_lib.save_weights_only = lib_entry_points.save_weights_only
saving_lib.load_weights_only = lib_entry_points.load_weights_only

__all__ = ["CustomObjectScope", "KerasFileEditor", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object", "load_model",
           "load_weights", "register_keras_serializable", "save_model", "save_weights",
           "serialize_keras_object"]
