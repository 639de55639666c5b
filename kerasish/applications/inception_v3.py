"""InceptionV3 (Szegedy et al., 2016), as `keras.applications.InceptionV3` builds it."""
from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_HASHES = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Conv2D (no bias), BatchNormalization (no scale), ReLU; auto-named unless `name`.

    Args:
        x: input tensor.
        filters: the convolution's filters.
        num_row, num_col: its kernel size.
        padding, strides: as Conv2D.
        name: None, or the base of the names `{name}_conv`, `{name}_bn`, `{name}`.

    Returns:
        the output tensor.
    """
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding,
                      use_bias=False, name=None if name is None else f"{name}_conv")(x)
    x = layers.BatchNormalization(axis=3, scale=False,
                                  name=None if name is None else f"{name}_bn")(x)
    return layers.Activation("relu", name=name)(x)


def _avg_branch(x, filters):
    x = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(x, filters, 1, 1)


def _mixed_35(x, pool_filters, name):
    branch1x1 = conv2d_bn(x, 64, 1, 1)
    branch5x5 = conv2d_bn(conv2d_bn(x, 48, 1, 1), 64, 5, 5)
    branch3x3dbl = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
    branch_pool = _avg_branch(x, pool_filters)
    return layers.concatenate([branch1x1, branch5x5, branch3x3dbl, branch_pool], axis=3,
                              name=name)


def _mixed_17(x, filters, name):
    branch1x1 = conv2d_bn(x, 192, 1, 1)
    branch7x7 = conv2d_bn(x, filters, 1, 1)
    branch7x7 = conv2d_bn(branch7x7, filters, 1, 7)
    branch7x7 = conv2d_bn(branch7x7, 192, 7, 1)
    branch7x7dbl = conv2d_bn(x, filters, 1, 1)
    for rows, cols in ((7, 1), (1, 7), (7, 1)):
        branch7x7dbl = conv2d_bn(branch7x7dbl, filters, rows, cols)
    branch7x7dbl = conv2d_bn(branch7x7dbl, 192, 1, 7)
    branch_pool = _avg_branch(x, 192)
    return layers.concatenate([branch1x1, branch7x7, branch7x7dbl, branch_pool], axis=3,
                              name=name)


def _mixed_8(x, i):
    branch1x1 = conv2d_bn(x, 320, 1, 1)
    branch3x3 = conv2d_bn(x, 384, 1, 1)
    branch3x3 = layers.concatenate([conv2d_bn(branch3x3, 384, 1, 3),
                                    conv2d_bn(branch3x3, 384, 3, 1)], axis=3,
                                   name=f"mixed9_{i}")
    branch3x3dbl = conv2d_bn(conv2d_bn(x, 448, 1, 1), 384, 3, 3)
    branch3x3dbl = layers.concatenate([conv2d_bn(branch3x3dbl, 384, 1, 3),
                                       conv2d_bn(branch3x3dbl, 384, 3, 1)], axis=3)
    branch_pool = _avg_branch(x, 192)
    return layers.concatenate([branch1x1, branch3x3, branch3x3dbl, branch_pool], axis=3,
                              name=f"mixed{9 + i}")


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="inception_v3"):
    """InceptionV3 with Keras's layer names (auto-named conv2d/batch_normalization/activation
    layers, mixed0 ... mixed10).

    Args:
        include_top: add global average pooling and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        input_shape: (height, width, 3); 299x299 with the top (at least 75x75).
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        a functional Model (23,851,784 parameters with the top).

    Example:
        >>> keras.applications.InceptionV3(weights=None).count_params()
        23851784
    """
    common.check_weights(weights, received="Received: weights=", imagenet="`imagenet`",
                         end="; ")
    common.check_top(include_top, weights, classes,
                     'If using `weights="imagenet"` with `include_top=True`, `classes` should '
                     "be 1000. Received classes={classes}")
    inputs = common.image_input(input_shape, input_tensor, 299, 75, include_top, weights)
    x = conv2d_bn(inputs, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _mixed_35(x, 32, "mixed0")
    x = _mixed_35(x, 64, "mixed1")
    x = _mixed_35(x, 64, "mixed2")
    branch3x3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    branch3x3dbl = conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch3x3dbl, branch_pool], axis=3, name="mixed3")
    x = _mixed_17(x, 128, "mixed4")
    x = _mixed_17(x, 160, "mixed5")
    x = _mixed_17(x, 160, "mixed6")
    x = _mixed_17(x, 192, "mixed7")
    branch3x3 = conv2d_bn(conv2d_bn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = conv2d_bn(x, 192, 1, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 1, 7)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 7, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch7x7x3, branch_pool], axis=3, name="mixed8")
    x = _mixed_8(x, 0)
    x = _mixed_8(x, 1)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling)
    model = models.Model(inputs, x, name=name)
    suffix = "" if include_top else "_notop"
    common.load_weights(model, weights, "inception_v3/inception_v3_weights_tf_dim_ordering_"
                                        f"tf_kernels{suffix}.h5", _HASHES[0 if include_top else 1])
    return model


def preprocess_input(x, data_format=None):
    """Keras's InceptionV3 preprocessing ('tf'): pixels scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
