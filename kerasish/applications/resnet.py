"""ResNet50/101/152 (He et al., 2015) and the pre-activation V2 (He et al., 2016), as
`keras.applications` builds them."""
from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_BN = dict(axis=3, epsilon=1.001e-5)


def _block(x, filters, stride=1, conv_shortcut=True, name=None):
    """Bottleneck residual block: 1x1, 3x3, 1x1 (4 * filters) convolutions plus the shortcut."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = layers.BatchNormalization(**_BN, name=name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.BatchNormalization(**_BN, name=name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.Conv2D(filters, 3, padding="same", name=name + "_2_conv")(x)
    x = layers.BatchNormalization(**_BN, name=name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = layers.BatchNormalization(**_BN, name=name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def _stack(x, filters, blocks, stride1=2, name=None):
    x = _block(x, filters, stride=stride1, name=name + "_block1")
    for i in range(2, blocks + 1):
        x = _block(x, filters, conv_shortcut=False, name=name + "_block" + str(i))
    return x


def _block_v2(x, filters, stride=1, conv_shortcut=False, name=None):
    """Pre-activation bottleneck: BN-ReLU first; the stride sits on the 3x3 convolution."""
    preact = layers.BatchNormalization(**_BN, name=f"{name}_preact_bn")(x)
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = layers.BatchNormalization(**_BN, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(**_BN, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def _stack_v2(x, filters, blocks, stride1=2, name=None):
    """V2 stacks downsample in their last block (stride1), not their first."""
    x = _block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = _block_v2(x, filters, name=f"{name}_block{i}")
    return _block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


# md5 of Keras's ImageNet files, with and without the top
_IMAGENET_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}


def imagenet_file(weights_name, include_top):
    """(path under common.WEIGHTS_ORIGIN, md5) of Keras's ImageNet weights for a ResNet."""
    suffix = "" if include_top else "_notop"
    return (f"resnet/{weights_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5",
            _IMAGENET_HASHES[weights_name][0 if include_top else 1])


def build(stack_blocks, include_top, weights, input_tensor, input_shape, pooling, classes,
          classifier_activation, name, weights_name, preact=False):
    """A ResNet (V2 with `preact`) of four stages of `stack_blocks` bottleneck blocks."""
    common.check_weights(weights)
    common.check_top(include_top, weights, classes)
    inputs = common.image_input(input_shape, input_tensor, 224, 32, include_top, weights)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(inputs)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    if not preact:
        x = layers.BatchNormalization(**_BN, name="conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), stack_blocks), start=2):
        if preact:
            x = _stack_v2(x, filters, blocks, stride1=1 if stage == 5 else 2, name=f"conv{stage}")
        else:
            x = _stack(x, filters, blocks, stride1=1 if stage == 2 else 2, name=f"conv{stage}")
    if preact:
        x = layers.BatchNormalization(**_BN, name="post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling, avg_name="avg_pool", max_name="max_pool")
    model = models.Model(inputs, x, name=name)
    common.load_weights(model, weights, *imagenet_file(weights_name, include_top))
    return model


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="resnet50"):
    """ResNet50 with Keras's layer names (conv1_conv ... conv5_block3_out, avg_pool, predictions).

    Args:
        include_top: add global average pooling ("avg_pool") and the classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        input_shape: (height, width, 3); 224x224 with the top.
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        a functional Model (25,636,712 parameters with the top).

    Example:
        >>> keras.applications.ResNet50(weights=None).count_params()
        25636712
    """
    return build((3, 4, 6, 3), include_top, weights, input_tensor, input_shape, pooling,
                   classes, classifier_activation, name, "resnet50")


def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet101"):
    """ResNet101 (stages of 3, 4, 23, 3 blocks); arguments as ResNet50.

    Example:
        >>> keras.applications.ResNet101(weights=None).count_params()
        44707176
    """
    return build((3, 4, 23, 3), include_top, weights, input_tensor, input_shape, pooling,
                   classes, classifier_activation, name, "resnet101")


def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet152"):
    """ResNet152 (stages of 3, 8, 36, 3 blocks); arguments as ResNet50.

    Example:
        >>> keras.applications.ResNet152(weights=None).count_params()
        60419944
    """
    return build((3, 8, 36, 3), include_top, weights, input_tensor, input_shape, pooling,
                   classes, classifier_activation, name, "resnet152")


def preprocess_input(x, data_format=None):
    """Keras's ResNet preprocessing ('caffe'): RGB -> BGR, ImageNet means subtracted."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
