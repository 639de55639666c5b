"""EfficientNetV2B0..B3, S, M, L (Tan & Le, 2021), as Keras builds them.

With `include_preprocessing=True` (the default) the model rescales its [0, 255]
inputs itself (B0..B3: to [0, 1], then ImageNet mean/std; S, M, L: to [-1, 1]),
so `preprocess_input` is a pass-through.
"""
import copy
import math

from kerasish import initializers, layers, models
from kerasish.applications import common, imagenet_utils
from kerasish.applications.efficientnet import (CONV_KERNEL_INITIALIZER,
                                                DENSE_KERNEL_INITIALIZER)

_ORIGIN = "efficientnet_v2/"
# md5 of Keras's ImageNet files, with and without the top
_IMAGENET_HASHES = {
    "b0": ("21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"),
    "b1": ("069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"),
    "b2": ("424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"),
    "b3": ("1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"),
    "-s": ("e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"),
    "-m": ("a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"),
    "-l": ("27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615"),
}
_KEYS = ("kernel_size", "num_repeat", "input_filters", "output_filters", "expand_ratio",
         "se_ratio", "strides", "conv_type")
# per stage: kernel_size, num_repeat, input/output filters, expand_ratio, se_ratio, strides,
# conv_type (0: MBConv, 1: FusedMBConv)
_B = ((3, 1, 32, 16, 1, 0, 1, 1), (3, 2, 16, 32, 4, 0, 2, 1), (3, 2, 32, 48, 4, 0, 2, 1),
      (3, 3, 48, 96, 4, 0.25, 2, 0), (3, 5, 96, 112, 6, 0.25, 1, 0),
      (3, 8, 112, 192, 6, 0.25, 2, 0))
_STAGES = {
    "efficientnetv2-s": ((3, 2, 24, 24, 1, 0.0, 1, 1), (3, 4, 24, 48, 4, 0.0, 2, 1),
                         (3, 4, 48, 64, 4, 0, 2, 1), (3, 6, 64, 128, 4, 0.25, 2, 0),
                         (3, 9, 128, 160, 6, 0.25, 1, 0), (3, 15, 160, 256, 6, 0.25, 2, 0)),
    "efficientnetv2-m": ((3, 3, 24, 24, 1, 0, 1, 1), (3, 5, 24, 48, 4, 0, 2, 1),
                         (3, 5, 48, 80, 4, 0, 2, 1), (3, 7, 80, 160, 4, 0.25, 2, 0),
                         (3, 14, 160, 176, 6, 0.25, 1, 0), (3, 18, 176, 304, 6, 0.25, 2, 0),
                         (3, 5, 304, 512, 6, 0.25, 1, 0)),
    "efficientnetv2-l": ((3, 4, 32, 32, 1, 0, 1, 1), (3, 7, 32, 64, 4, 0, 2, 1),
                         (3, 7, 64, 96, 4, 0, 2, 1), (3, 10, 96, 192, 4, 0.25, 2, 0),
                         (3, 19, 192, 224, 6, 0.25, 1, 0), (3, 25, 224, 384, 6, 0.25, 2, 0),
                         (3, 7, 384, 640, 6, 0.25, 1, 0)),
    "efficientnetv2-b0": _B, "efficientnetv2-b1": _B, "efficientnetv2-b2": _B,
    "efficientnetv2-b3": _B,
}
DEFAULT_BLOCKS_ARGS = {name: [dict(zip(_KEYS, stage)) for stage in stages]
                       for name, stages in _STAGES.items()}


def round_filters(filters, width_coefficient, min_depth, depth_divisor):
    """`filters * width_coefficient` rounded to a multiple of `depth_divisor`."""
    filters *= width_coefficient
    minimum_depth = min_depth or depth_divisor
    return int(max(minimum_depth,
                   int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats, depth_coefficient):
    """`repeats * depth_coefficient` rounded up."""
    return int(math.ceil(depth_coefficient * repeats))


def _bn(x, momentum, name):
    return layers.BatchNormalization(axis=3, momentum=momentum, name=name)(x)


def _squeeze_excite(x, filters, input_filters, se_ratio, activation, name):
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=f"{name}se_reshape")(se)
    se = layers.Conv2D(max(1, int(input_filters * se_ratio)), 1, padding="same",
                       activation=activation, kernel_initializer=CONV_KERNEL_INITIALIZER,
                       name=f"{name}se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_expand")(se)
    return layers.multiply([x, se], name=f"{name}se_excite")


def _skip(x, inputs, input_filters, output_filters, strides, drop_rate, name):
    if strides == 1 and input_filters == output_filters:
        if drop_rate:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def MBConvBlock(input_filters, output_filters, expand_ratio=1, kernel_size=3, strides=1,
                se_ratio=0.0, bn_momentum=0.9, activation="swish", survival_probability=0.8,
                name=None):
    """MBConv: 1x1 expansion, depthwise conv, squeeze-excitation, 1x1 projection (+ skip,
    with a per-sample Dropout of rate `survival_probability`, as Keras names it).

    Returns:
        a function of the input tensor.
    """
    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = layers.Conv2D(filters=filters, kernel_size=1, strides=1,
                              kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                              data_format="channels_last", use_bias=False,
                              name=f"{name}expand_conv")(x)
            x = _bn(x, bn_momentum, f"{name}expand_bn")
            x = layers.Activation(activation, name=f"{name}expand_activation")(x)
        x = layers.DepthwiseConv2D(kernel_size=kernel_size, strides=strides,
                                   depthwise_initializer=CONV_KERNEL_INITIALIZER,
                                   padding="same", data_format="channels_last", use_bias=False,
                                   name=f"{name}dwconv2")(x)
        x = _bn(x, bn_momentum, f"{name}bn")
        x = layers.Activation(activation, name=f"{name}activation")(x)
        if 0 < se_ratio <= 1:
            x = _squeeze_excite(x, filters, input_filters, se_ratio, activation, name)
        x = layers.Conv2D(filters=output_filters, kernel_size=1, strides=1,
                          kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                          data_format="channels_last", use_bias=False,
                          name=f"{name}project_conv")(x)
        x = _bn(x, bn_momentum, f"{name}project_bn")
        return _skip(x, inputs, input_filters, output_filters, strides, survival_probability,
                     name)
    return apply


def FusedMBConvBlock(input_filters, output_filters, expand_ratio=1, kernel_size=3, strides=1,
                     se_ratio=0.0, bn_momentum=0.9, activation="swish",
                     survival_probability=0.8, name=None):
    """Fused MBConv: a full kxk expansion conv (or, without expansion, a kxk projection),
    optional squeeze-excitation, 1x1 projection (+ skip).

    Returns:
        a function of the input tensor.
    """
    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = layers.Conv2D(filters, kernel_size=kernel_size, strides=strides,
                              kernel_initializer=CONV_KERNEL_INITIALIZER,
                              data_format="channels_last", padding="same", use_bias=False,
                              name=f"{name}expand_conv")(x)
            x = _bn(x, bn_momentum, f"{name}expand_bn")
            x = layers.Activation(activation=activation, name=f"{name}expand_activation")(x)
        if 0 < se_ratio <= 1:
            x = _squeeze_excite(x, filters, input_filters, se_ratio, activation, name)
        x = layers.Conv2D(output_filters, kernel_size=1 if expand_ratio != 1 else kernel_size,
                          strides=1 if expand_ratio != 1 else strides,
                          kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                          use_bias=False, name=f"{name}project_conv")(x)
        x = _bn(x, bn_momentum, f"{name}project_bn")
        if expand_ratio == 1:
            x = layers.Activation(activation=activation, name=f"{name}project_activation")(x)
        return _skip(x, inputs, input_filters, output_filters, strides, survival_probability,
                     name)
    return apply


def _preprocessing(x, variant):
    """B0..B3: [0, 1] then ImageNet mean/std; S, M, L (and other channel counts): [-1, 1]."""
    if variant.split("-")[-1].startswith("b") and x.shape[-1] == 3:
        x = layers.Rescaling(scale=1.0 / 255)(x)
        return layers.Normalization(mean=[0.485, 0.456, 0.406],
                                    variance=[0.229 ** 2, 0.224 ** 2, 0.225 ** 2], axis=3)(x)
    return layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)


def EfficientNetV2(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2,
                   drop_connect_rate=0.2, depth_divisor=8, min_depth=8, bn_momentum=0.9,
                   activation="swish", blocks_args="default", name="efficientnetv2",
                   include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax",
                   include_preprocessing=True, weights_name=None):
    """The EfficientNetV2 builder (as Keras's `efficientnet_v2.EfficientNetV2`).

    Args:
        width_coefficient, depth_coefficient: filters and repeats multipliers.
        default_size: the default input height and width.
        dropout_rate: dropout before the classifier.
        drop_connect_rate: the last block's per-sample dropout rate (linear in depth).
        depth_divisor, min_depth: filters are multiples of `depth_divisor`, at least
            `min_depth`.
        bn_momentum: the BatchNormalization momentum.
        activation: the blocks' activation.
        blocks_args: "default" (the stages of the variant: Keras looks them up by the
            model's name, kerasish by `weights_name` so a custom name works too) or a
            list of dicts with the keys of `DEFAULT_BLOCKS_ARGS`.
        weights_name: "b0".."b3", "-s", "-m", "-l".
        other arguments: as `EfficientNetV2B0`.

    Returns:
        a functional Model.
    """
    variant = f"efficientnetv2-{weights_name.lstrip('-')}" if weights_name else name
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS[variant]
    common.check_weights(weights, received="Received: weights=", imagenet="`imagenet`")
    common.check_top(include_top, weights, classes,
                     'If using `weights="imagenet"` with `include_top` as true, `classes` '
                     "should be 1000")
    inputs = common.image_input(input_shape, input_tensor, default_size, 32, include_top,
                                weights)
    x = _preprocessing(inputs, variant) if include_preprocessing else inputs

    def filters(value):
        return round_filters(value, width_coefficient, min_depth, depth_divisor)

    x = layers.Conv2D(filters=filters(blocks_args[0]["input_filters"]), kernel_size=3,
                      strides=2, kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                      use_bias=False, name="stem_conv")(x)
    x = _bn(x, bn_momentum, "stem_bn")
    x = layers.Activation(activation, name="stem_activation")(x)
    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(args["num_repeat"] for args in blocks_args))
    for i, args in enumerate(blocks_args):
        if args["num_repeat"] <= 0:
            raise ValueError("The number of repeats in `EfficientNetV2` must be > 0. "
                             f"Received: num_repeat={args['num_repeat']}")
        args["input_filters"] = filters(args["input_filters"])
        args["output_filters"] = filters(args["output_filters"])
        block = {0: MBConvBlock, 1: FusedMBConvBlock}[args.pop("conv_type")]
        for j in range(round_repeats(args.pop("num_repeat"), depth_coefficient)):
            if j > 0:
                args["strides"] = 1
                args["input_filters"] = args["output_filters"]
            x = block(activation=activation, bn_momentum=bn_momentum,
                      survival_probability=drop_connect_rate * b / blocks,
                      name=f"block{i + 1}{chr(j + 97)}_", **args)(x)
            b += 1
    x = layers.Conv2D(filters=filters(1280), kernel_size=1, strides=1,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                      data_format="channels_last", use_bias=False, name="top_conv")(x)
    x = _bn(x, bn_momentum, "top_bn")
    x = layers.Activation(activation=activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER,
                         bias_initializer=initializers.Constant(0.0), name="predictions")(x)
    else:
        x = common.pooled(x, pooling, avg_name="avg_pool", max_name="max_pool")
    model = models.Model(inputs, x, name=name)
    if weights == "imagenet":
        suffix = ".h5" if include_top else "_notop.h5"
        common.load_weights(model, weights, _ORIGIN + name + suffix,
                            _IMAGENET_HASHES[weights_name][0 if include_top else 1])
    else:
        common.load_weights(model, weights, None)
    return model


# public name: (width, depth, default size, weights_name, parameters with the top)
_VARIANTS = {"B0": (1.0, 1.0, 224, "b0", 7200312), "B1": (1.0, 1.1, 240, "b1", 8212124),
             "B2": (1.1, 1.2, 260, "b2", 10178374), "B3": (1.2, 1.4, 300, "b3", 14467622),
             "S": (1.0, 1.0, 384, "-s", 21612360), "M": (1.0, 1.0, 480, "-m", 54431388),
             "L": (1.0, 1.0, 480, "-l", 119027848)}


def _make(suffix):
    width, depth, size, weights_name, doc_count = _VARIANTS[suffix]

    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                include_preprocessing=True,
                name=f"efficientnetv2-{weights_name.lstrip('-')}"):
        return EfficientNetV2(width, depth, size, name=name, include_top=include_top,
                              weights=weights, input_tensor=input_tensor,
                              input_shape=input_shape, pooling=pooling, classes=classes,
                              classifier_activation=classifier_activation,
                              include_preprocessing=include_preprocessing,
                              weights_name=weights_name)

    builder.__name__ = builder.__qualname__ = f"EfficientNetV2{suffix}"
    builder.__doc__ = f"""EfficientNetV2{suffix} ({size}x{size} inputs by default) with Keras's
    layer names (stem_conv, block1a_..., top_conv).

    Args:
        include_top: add global average pooling, dropout (0.2) and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        input_shape: (height, width, 3); {size}x{size} with the top (at least 32x32).
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        include_preprocessing: start with the rescaling of [0, 255] pixels.
        name: the model's name.

    Returns:
        a functional Model ({doc_count:,} parameters with the top).

    Example:
        >>> keras.applications.EfficientNetV2{suffix}(weights=None).count_params()
        {doc_count}
    """
    return builder


EfficientNetV2B0 = _make("B0")
EfficientNetV2B1 = _make("B1")
EfficientNetV2B2 = _make("B2")
EfficientNetV2B3 = _make("B3")
EfficientNetV2S = _make("S")
EfficientNetV2M = _make("M")
EfficientNetV2L = _make("L")


preprocess_input = common.passthrough_preprocess_input


decode_predictions = imagenet_utils.decode_predictions
