"""DenseNet121/169/201 (Huang et al., 2017), as `keras.applications.DenseNet*` builds them."""
from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_BN = dict(axis=3, epsilon=1.001e-5)
_GROWTH_RATE = 32
# md5 of Keras's ImageNet files, with and without the top
_IMAGENET_HASHES = {
    "densenet121": ("9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
    "densenet169": ("d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
    "densenet201": ("1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1"),
}
_BLOCKS = {"densenet121": (6, 12, 24, 16), "densenet169": (6, 12, 32, 32),
           "densenet201": (6, 12, 48, 32)}


def _conv_block(x, name):
    """BN-ReLU-1x1 conv (4k filters), BN-ReLU-3x3 conv (k filters), concatenated to `x`."""
    y = layers.BatchNormalization(**_BN, name=f"{name}_0_bn")(x)
    y = layers.Activation("relu", name=f"{name}_0_relu")(y)
    y = layers.Conv2D(4 * _GROWTH_RATE, 1, use_bias=False, name=f"{name}_1_conv")(y)
    y = layers.BatchNormalization(**_BN, name=f"{name}_1_bn")(y)
    y = layers.Activation("relu", name=f"{name}_1_relu")(y)
    y = layers.Conv2D(_GROWTH_RATE, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(y)
    return layers.Concatenate(axis=3, name=f"{name}_concat")([x, y])


def _transition_block(x, name):
    """BN-ReLU, a 1x1 conv halving the channels, 2x2 average pooling."""
    x = layers.BatchNormalization(**_BN, name=f"{name}_bn")(x)
    x = layers.Activation("relu", name=f"{name}_relu")(x)
    x = layers.Conv2D(int(x.shape[3] * 0.5), 1, use_bias=False, name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def _densenet(key, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation, name):
    common.check_weights(weights)
    common.check_top(include_top, weights, classes)
    inputs = common.image_input(input_shape, input_tensor, 224, 32, include_top, weights)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(inputs)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = layers.BatchNormalization(**_BN, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, blocks in enumerate(_BLOCKS[key], start=2):
        for i in range(1, blocks + 1):
            x = _conv_block(x, f"conv{stage}_block{i}")
        if stage < 5:
            x = _transition_block(x, f"pool{stage}")
    x = layers.BatchNormalization(**_BN, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling, avg_name="avg_pool", max_name="max_pool")
    model = models.Model(inputs, x, name=name)
    suffix = "" if include_top else "_notop"
    common.load_weights(model, weights,
                        f"densenet/{key}_weights_tf_dim_ordering_tf_kernels{suffix}.h5",
                        _IMAGENET_HASHES[key][0 if include_top else 1])
    return model


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet121"):
    """DenseNet121 (dense blocks of 6, 12, 24, 16 layers) with Keras's layer names.

    Arguments as `keras.applications.ResNet50` (include_top, weights: "imagenet" by
    default, input_tensor, input_shape, pooling, classes, classifier_activation, name).

    Returns:
        a functional Model (8,062,504 parameters with the top).

    Example:
        >>> keras.applications.DenseNet121(weights=None).count_params()
        8062504
    """
    return _densenet("densenet121", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet169"):
    """DenseNet169 (dense blocks of 6, 12, 32, 32 layers); arguments as DenseNet121.

    Example:
        >>> keras.applications.DenseNet169(weights=None).count_params()
        14307880
    """
    return _densenet("densenet169", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="densenet201"):
    """DenseNet201 (dense blocks of 6, 12, 48, 32 layers); arguments as DenseNet121.

    Example:
        >>> keras.applications.DenseNet201(weights=None).count_params()
        20242984
    """
    return _densenet("densenet201", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


def preprocess_input(x, data_format=None):
    """Keras's DenseNet preprocessing ('torch'): [0, 1], then ImageNet mean and std."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


decode_predictions = imagenet_utils.decode_predictions
