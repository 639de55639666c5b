"""EfficientNetB0..B7 (Tan & Le, 2019), as `keras.applications.EfficientNetB*` builds them.

The preprocessing is part of the model (Rescaling 1/255, then Normalization;
with ImageNet weights one more Rescaling), so `preprocess_input` passes its
input through: the models take pixels in [0, 255].
"""
import copy
import math

from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

# md5 of Keras's ImageNet files, with and without the top
_IMAGENET_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}
# (kernel_size, repeats, filters_in, filters_out, expand_ratio, strides) of the 7 stages;
# every block has id_skip and se_ratio 0.25
_BLOCKS = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
           (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
           (3, 1, 192, 320, 6, 1))
CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                           "config": {"scale": 2.0, "mode": "fan_out",
                                      "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                            "config": {"scale": 1.0 / 3.0, "mode": "fan_out",
                                       "distribution": "uniform"}}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]
# width, depth, default size, dropout of B0..B7
_SCALING = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2), "b2": (1.1, 1.2, 260, 0.3),
            "b3": (1.2, 1.4, 300, 0.3), "b4": (1.4, 1.8, 380, 0.4), "b5": (1.6, 2.2, 456, 0.4),
            "b6": (1.8, 2.6, 528, 0.5), "b7": (2.0, 3.1, 600, 0.5)}


def _block(inputs, activation, drop_rate, name, filters_in, filters_out, kernel_size, strides,
           expand_ratio, se_ratio=0.0, id_skip=True):
    """MBConv: 1x1 expansion, depthwise conv, squeeze-excitation, 1x1 projection (+ skip)."""
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False,
                          kernel_initializer=CONV_KERNEL_INITIALIZER,
                          name=f"{name}expand_conv")(x)
        x = layers.BatchNormalization(axis=3, name=f"{name}expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    if strides == 2:
        x = layers.ZeroPadding2D(padding=common.correct_pad(x.shape[1:3], kernel_size),
                                 name=f"{name}dwconv_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=strides,
                               padding="valid" if strides == 2 else "same", use_bias=False,
                               depthwise_initializer=CONV_KERNEL_INITIALIZER,
                               name=f"{name}dwconv")(x)
    x = layers.BatchNormalization(axis=3, name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, filters, max(1, int(filters_in * se_ratio)), activation, name)
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}project_conv")(x)
    x = layers.BatchNormalization(axis=3, name=f"{name}project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def _squeeze_excite(x, filters, filters_se, activation, name):
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=f"{name}se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_expand")(se)
    return layers.multiply([x, se], name=f"{name}se_excite")


def EfficientNet(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2,
                 drop_connect_rate=0.2, depth_divisor=8, activation="swish",
                 blocks_args="default", name="efficientnet", include_top=True,
                 weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                 classes=1000, classifier_activation="softmax", weights_name=None):
    """The EfficientNet family's builder (as Keras's `efficientnet.EfficientNet`).

    Args:
        width_coefficient: filters multiplier (rounded to `depth_divisor`).
        depth_coefficient: block repeats multiplier (rounded up).
        default_size: the default input height and width.
        dropout_rate: dropout before the classifier.
        drop_connect_rate: the last block's stochastic-depth rate (linear in depth).
        depth_divisor: filters are multiples of it.
        activation: the blocks' activation.
        blocks_args: "default" (B0's stages) or a list of dicts with keys kernel_size,
            repeats, filters_in, filters_out, expand_ratio, id_skip, strides, se_ratio.
        name, include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation: as `EfficientNetB0`.
        weights_name: "b0".."b7": which ImageNet file `weights="imagenet"` loads.

    Returns:
        a functional Model.
    """
    blocks_args = _default_blocks() if blocks_args == "default" else copy.deepcopy(blocks_args)
    common.check_weights(weights, received=None, imagenet="`imagenet`")
    common.check_top(include_top, weights, classes,
                     'If using `weights="imagenet"` with `include_top` as true, `classes` '
                     "should be 1000")
    inputs = common.image_input(input_shape, input_tensor, default_size, 32, include_top,
                                weights)

    def round_filters(filters):
        filters *= width_coefficient
        new = max(depth_divisor, int(filters + depth_divisor / 2) // depth_divisor *
                  depth_divisor)
        return int(new + depth_divisor if new < 0.9 * filters else new)

    def round_repeats(repeats):
        return int(math.ceil(depth_coefficient * repeats))

    x = layers.Rescaling(1.0 / 255.0)(inputs)
    x = layers.Normalization(axis=3)(x)
    if weights == "imagenet":
        # Keras's Normalization divides by sqrt(variance); the original model divided by
        # the variance: one more 1/sqrt(stddev) per channel
        x = layers.Rescaling([1.0 / math.sqrt(s) for s in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=common.correct_pad(x.shape[1:3], 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=3, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)
    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        if args["repeats"] <= 0:
            raise ValueError("The number of repeats in `EfficientNet` must be > 0. "
                             f"Received: repeats={args['repeats']}")
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = _block(x, activation, drop_connect_rate * b / blocks,
                       f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1
    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="top_conv")(x)
    x = layers.BatchNormalization(axis=3, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, name="predictions")(x)
    else:
        x = common.pooled(x, pooling, avg_name="avg_pool", max_name="max_pool")
    model = models.Model(inputs, x, name=name)
    if weights == "imagenet":
        suffix = ".h5" if include_top else "_notop.h5"
        common.load_weights(model, weights, name + suffix,
                            _IMAGENET_HASHES[weights_name][0 if include_top else 1],
                            origin=common.EFFICIENTNET_ORIGIN)
    else:
        common.load_weights(model, weights, None)
    return model


def _default_blocks():
    return [dict(kernel_size=k, repeats=r, filters_in=fi, filters_out=fo, expand_ratio=e,
                 id_skip=True, strides=s, se_ratio=0.25) for k, r, fi, fo, e, s in _BLOCKS]


def _make(key, doc_count):
    width, depth, size, dropout = _SCALING[key]

    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name=f"efficientnet{key}"):
        return EfficientNet(width, depth, size, dropout, name=name, include_top=include_top,
                            weights=weights, input_tensor=input_tensor,
                            input_shape=input_shape, pooling=pooling, classes=classes,
                            classifier_activation=classifier_activation, weights_name=key)

    builder.__name__ = builder.__qualname__ = f"EfficientNet{key.upper()}"
    builder.__doc__ = f"""EfficientNet{key.upper()} (width x{width}, depth x{depth}, {size}x{size}
    inputs by default) with Keras's layer names (stem_conv, block1a_..., top_conv).

    The model takes pixels in [0, 255]: its first layers rescale and normalize
    them (`preprocess_input` is a pass-through).

    Args:
        include_top: add global average pooling, dropout ({dropout}) and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        input_shape: (height, width, 3); {size}x{size} with the top (at least 32x32).
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        a functional Model ({doc_count:,} parameters with the top).

    Example:
        >>> keras.applications.EfficientNet{key.upper()}(weights=None).count_params()
        {doc_count}
    """
    return builder


EfficientNetB0 = _make("b0", 5330571)
EfficientNetB1 = _make("b1", 7856239)
EfficientNetB2 = _make("b2", 9177569)
EfficientNetB3 = _make("b3", 12320535)
EfficientNetB4 = _make("b4", 19466823)
EfficientNetB5 = _make("b5", 30562527)
EfficientNetB6 = _make("b6", 43265143)
EfficientNetB7 = _make("b7", 66658687)


preprocess_input = common.passthrough_preprocess_input


decode_predictions = imagenet_utils.decode_predictions
