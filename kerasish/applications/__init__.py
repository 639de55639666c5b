"""kerasish.applications: Keras's reference architectures, built layer for layer as Keras builds them.

So far VGG16, VGG19, ResNet50/101/152 and MobileNetV2 (same layer names,
weight shapes and layer order as Keras 3.15.1, hence the same `.weights.h5`
layout and parameter counts). Each module has `preprocess_input`.
"""
from kerasish.applications import mobilenet_v2, resnet, vgg16, vgg19
from kerasish.applications.mobilenet_v2 import MobileNetV2
from kerasish.applications.resnet import ResNet50, ResNet101, ResNet152
from kerasish.applications.vgg16 import VGG16
from kerasish.applications.vgg19 import VGG19
