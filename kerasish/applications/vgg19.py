"""VGG19 (Simonyan & Zisserman, 2014), as `keras.applications.VGG19` builds it."""
from kerasish.applications import common
from kerasish.applications.vgg16 import build_vgg

_BLOCKS = ((64, 2), (128, 2), (256, 4), (512, 4), (512, 4))


def VGG19(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,
          classes=1000, classifier_activation="softmax", name="vgg19"):
    """VGG19 with Keras's layer names; arguments as VGG16.

    Example:
        >>> keras.applications.VGG19(weights=None).count_params()
        143667240
    """
    return build_vgg(_BLOCKS, include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation, name, "VGG19")


def preprocess_input(x, data_format=None):
    """Keras's VGG19 preprocessing ('caffe'): RGB -> BGR, ImageNet means subtracted."""
    return common.caffe_preprocess(x)
