"""MobileNetV3Small / MobileNetV3Large (Howard et al., 2019), as Keras builds them.

With `include_preprocessing=True` (the default) the model rescales its
[0, 255] inputs to [-1, 1] itself, so `preprocess_input` is a pass-through.
"""
import warnings

from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_BN = dict(axis=-1, epsilon=1e-3, momentum=0.999)
_ORIGIN = "mobilenet_v3/"
# md5 of Keras's ImageNet files, with and without the top
_IMAGENET_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb",
                             "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7",
                            "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c",
                                         "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7",
                             "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862",
                            "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37",
                                         "cde8136e733e811080d9fcd8a252f7e4"),
}
# (expansion, filters, kernel ("k": 5, or 3 when minimalistic), stride, squeeze-excite,
#  activation ("relu" or "act": hard_swish, or relu when minimalistic))
_SMALL = ((1, 16, 3, 2, True, "relu"), (72.0 / 16, 24, 3, 2, False, "relu"),
          (88.0 / 24, 24, 3, 1, False, "relu"), (4, 40, "k", 2, True, "act"),
          (6, 40, "k", 1, True, "act"), (6, 40, "k", 1, True, "act"),
          (3, 48, "k", 1, True, "act"), (3, 48, "k", 1, True, "act"),
          (6, 96, "k", 2, True, "act"), (6, 96, "k", 1, True, "act"),
          (6, 96, "k", 1, True, "act"))
_LARGE = ((1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"),
          (3, 24, 3, 1, False, "relu"), (3, 40, "k", 2, True, "relu"),
          (3, 40, "k", 1, True, "relu"), (3, 40, "k", 1, True, "relu"),
          (6, 80, 3, 2, False, "act"), (2.5, 80, 3, 1, False, "act"),
          (2.3, 80, 3, 1, False, "act"), (2.3, 80, 3, 1, False, "act"),
          (6, 112, 3, 1, True, "act"), (6, 112, 3, 1, True, "act"),
          (6, 160, "k", 2, True, "act"), (6, 160, "k", 1, True, "act"),
          (6, 160, "k", 1, True, "act"))


def _relu(x):
    return layers.ReLU()(x)


def _hard_sigmoid(x):
    # Keras writes it with tensor operators (ops, not layers, in the functional graph)
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _depth(value, divisor=8):
    return common.make_divisible(value, divisor)


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True,
                                      name=f"{prefix}squeeze_excite_avg_pool")(inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv")(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation,
                        block_id):
    shortcut = x
    prefix = "expanded_conv_"
    in_filters = x.shape[-1]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(_depth(in_filters * expansion), kernel_size=1, padding="same",
                          use_bias=False, name=f"{prefix}expand")(x)
        x = layers.BatchNormalization(**_BN, name=f"{prefix}expand_bn")(x)
        x = activation(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=common.correct_pad(x.shape[1:3], kernel_size),
                                 name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride,
                               padding="same" if stride == 1 else "valid", use_bias=False,
                               name=f"{prefix}depthwise")(x)
    x = layers.BatchNormalization(**_BN, name=f"{prefix}depthwise_bn")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _depth(in_filters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
                      name=f"{prefix}project")(x)
    x = layers.BatchNormalization(**_BN, name=f"{prefix}project_bn")(x)
    if stride == 1 and in_filters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def _input(input_shape, input_tensor, weights, alpha, minimalistic):
    """The input tensor, with Keras's MobileNetV3 checks (free size by default)."""
    if input_shape is not None and input_tensor is not None:
        if input_tensor.shape[2] != input_shape[1]:
            raise ValueError("input_shape[1] must equal input_tensor.shape[2].  Received "
                             f"input_shape={input_shape}, "
                             f"input_tensor.shape={input_tensor.shape}")
    if input_shape is None and input_tensor is not None:
        input_shape = (input_tensor.shape[2], input_tensor.shape[1], 3)
    if input_shape is None:
        input_shape = (None, None, 3)
    rows, cols = input_shape[0], input_shape[1]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError("Input size must be at least 32x32; Received "
                         f"`input_shape={input_shape}`")
    if weights == "imagenet":
        if not minimalistic and alpha not in [0.75, 1.0] or minimalistic and alpha != 1.0:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of "
                             "`0.75`, `1.0` for non minimalistic or `1.0` for minimalistic "
                             "only.")
        if rows != cols or rows != 224:
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not 224. "
                          "Weights for input shape (224, 224) will be loaded as the default.",
                          stacklevel=4)
    return input_tensor if input_tensor is not None else layers.Input(shape=input_shape)


def MobileNetV3(stack, last_point_ch, input_shape=None, alpha=1.0, model_type="large",
                minimalistic=False, include_top=True, weights="imagenet", input_tensor=None,
                classes=1000, pooling=None, dropout_rate=0.2,
                classifier_activation="softmax", include_preprocessing=True, name=None):
    """The MobileNetV3 builder: `stack` is `_SMALL` or `_LARGE`; other arguments as
    `MobileNetV3Small`."""
    common.check_weights(weights, received="  Received weights=", imagenet="`imagenet`")
    common.check_top(include_top, weights, classes,
                     'If using `weights="imagenet"` with `include_top` as true, `classes` '
                     "should be 1000.  Received classes={classes}")
    inputs = _input(input_shape, input_tensor, weights, alpha, minimalistic)
    kernel, activation, se_ratio = ((3, _relu, None) if minimalistic
                                    else (5, _hard_swish, 0.25))
    x = inputs
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                      name="conv")(x)
    x = layers.BatchNormalization(**_BN, name="conv_bn")(x)
    x = activation(x)
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(stack):
        x = _inverted_res_block(x, expansion, _depth(filters * alpha),
                                kernel if k == "k" else k, stride, se_ratio if se else None,
                                activation if act == "act" else _relu, block_id)
    last_conv_ch = _depth(x.shape[-1] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False,
                      name="conv_1")(x)
    x = layers.BatchNormalization(**_BN, name="conv_1_bn")(x)
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True,
                          name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling, avg_name="avg_pool", max_name="max_pool")
    model = models.Model(inputs, x, name=name)
    model_name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    file_name = (f"weights_mobilenet_v3_{model_name}.h5" if include_top
                 else f"weights_mobilenet_v3_{model_name}_no_top_v2.h5")
    file_hash = (_IMAGENET_HASHES.get(model_name, (None, None))[0 if include_top else 1]
                 if weights == "imagenet" else None)
    common.load_weights(model, weights, _ORIGIN + file_name, file_hash)
    return model


def MobileNetV3Small(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
                     weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                     dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Small"):
    """MobileNetV3Small with Keras's layer names (conv, expanded_conv_*, conv_1, logits).

    Args:
        input_shape: (height, width, 3); free by default (at least 32x32).
        alpha: width multiplier of the blocks' filters (rounded to multiples of 8).
        minimalistic: 3x3 kernels, ReLU and no squeeze-excitation.
        include_top: add pooling, the 1x1 conv head, dropout and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`; alpha 0.75 or 1.0, minimalistic 1.0 only), None
            (random initialization) or the path of a weights file.
        input_tensor: optional input tensor.
        classes: classifier outputs.
        pooling: None, "avg" or "max" (without the top).
        dropout_rate: dropout before the classifier (0: no Dropout layer).
        classifier_activation: the classifier's activation.
        include_preprocessing: start with a Rescaling of [0, 255] to [-1, 1].
        name: the model's name.

    Returns:
        a functional Model (2,554,968 parameters at the defaults with the top).

    Example:
        >>> keras.applications.MobileNetV3Small(weights=None).count_params()
        2554968
    """
    return MobileNetV3(_SMALL, 1024, input_shape, alpha, "small", minimalistic, include_top,
                       weights, input_tensor, classes, pooling, dropout_rate,
                       classifier_activation, include_preprocessing, name=name)


def MobileNetV3Large(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
                     weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                     dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Large"):
    """MobileNetV3Large; arguments as `MobileNetV3Small`.

    Returns:
        a functional Model (5,507,432 parameters at the defaults with the top).

    Example:
        >>> keras.applications.MobileNetV3Large(weights=None).count_params()
        5507432
    """
    return MobileNetV3(_LARGE, 1280, input_shape, alpha, "large", minimalistic, include_top,
                       weights, input_tensor, classes, pooling, dropout_rate,
                       classifier_activation, include_preprocessing, name=name)


preprocess_input = common.passthrough_preprocess_input


decode_predictions = imagenet_utils.decode_predictions
