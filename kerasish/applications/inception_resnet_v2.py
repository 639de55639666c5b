"""InceptionResNetV2 (Szegedy et al., 2017), as `keras.applications.InceptionResNetV2`
builds it (with Keras's `CustomScaleLayer` for the scaled residuals)."""
from kerasish import layers, models
from kerasish.applications import common, imagenet_utils
from kerasish.layers.layer import Layer

_ORIGIN = "inception_resnet_v2/"
_HASHES = ("e693bd0210a403b3192acc6073ad2e96", "d19885ff4a710c122648d3b5c3b684e4")


class CustomScaleLayer(Layer):
    """`inputs[0] + inputs[1] * scale`: a residual added with a fixed scale.

    Args:
        scale: the residual's factor.

    Example:
        >>> CustomScaleLayer(0.5)([np.ones((1, 2)), np.ones((1, 2))])  # 1.5 everywhere
    """

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale

    def compute_output_shape(self, input_shape):
        return input_shape[0]

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}


def conv2d_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu",
              use_bias=False, name=None):
    """Conv2D, then (without bias) BatchNormalization (no scale), then `activation`.

    Args:
        x: input tensor.
        filters, kernel_size, strides, padding, use_bias: as Conv2D.
        activation: None or the activation (a layer `{name}_ac`).
        name: None (auto names) or the convolution's name.

    Returns:
        the output tensor.
    """
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias,
                      name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=3, scale=False,
                                      name=None if name is None else f"{name}_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else f"{name}_ac")(x)
    return x


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    """An Inception-ResNet block ("block35", "block17" or "block8"): `x + scale * r`.

    Args:
        x: input tensor.
        scale: the residual's factor.
        block_type: "block35", "block17" or "block8".
        block_idx: its index, in the layer names (`{block_type}_{block_idx}_...`).
        activation: the activation after the sum (None: none).

    Returns:
        the output tensor.
    """
    if block_type == "block35":
        branches = [conv2d_bn(x, 32, 1),
                    conv2d_bn(conv2d_bn(x, 32, 1), 32, 3),
                    conv2d_bn(conv2d_bn(conv2d_bn(x, 32, 1), 48, 3), 64, 3)]
    elif block_type == "block17":
        branches = [conv2d_bn(x, 192, 1),
                    conv2d_bn(conv2d_bn(conv2d_bn(x, 128, 1), 160, [1, 7]), 192, [7, 1])]
    elif block_type == "block8":
        branches = [conv2d_bn(x, 192, 1),
                    conv2d_bn(conv2d_bn(conv2d_bn(x, 192, 1), 224, [1, 3]), 256, [3, 1])]
    else:
        raise ValueError("Unknown Inception-ResNet block type. Expects \"block35\", "
                         f"\"block17\" or \"block8\", but got: {block_type}")
    block_name = f"{block_type}_{block_idx}"
    mixed = layers.Concatenate(axis=3, name=f"{block_name}_mixed")(branches)
    up = conv2d_bn(mixed, x.shape[3], 1, activation=None, use_bias=True,
                   name=f"{block_name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=f"{block_name}_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None,
                      input_shape=None, pooling=None, classes=1000,
                      classifier_activation="softmax", name="inception_resnet_v2"):
    """InceptionResNetV2 with Keras's layer names (mixed_5b, block35_1 ..., conv_7b).

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
        a functional Model (55,873,736 parameters with the top).

    Example:
        >>> keras.applications.InceptionResNetV2(weights=None).count_params()
        55873736
    """
    common.check_weights(weights, received=None, imagenet="`imagenet`")
    common.check_top(include_top, weights, classes,
                     'If using `weights="imagenet"` with `include_top=True`, `classes` should '
                     "be 1000. Received classes={classes}")
    inputs = common.image_input(input_shape, input_tensor, 299, 75, include_top, weights)
    x = conv2d_bn(inputs, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    branches = [conv2d_bn(x, 96, 1),
                conv2d_bn(conv2d_bn(x, 48, 1), 64, 5),
                conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1), 96, 3), 96, 3)]
    branches.append(conv2d_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1))
    x = layers.Concatenate(axis=3, name="mixed_5b")(branches)
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)
    branches = [conv2d_bn(x, 384, 3, strides=2, padding="valid"),
                conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 256, 3), 384, 3, strides=2,
                          padding="valid"),
                layers.MaxPooling2D(3, strides=2, padding="valid")(x)]
    x = layers.Concatenate(axis=3, name="mixed_6a")(branches)
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)
    branches = [conv2d_bn(conv2d_bn(x, 256, 1), 384, 3, strides=2, padding="valid"),
                conv2d_bn(conv2d_bn(x, 256, 1), 288, 3, strides=2, padding="valid"),
                conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 288, 3), 320, 3, strides=2,
                          padding="valid"),
                layers.MaxPooling2D(3, strides=2, padding="valid")(x)]
    x = layers.Concatenate(axis=3, name="mixed_7a")(branches)
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8",
                               block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling)
    model = models.Model(inputs, x, name=name)
    suffix = "" if include_top else "_notop"
    common.load_weights(model, weights, _ORIGIN + "inception_resnet_v2_weights_tf_dim_"
                                                  f"ordering_tf_kernels{suffix}.h5",
                        _HASHES[0 if include_top else 1])
    return model


def preprocess_input(x, data_format=None):
    """Keras's InceptionResNetV2 preprocessing ('tf'): pixels scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
