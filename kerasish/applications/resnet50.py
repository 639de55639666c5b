"""`keras.applications.resnet50`: the ResNet50 names under their Keras 2 module."""
from kerasish.applications.imagenet_utils import decode_predictions
from kerasish.applications.resnet import ResNet50, preprocess_input

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
