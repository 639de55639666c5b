"""Shared pieces of the application builders: inputs, weights, heads, preprocessing."""
import numpy as np

from kerasish import layers, ops


def check_weights(weights, name):
    """Accepts None or a path to a weights file; ImageNet download is not available yet."""
    if weights is None:
        return
    if weights == "imagenet":
        raise NotImplementedError(
            f"{name}: downloading the ImageNet weights is not implemented in kerasish yet; "
            "pass weights=None, or the path of a weights file saved by Keras for this model.")
    if not isinstance(weights, str):
        raise ValueError(f"{name}: `weights` must be None or the path to a weights file. "
                         f"Received: weights={weights!r}")


def image_input(input_shape, input_tensor, default_size, min_size, include_top, name):
    """The model's input tensor (channels_last)."""
    if input_shape is None:
        input_shape = (default_size, default_size, 3) if include_top else (None, None, 3)
    input_shape = tuple(input_shape)
    if len(input_shape) != 3 or input_shape[-1] != 3 and include_top:
        raise ValueError(f"{name}: `input_shape` must be (height, width, 3). "
                         f"Received: input_shape={input_shape}")
    for size in input_shape[:2]:
        if size is not None and size < min_size:
            raise ValueError(f"{name}: input size must be at least {min_size}x{min_size}; "
                             f"Received: input_shape={input_shape}")
    if input_tensor is not None:
        return input_tensor
    return layers.Input(shape=input_shape)


def check_top(include_top, weights, classes, name):
    if weights is not None and include_top and classes != 1000 and weights == "imagenet":
        raise ValueError(f"{name}: with weights='imagenet' and include_top=True, `classes` "
                         f"must be 1000. Received: classes={classes}")


def pooled(x, pooling, avg_name=None, max_name=None):
    """The no-top output: the feature map, or its global average / max."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    if pooling is not None:
        raise ValueError(f"`pooling` must be None, 'avg' or 'max'. Received: pooling={pooling!r}")
    return x


def caffe_preprocess(x):
    """RGB -> BGR and ImageNet channel means subtracted (VGG16, ResNet50's 'caffe' mode)."""
    x = np.asarray(ops.convert_to_numpy(x) if ops.is_tensor(x) else x, dtype="float32")
    x = x[..., ::-1]
    return x - np.array([103.939, 116.779, 123.68], dtype="float32")


def tf_preprocess(x):
    """Pixels scaled from [0, 255] to [-1, 1] (MobileNetV2's 'tf' mode)."""
    x = np.asarray(ops.convert_to_numpy(x) if ops.is_tensor(x) else x, dtype="float32")
    return x / 127.5 - 1.0
