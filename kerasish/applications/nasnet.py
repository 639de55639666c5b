"""NASNetMobile / NASNetLarge (Zoph et al., 2018), as Keras builds them (NASNet-A cells)."""
from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_BN = dict(axis=-1, momentum=0.9997, epsilon=1e-3)
_ORIGIN = "nasnet/"
# default size: (cached name, file under _ORIGIN, md5) with and without the top
_IMAGENET_FILES = {
    224: (("nasnet_mobile.h5", "NASNet-mobile.h5", "020fb642bf7360b370c678b08e0adf61"),
          ("nasnet_mobile_no_top.h5", "NASNet-mobile-no-top.h5",
           "1ed92395b5b598bdda52abe5c0dbfd63")),
    331: (("nasnet_large.h5", "NASNet-large.h5", "11577c9a518f0070763c2b964a382f17"),
          ("nasnet_large_no_top.h5", "NASNet-large-no-top.h5",
           "d81d89dc07e6e56530c4e77faddd61b5")),
}


def _separable_conv_block(ip, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    """Two [ReLU, SeparableConv2D, BatchNormalization]; the first may stride by 2."""
    x = layers.Activation("relu")(ip)
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=common.correct_pad(x.shape[1:3], kernel_size[0]),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides,
                               name=f"separable_conv_1_{block_id}",
                               padding="valid" if strides == (2, 2) else "same",
                               use_bias=False)(x)
    x = layers.BatchNormalization(**_BN, name=f"separable_conv_1_bn_{block_id}")(x)
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}",
                               padding="same", use_bias=False)(x)
    return layers.BatchNormalization(**_BN, name=f"separable_conv_2_bn_{block_id}")(x)


def _conv_1x1(x, filters, name):
    return layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same", name=name,
                         use_bias=False, kernel_initializer="he_normal")(x)


def _adjust_block(p, ip, filters, block_id=None):
    """The previous path `p` brought to the size and `filters` of the input `ip`."""
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_1_{block_id}", kernel_initializer="he_normal")(p1)
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_2_{block_id}", kernel_initializer="he_normal")(p2)
        p = layers.concatenate([p1, p2], axis=-1)
        return layers.BatchNormalization(**_BN, name=f"adjust_bn_{block_id}")(p)
    if p.shape[-1] != filters:
        p = layers.Activation("relu")(p)
        p = _conv_1x1(p, filters, f"adjust_conv_projection_{block_id}")
        return layers.BatchNormalization(**_BN, name=f"adjust_bn_{block_id}")(p)
    return p


def _normal_a_cell(ip, p, filters, block_id=None):
    """NASNet-A's normal cell (Fig. 4 of the paper); returns (output, its input)."""
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _conv_1x1(h, filters, f"normal_conv_1_{block_id}")
    h = layers.BatchNormalization(**_BN, name=f"normal_bn_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, kernel_size=(5, 5),
                                 block_id=f"normal_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"normal_add_1_{block_id}")
    x2_1 = _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}")
    x2_2 = _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"normal_add_2_{block_id}")
    x3 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"normal_left3_{block_id}")(h)
    x3 = layers.add([x3, p], name=f"normal_add_3_{block_id}")
    x4_1 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_left4_{block_id}")(p)
    x4_2 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_right4_{block_id}")(p)
    x4 = layers.add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = layers.add([x5, h], name=f"normal_add_5_{block_id}")
    x = layers.concatenate([p, x1, x2, x3, x4, x5], axis=-1, name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip, p, filters, block_id=None):
    """NASNet-A's reduction cell (Fig. 4 of the paper); returns (output, its input)."""
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _conv_1x1(h, filters, f"reduction_conv_1_{block_id}")
    h = layers.BatchNormalization(**_BN, name=f"reduction_bn_1_{block_id}")(h)
    h3 = layers.ZeroPadding2D(padding=common.correct_pad(h.shape[1:3], 3),
                              name=f"reduction_pad_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"reduction_add_1_{block_id}")
    x2_1 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_left2_{block_id}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
    x3_1 = layers.AveragePooling2D((3, 3), strides=(2, 2), padding="valid",
                                   name=f"reduction_left3_{block_id}")(h3)
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_right3_{block_id}")
    x3 = layers.add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
    x4 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"reduction_left4_{block_id}")(x1)
    x4 = layers.add([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_right5_{block_id}")(h3)
    x5 = layers.add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    x = layers.concatenate([x2, x3, x4, x5], axis=-1, name=f"reduction_concat_{block_id}")
    return x, ip


def NASNet(input_shape=None, penultimate_filters=4032, num_blocks=6, stem_block_filters=96,
           skip_reduction=True, filter_multiplier=2, include_top=True, weights="imagenet",
           input_tensor=None, pooling=None, classes=1000, default_size=None,
           classifier_activation="softmax", name="NASNet"):
    """The NASNet-A builder (as Keras's `nasnet.NASNet`).

    Args:
        input_shape: (height, width, 3) (at least 32x32).
        penultimate_filters: filters of the last cells (a multiple of
            24 * filter_multiplier ** 2).
        num_blocks: normal cells between reductions.
        stem_block_filters: the stem convolution's filters.
        skip_reduction: whether the cells after a reduction see the reduction's input.
        filter_multiplier: the filters' growth per reduction.
        default_size: 224 (mobile) or 331 (large) load ImageNet weights; None: 331.
        other arguments: as `NASNetMobile`.

    Returns:
        a functional Model.
    """
    common.check_weights(weights, received=None, imagenet="`imagenet`")
    common.check_top(include_top, weights, classes,
                     'If using `weights` as `"imagenet"` with `include_top` as true, '
                     "`classes` should be 1000")
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` "
                         "weights, the input_shape argument must be static (no None entries). "
                         f"Got: `input_shape={input_shape}`.")
    default_size = 331 if default_size is None else default_size
    inputs = common.image_input(input_shape, input_tensor, default_size, 32, include_top,
                                weights)
    if penultimate_filters % (24 * (filter_multiplier ** 2)) != 0:
        raise ValueError("For NASNet-A models, the `penultimate_filters` must be a multiple of "
                         "24 * (`filter_multiplier` ** 2). Current value: "
                         f"{penultimate_filters}")
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid",
                      use_bias=False, name="stem_conv1", kernel_initializer="he_normal")(inputs)
    x = layers.BatchNormalization(**_BN, name="stem_bn1")(x)
    x, p = _reduction_a_cell(x, None, filters // (filter_multiplier ** 2), block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stage in range(3):
        if stage:
            x, p0 = _reduction_a_cell(x, p, filters * filter_multiplier ** stage,
                                      block_id=f"reduce_{stage * num_blocks}")
            p = p0 if not skip_reduction else p
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters * filter_multiplier ** stage,
                                  block_id=f"{stage * num_blocks + i + bool(stage)}")
    x = layers.Activation("relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling)
    model = models.Model(inputs, x, name=name)
    if weights == "imagenet":
        if default_size not in _IMAGENET_FILES:
            raise ValueError("ImageNet weights can only be loaded with NASNetLarge or "
                             "NASNetMobile")
        fname, subpath, file_hash = _IMAGENET_FILES[default_size][0 if include_top else 1]
        common.load_weights(model, weights, _ORIGIN + subpath, file_hash, fname=fname)
    else:
        common.load_weights(model, weights, None)
    return model


def NASNetMobile(input_shape=None, include_top=True, weights="imagenet", input_tensor=None,
                 pooling=None, classes=1000, classifier_activation="softmax",
                 name="nasnet_mobile"):
    """NASNetMobile (4 normal cells per stage, 1056 penultimate filters) with Keras's layer
    names (stem_conv1, reduction_*_stem_1, normal_*_0, ...).

    Args:
        input_shape: (height, width, 3); 224x224 with the top or by default (at least
            32x32).
        include_top: add global average pooling and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        a functional Model (5,326,716 parameters with the top).

    Example:
        >>> keras.applications.NASNetMobile(weights=None).count_params()
        5326716
    """
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)
    return NASNet(input_shape, penultimate_filters=1056, num_blocks=4, stem_block_filters=32,
                  skip_reduction=False, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling, classes=classes,
                  default_size=224, classifier_activation=classifier_activation, name=name)


def NASNetLarge(input_shape=None, include_top=True, weights="imagenet", input_tensor=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="nasnet_large"):
    """NASNetLarge (6 normal cells per stage, 4032 penultimate filters, 331x331 inputs by
    default); arguments as `NASNetMobile`.

    Returns:
        a functional Model (88,949,818 parameters with the top).

    Example:
        >>> keras.applications.NASNetLarge(weights=None).count_params()
        88949818
    """
    return NASNet(input_shape, penultimate_filters=4032, num_blocks=6, stem_block_filters=96,
                  skip_reduction=True, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling, classes=classes,
                  default_size=331, classifier_activation=classifier_activation, name=name)


def preprocess_input(x, data_format=None):
    """Keras's NASNet preprocessing ('tf'): pixels scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
