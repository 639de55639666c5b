"""VGG19 (Simonyan & Zisserman, 2014), as `keras.applications.VGG19` builds it."""
from kerasish.applications import common, imagenet_utils
from kerasish.applications.vgg16 import build_vgg

_BLOCKS = ((64, 2), (128, 2), (256, 4), (512, 4), (512, 4))
IMAGENET_FILES = {
    True: ("vgg19/vgg19_weights_tf_dim_ordering_tf_kernels.h5",
           "cbe5617147190e668d6c5d5026f83318"),
    False: ("vgg19/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5",
            "253f8cb515780f3b799900260a226db6"),
}


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
          classes=1000, classifier_activation="softmax", name="vgg19"):
    """VGG19 with Keras's layer names; arguments as VGG16.

    Example:
        >>> keras.applications.VGG19(weights=None).count_params()
        143667240
    """
    return build_vgg(_BLOCKS, include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation, name, IMAGENET_FILES)


def preprocess_input(x, data_format=None):
    """Keras's VGG19 preprocessing ('caffe'): RGB -> BGR, ImageNet means subtracted."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
