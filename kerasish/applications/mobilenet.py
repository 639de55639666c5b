"""MobileNet (Howard et al., 2017), as `keras.applications.MobileNet` builds it."""
import warnings

from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

# (pointwise filters, stride) of depthwise-separable blocks 1..13
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))
_IMAGENET_ALPHAS = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0", 0.25: "2_5"}
_IMAGENET_SIZES = (128, 160, 192, 224)


def _depthwise_block(x, filters, alpha, depth_multiplier, stride, block_id):
    """3x3 depthwise conv, BN, ReLU6, 1x1 pointwise conv, BN, ReLU6 (stride 2: pad first)."""
    if stride == 2:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid",
                               depth_multiplier=depth_multiplier, strides=(stride, stride),
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(filters * alpha), (1, 1), padding="same", use_bias=False,
                      strides=(1, 1), name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True,
              weights="imagenet", input_tensor=None, pooling=None, classes=1000,
              classifier_activation="softmax", name=None):
    """MobileNet with Keras's layer names (conv1, conv_dw_1 ... conv_pw_13, conv_preds).

    Args:
        input_shape: (height, width, 3); 224x224 by default.
        alpha: width multiplier (filters scaled by alpha).
        depth_multiplier: depthwise convolutions' channel multiplier.
        dropout: the dropout rate before the classifier.
        include_top: add global average pooling, dropout and the 1x1-conv classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name (Keras's "mobilenet_{alpha:.2f}_{rows}" by default).

    Returns:
        a functional Model (4,253,864 parameters for alpha 1.0 with the top).

    Example:
        >>> keras.applications.MobileNet(weights=None).count_params()
        4253864
    """
    common.check_weights(weights, received=" Received weights=")
    common.check_top(include_top, weights, classes)
    square = input_shape is not None and input_shape[0] == input_shape[1]
    default_size = input_shape[0] if square and input_shape[0] in _IMAGENET_SIZES else 224
    inputs = common.image_input(input_shape, input_tensor, default_size, 32, include_top,
                                weights)
    rows = _imagenet_rows(inputs, alpha, depth_multiplier) if weights == "imagenet" \
        else inputs.shape[1]
    x = layers.Conv2D(int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2),
                      name="conv1")(inputs)
    x = layers.BatchNormalization(axis=-1, name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_block(x, filters, alpha, depth_multiplier, stride, block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        common.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling)
    model = models.Model(inputs, x, name=name or f"mobilenet_{alpha:0.2f}_{rows}")
    if weights == "imagenet":
        top = "" if include_top else "_no_top"
        common.load_weights(model, weights,
                            f"mobilenet/mobilenet_{_IMAGENET_ALPHAS[alpha]}_{rows}_tf{top}.h5")
    else:
        common.load_weights(model, weights, None)
    return model


def _imagenet_rows(inputs, alpha, depth_multiplier):
    """The input size of the ImageNet file to load (Keras's checks and 224 fallback)."""
    if depth_multiplier != 1:
        raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1.  "
                         f"Received depth_multiplier={depth_multiplier}")
    if alpha not in _IMAGENET_ALPHAS:
        raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, "
                         f"`0.50`, `0.75` or `1.0` only.  Received alpha={alpha}")
    rows = inputs.shape[1]
    if rows != inputs.shape[2] or rows not in _IMAGENET_SIZES:
        warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                      "[128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                      "loaded as the default.", stacklevel=3)
        return 224
    return rows


def preprocess_input(x, data_format=None):
    """Keras's MobileNet preprocessing ('tf'): pixels scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
