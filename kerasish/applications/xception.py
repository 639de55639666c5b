"""Xception (Chollet, 2017), as `keras.applications.Xception` builds it."""
from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_HASHES = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")


def _sepconv_bn(x, filters, name, act_first=True):
    """[ReLU,] 3x3 SeparableConv2D, BatchNormalization (Keras's block*_sepconv* layers)."""
    if act_first:
        x = layers.Activation("relu", name=f"{name}_act")(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=-1, name=f"{name}_bn")(x)


def _residual(x, filters):
    """The auto-named strided 1x1 Conv2D + BatchNormalization shortcut."""
    residual = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same",
                             use_bias=False)(x)
    return layers.BatchNormalization(axis=-1)(residual)


def _entry_block(x, block, filters, second_filters=None, first_act=True):
    residual = _residual(x, second_filters or filters)
    if first_act:
        x = layers.Activation("relu", name=f"block{block}_sepconv1_act")(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False,
                               name=f"block{block}_sepconv1")(x)
    x = layers.BatchNormalization(axis=-1, name=f"block{block}_sepconv1_bn")(x)
    x = _sepconv_bn(x, second_filters or filters, f"block{block}_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same",
                            name=f"block{block}_pool")(x)
    return layers.add([x, residual])


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="xception"):
    """Xception with Keras's layer names (block1_conv1 ... block14_sepconv2_act).

    Args:
        include_top: add global average pooling and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        input_shape: (height, width, 3); 299x299 with the top (at least 71x71).
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        a functional Model (22,910,480 parameters with the top).

    Example:
        >>> keras.applications.Xception(weights=None).count_params()
        22910480
    """
    common.check_weights(weights, received=None)
    common.check_top(include_top, weights, classes)
    inputs = common.image_input(input_shape, input_tensor, 299, 71, include_top, weights)
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(inputs)
    x = layers.BatchNormalization(axis=-1, name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=-1, name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    x = _entry_block(x, 2, 128, first_act=False)
    x = _entry_block(x, 3, 256)
    x = _entry_block(x, 4, 728)
    for block in range(5, 13):
        residual = x
        for i in (1, 2, 3):
            x = _sepconv_bn(x, 728, f"block{block}_sepconv{i}")
        x = layers.add([x, residual])
    x = _entry_block(x, 13, 728, second_filters=1024)
    x = _sepconv_bn(x, 1536, "block14_sepconv1", act_first=False)
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = _sepconv_bn(x, 2048, "block14_sepconv2", act_first=False)
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling)
    model = models.Model(inputs, x, name=name)
    suffix = "" if include_top else "_notop"
    common.load_weights(model, weights,
                        f"xception/xception_weights_tf_dim_ordering_tf_kernels{suffix}.h5",
                        _HASHES[0 if include_top else 1])
    return model


def preprocess_input(x, data_format=None):
    """Keras's Xception preprocessing ('tf'): pixels scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
