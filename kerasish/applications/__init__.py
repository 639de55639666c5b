"""kerasish.applications: Keras's reference architectures, built layer for layer as Keras builds them.

So far VGG16, ResNet50 and MobileNetV2 (same layer names, weight shapes and
layer order as Keras 3.15.1, hence the same `.weights.h5` layout and
parameter counts). Each module has `preprocess_input`.
"""
from kerasish.applications import mobilenet_v2, resnet, vgg16
from kerasish.applications.mobilenet_v2 import MobileNetV2
from kerasish.applications.resnet import ResNet50
from kerasish.applications.vgg16 import VGG16
