"""Shared pieces of the application builders: inputs, weights, heads, preprocessing."""
import os
import warnings

from kerasish import activations, layers
from kerasish.utils import file_utils


WEIGHTS_ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/"
# EfficientNet's files live in another bucket
EFFICIENTNET_ORIGIN = "https://storage.googleapis.com/keras-applications/"


def check_weights(weights, received="  Received: weights=", imagenet="'imagenet'", end="."):
    """Accepts None, "imagenet" or the path of an existing weights file (as Keras; the
    message's quoting and last words differ between Keras's applications: `imagenet`,
    `end` of the sentence, `received` (None: no "Received" part))."""
    if weights is None or weights == "imagenet":
        return
    if isinstance(weights, (str, os.PathLike)) and os.path.exists(weights):
        return
    tail = "" if received is None else f"{received}{weights}"
    raise ValueError("The `weights` argument should be either `None` (random initialization), "
                     f"{imagenet} (pre-training on ImageNet), or the path to the weights file to "
                     f"be loaded{end}{tail}")


def check_top(include_top, weights, classes, message=None):
    """ImageNet weights with the top need the 1000 ImageNet classes (`message`: the
    module's own wording, formatted with `classes`)."""
    if weights == "imagenet" and include_top and classes != 1000:
        message = message or ("If using `weights='imagenet'` with `include_top=True`, "
                              "`classes` should be 1000.  Received classes={classes}")
        raise ValueError(message.format(classes=classes))


def validate_activation(classifier_activation, weights):
    """Pretrained weights take only a softmax (or no) classifier activation, as in Keras."""
    if weights is None:
        return
    allowed = {activations.get("softmax"), activations.get(None)}
    if activations.get(classifier_activation) not in allowed:
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, with "
                         "`include_top=True`; Received: "
                         f"classifier_activation={classifier_activation}")


def obtain_input_shape(input_shape, default_size, min_size, require_flatten, weights=None):
    """The model's input shape (channels_last), checked as Keras's applications check it.

    Args:
        input_shape: None or (height, width, channels).
        default_size: the architecture's default height and width.
        min_size: the smallest height/width the architecture accepts.
        require_flatten: whether a classifier top follows (fixes the size).
        weights: None, "imagenet" or a path.

    Returns:
        tuple (height, width, channels), with None where the size is free.
    """
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        if input_shape[-1] not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          f"passed an input_shape with {input_shape[-1]} input channels.",
                          stacklevel=3)
        default_shape = (default_size, default_size, input_shape[-1])
    else:
        default_shape = (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, "
                             f"`input_shape` should be {default_shape}.  "
                             f"Received: input_shape={input_shape}")
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        if input_shape[-1] != 3 and weights == "imagenet":
            raise ValueError("The input must have 3 channels; Received "
                             f"`input_shape={input_shape}`")
        if any(size is not None and size < min_size for size in input_shape[:2]):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
        return tuple(input_shape)
    return default_shape if require_flatten else (None, None, 3)


def image_input(input_shape, input_tensor, default_size, min_size, include_top, weights):
    """The model's input tensor (channels_last): `input_tensor`, or a new Input."""
    shape = obtain_input_shape(input_shape, default_size, min_size, include_top, weights)
    if input_tensor is not None:
        return input_tensor
    return layers.Input(shape=shape)


def load_weights(model, weights, subpath, file_hash=None, origin=None, fname=None):
    """Loads `weights` into `model`: a path, or Keras's ImageNet file (downloaded once).

    Args:
        model: the built application.
        weights: None, "imagenet" or a path.
        subpath: the ImageNet file under `origin` (e.g. "vgg16/vgg16_weights_....h5").
        file_hash: its md5 (as Keras publishes it), or None.
        origin: the URL prefix (None: `WEIGHTS_ORIGIN`).
        fname: the cached file's name (None: the last part of `subpath`).
    """
    if weights == "imagenet":
        origin = WEIGHTS_ORIGIN if origin is None else origin
        weights = file_utils.get_file(fname or subpath.split("/")[-1], origin + subpath,
                                      cache_subdir="models", file_hash=file_hash)
    if weights is not None:
        model.load_weights(weights)


def make_divisible(value, divisor, min_value=None):
    """`value` rounded to a multiple of `divisor`, never below 90% of it."""
    min_value = divisor if min_value is None else min_value
    new = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * value else new


def correct_pad(size, kernel_size):
    """((top, bottom), (left, right)) zero padding before a stride-2 'valid' convolution."""
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    half = (kernel_size // 2, kernel_size // 2)
    return ((half[0] - adjust[0], half[0]), (half[1] - adjust[1], half[1]))


def pooled(x, pooling, avg_name=None, max_name=None):
    """The no-top output: the feature map, or its global average / max."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    if pooling is not None:
        raise ValueError(f"`pooling` must be None, 'avg' or 'max'. Received: pooling={pooling!r}")
    return x


def passthrough_preprocess_input(x, data_format=None):
    """`preprocess_input` of the models that rescale their inputs themselves
    (EfficientNet, EfficientNetV2, ConvNeXt, MobileNetV3): a pass-through, as in Keras.

    Args:
        x: array or tensor of pixels in [0, 255].
        data_format: ignored.

    Returns:
        `x` unchanged.
    """
    return x
