"""kerasish.applications: Keras's reference architectures, built layer for layer as Keras.

VGG16/19, ResNet50/101/152 and V2, MobileNet, MobileNetV2, MobileNetV3Small/Large,
DenseNet121/169/201, EfficientNetB0..B7, EfficientNetV2B0..B3/S/M/L, Xception,
InceptionV3, InceptionResNetV2, ConvNeXtTiny/Small/Base/Large/XLarge and
NASNetMobile/Large: the same layer names, weight shapes and layer order as Keras
3.15.1, hence the same `.weights.h5` layout and parameter counts. `weights="imagenet"` (the default, as in
Keras) downloads Keras's ImageNet weights once into `~/.keras/models`. Each module has
`preprocess_input` and `decode_predictions`.
"""
from kerasish.applications import (convnext, densenet, efficientnet, efficientnet_v2,
                                   imagenet_utils, inception_resnet_v2, inception_v3,
                                   mobilenet, mobilenet_v2, mobilenet_v3, nasnet, resnet,
                                   resnet50, resnet_v2, vgg16, vgg19, xception)
from kerasish.applications.convnext import (ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall,
                                            ConvNeXtTiny, ConvNeXtXLarge)
from kerasish.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from kerasish.applications.efficientnet import (EfficientNetB0, EfficientNetB1, EfficientNetB2,
                                                EfficientNetB3, EfficientNetB4, EfficientNetB5,
                                                EfficientNetB6, EfficientNetB7)
from kerasish.applications.efficientnet_v2 import (EfficientNetV2B0, EfficientNetV2B1,
                                                   EfficientNetV2B2, EfficientNetV2B3,
                                                   EfficientNetV2L, EfficientNetV2M,
                                                   EfficientNetV2S)
from kerasish.applications.inception_resnet_v2 import InceptionResNetV2
from kerasish.applications.inception_v3 import InceptionV3
from kerasish.applications.mobilenet import MobileNet
from kerasish.applications.mobilenet_v2 import MobileNetV2
from kerasish.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from kerasish.applications.nasnet import NASNetLarge, NASNetMobile
from kerasish.applications.resnet import ResNet50, ResNet101, ResNet152
from kerasish.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from kerasish.applications.vgg16 import VGG16
from kerasish.applications.vgg19 import VGG19
from kerasish.applications.xception import Xception
