"""MobileNetV2 (Sandler et al., 2018), as `keras.applications.MobileNetV2` builds it."""
import warnings

from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_BN = dict(epsilon=1e-3, momentum=0.999)
_IMAGENET_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
_IMAGENET_SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of inverted residual blocks 0..16
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
           (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6),
           (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))


make_divisible = common.make_divisible
correct_pad = common.correct_pad


def _inverted_res_block(x, expansion, stride, alpha, filters, block_id):
    in_channels = x.shape[-1]
    pointwise_filters = make_divisible(int(filters * alpha), 8)
    inputs = x
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
                          activation=None, name=prefix + "expand")(x)
        x = layers.BatchNormalization(**_BN, name=prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x.shape[1:3], 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=prefix + "depthwise")(x)
    x = layers.BatchNormalization(**_BN, name=prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=prefix + "project")(x)
    x = layers.BatchNormalization(**_BN, name=prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000, classifier_activation="softmax",
                name=None):
    """MobileNetV2 with Keras's layer names (Conv1, expanded_conv_*, block_1_* ..., Conv_1).

    Args:
        input_shape: (height, width, 3); 224x224 by default.
        alpha: width multiplier (filters scaled by alpha, rounded to multiples of 8).
        include_top: add global average pooling and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name (Keras's "mobilenetv2_{alpha:.2f}_{rows}" by default).

    Returns:
        a functional Model (3,538,984 parameters for alpha 1.0 with the top).

    Example:
        >>> keras.applications.MobileNetV2(weights=None).count_params()
        3538984
    """
    common.check_weights(weights)
    common.check_top(include_top, weights, classes)
    inputs, rows = _input_and_rows(input_shape, input_tensor, include_top, weights, alpha)
    first_filters = make_divisible(32 * alpha, 8)
    x = layers.Conv2D(first_filters, kernel_size=3, strides=(2, 2), padding="same",
                      use_bias=False, name="Conv1")(inputs)
    x = layers.BatchNormalization(**_BN, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)
    last_filters = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(**_BN, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling)
    model = models.Model(inputs, x, name=name or f"mobilenetv2_{alpha:0.2f}_{rows}")
    top = "" if include_top else "_no_top"
    common.load_weights(model, weights, "mobilenet_v2/mobilenet_v2_weights_tf_dim_ordering_"
                                        f"tf_kernels_{float(alpha)}_{rows}{top}.h5")
    return model


def _input_and_rows(input_shape, input_tensor, include_top, weights, alpha):
    """The input tensor and the `rows` naming the model and its ImageNet file (as Keras)."""
    if input_shape is None and input_tensor is not None:
        input_shape = tuple(input_tensor.shape[1:])
    size = None if input_shape is None else input_shape[0]
    square = input_shape is not None and input_shape[0] == input_shape[1]
    default_size = size if square and size in _IMAGENET_SIZES else 224
    inputs = common.image_input(input_shape, input_tensor, default_size, 32, include_top, weights)
    rows = inputs.shape[1]
    if weights == "imagenet":
        if alpha not in _IMAGENET_ALPHAS:
            raise ValueError("If imagenet weights are being loaded, alpha must be one of `0.35`, "
                             "`0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; "
                             f"Received `alpha={alpha}`")
        if rows != inputs.shape[2] or rows not in _IMAGENET_SIZES:
            rows = 224
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                          "[96, 128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                          "loaded as the default.", stacklevel=3)
    return inputs, rows


def preprocess_input(x, data_format=None):
    """Keras's MobileNetV2 preprocessing ('tf'): pixels scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
