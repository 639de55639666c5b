"""kerasish.applications: Keras's reference architectures, built layer for layer as Keras.

So far VGG16, VGG19, ResNet50/101/152 and V2, MobileNet, MobileNetV2 and
DenseNet121/169/201 (same layer names,
weight shapes and layer order as Keras 3.15.1, hence the same `.weights.h5`
layout and parameter counts). `weights="imagenet"` (the default, as in Keras)
downloads Keras's ImageNet weights once into `~/.keras/models`. Each module
has `preprocess_input` and `decode_predictions`.
"""
from kerasish.applications import (densenet, imagenet_utils, mobilenet, mobilenet_v2, resnet,
                                   resnet50, resnet_v2, vgg16, vgg19)
from kerasish.applications.mobilenet import MobileNet
from kerasish.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from kerasish.applications.mobilenet_v2 import MobileNetV2
from kerasish.applications.resnet import ResNet50, ResNet101, ResNet152
from kerasish.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from kerasish.applications.vgg16 import VGG16
from kerasish.applications.vgg19 import VGG19
