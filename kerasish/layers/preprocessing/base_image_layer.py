"""BaseImagePreprocessingLayer: shared checks, factors and seeds of the image layers."""
import numpy as np

from kerasish import ops, random
from kerasish.backend import config
from kerasish.backend.kernels import eigen_math
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.random import SeedGenerator


class BaseImagePreprocessingLayer(Layer):
    """Image layers: `call(images, training=True)`; random layers act only in training
    (outside `fit` a direct call trains by default, as in Keras) and are the
    identity (cast to the compute dtype) at inference.

    Subclasses implement `transform_images(images, training)` on a rank-4,
    channels-last-or-first batch; rank-3 inputs are batched and unbatched here.

    Args:
        data_format: "channels_last" or "channels_first" (default: global setting).
        seed: int seed of the layer's `SeedGenerator`.
    """

    _FACTOR_BOUNDS = (-1, 1)
    # As Keras, only the layers that draw make a SeedGenerator (whose default seed
    # comes from Python's `random`, so an extra one would shift later seeds).
    _has_seed_generator = True

    def __init__(self, data_format=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        data_format = data_format or config.image_data_format()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(f"{type(self).__name__}: `data_format` must be 'channels_last' or "
                             f"'channels_first'. Received: data_format={data_format!r}")
        self.data_format = data_format
        self.seed = seed
        self.generator = SeedGenerator(seed) if self._has_seed_generator else None
        self.built = True

    # Geometry ------------------------------------------------------------------------------
    @property
    def height_axis(self):
        return -3 if self.data_format == "channels_last" else -2

    @property
    def width_axis(self):
        return -2 if self.data_format == "channels_last" else -1

    @property
    def channel_axis(self):
        return -1 if self.data_format == "channels_last" else -3

    def _check_images(self, images, channels=None):
        if len(images.shape) not in (3, 4):
            raise ValueError(
                f"{type(self).__name__} ({self.name}) expects images of rank 3 (one image) or "
                f"4 (a batch), in {self.data_format} layout. Received: inputs.shape="
                f"{tuple(images.shape)}")
        if channels is not None and images.shape[self.channel_axis] not in channels:
            raise ValueError(
                f"{type(self).__name__} ({self.name}) expects {' or '.join(map(str, channels))} "
                f"channels on axis {self.channel_axis} ({self.data_format}). Received: "
                f"inputs.shape={tuple(images.shape)}")

    def _set_factor(self, factor, name="factor"):
        low, high = self._FACTOR_BOUNDS
        message = (f"{type(self).__name__}: the `{name}` argument should be a number (or a list "
                   f"of two numbers) in the range [{low}, {high}]. Received: {name}={factor}")
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or factor[0] > high or factor[1] < low:
                raise ValueError(message)
            return tuple(sorted(factor))
        if isinstance(factor, (int, float)) and not isinstance(factor, bool):
            if factor < low or factor > high:
                raise ValueError(message)
            factor = abs(factor)
            # Keras's (-f, f) clipped at the lower bound: (0, 0.0) for f = 0, not (-0.0, 0.0)
            return (low if -factor <= low else -factor, factor)
        raise ValueError(message)

    # Calling -----------------------------------------------------------------------------------
    def call(self, inputs, training=True):
        self._check_images(inputs)
        unbatched = inputs.ndim == 3
        images = ops.expand_dims(inputs, 0) if unbatched else inputs
        out = self.transform_images(images, training=training)
        return ops.squeeze(out, 0) if unbatched else out

    def transform_images(self, images, training=True):
        raise NotImplementedError(f"{type(self).__name__}.transform_images")

    def _uniform(self, shape, low, high, dtype="float32"):
        return random.uniform(shape, minval=low, maxval=high, dtype=dtype, seed=self.generator)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def compute_output_spec(self, inputs, training=None):
        return KerasTensor(self.compute_output_shape(inputs.shape), self.compute_dtype)

    def get_config(self):
        config_dict = super().get_config()
        config_dict["data_format"] = self.data_format
        return config_dict


def affine_matrix(angle_degrees, height, width, scale=None):
    """Keras's rotation(-about-the-centre) transforms, one row of 8 per angle."""
    angle = np.asarray(angle_degrees, dtype="float32") * np.float32(np.pi / 180.0)
    scale = np.ones_like(angle) if scale is None else scale
    cx, cy = 0.5 * (width - 1), 0.5 * (height - 1)
    cos, sin = eigen_math.cos(np, angle), eigen_math.sin(np, angle)   # TensorFlow's values
    a0, a1 = scale * cos, scale * -sin
    b0, b1 = scale * sin, scale * cos
    a2 = cx - cx * a0 - cy * a1
    b2 = cy - cx * b0 - cy * b1
    zeros = np.zeros_like(angle)
    return np.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1).astype("float32")


def transform_value_range(images, original_range, target_range):
    """Linearly maps `images` from one value range to another (identity if equal)."""
    if tuple(original_range) == tuple(target_range):
        return images
    images = (images - original_range[0]) / (original_range[1] - original_range[0])
    return images * (target_range[1] - target_range[0]) + target_range[0]
