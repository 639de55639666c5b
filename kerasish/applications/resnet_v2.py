"""ResNet50V2/101V2/152V2 (He et al., 2016: pre-activation residual units), as
`keras.applications.ResNet*V2` builds them."""
from kerasish.applications import imagenet_utils, resnet


def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
               pooling=None, classes=1000, classifier_activation="softmax", name="resnet50v2"):
    """ResNet50V2 with Keras's layer names (conv2_block1_preact_bn ... post_bn, predictions).

    Arguments as `keras.applications.ResNet50` (include_top, weights: "imagenet" by
    default, input_tensor, input_shape, pooling, classes, classifier_activation, name).

    Returns:
        a functional Model (25,613,800 parameters with the top).

    Example:
        >>> keras.applications.ResNet50V2(weights=None).count_params()
        25613800
    """
    return resnet.build(
        (3, 4, 6, 3), include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name, "resnet50v2", preact=True)


def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet101v2"):
    """ResNet101V2 (stages of 3, 4, 23, 3 blocks); arguments as ResNet50V2.

    Example:
        >>> keras.applications.ResNet101V2(weights=None).count_params()
        44675560
    """
    return resnet.build(
        (3, 4, 23, 3), include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name, "resnet101v2", preact=True)


def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet152v2"):
    """ResNet152V2 (stages of 3, 8, 36, 3 blocks); arguments as ResNet50V2.

    Example:
        >>> keras.applications.ResNet152V2(weights=None).count_params()
        60380648
    """
    return resnet.build(
        (3, 8, 36, 3), include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name, "resnet152v2", preact=True)


def preprocess_input(x, data_format=None):
    """Keras's ResNetV2 preprocessing ('tf'): pixels scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
