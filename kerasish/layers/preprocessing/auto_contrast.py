"""AutoContrast: stretches each image channel to the full value range."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import (BaseImagePreprocessingLayer,
                                                             transform_value_range)
from kerasish.layers.preprocessing.random_contrast import sorted_value_range


class AutoContrast(BaseImagePreprocessingLayer):
    """Maps each image channel's [min, max] to `value_range` (constant channels unchanged).

    Args:
        value_range: (min, max) of the images.

    Example:
        >>> out = keras.layers.AutoContrast()(np.array([[[[10.0], [20.0]]]]))
        >>> out.numpy().ravel().tolist()
        [0.0, 255.0]
    """

    _has_seed_generator = False  # Keras's draws nothing

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = sorted_value_range(self, value_range)

    def transform_images(self, images, training=True):
        original = ops.cast(images, self.compute_dtype)
        x = transform_value_range(original, self.value_range, (0, 255))
        low = ops.min(x, axis=(1, 2), keepdims=True)
        spread = ops.max(x, axis=(1, 2), keepdims=True) - low
        flat = ops.equal(spread, 0)     # Keras: 255 / 0 gives NaN, and NaN keeps the input
        scale = ops.divide(255.0, ops.where(flat, 1.0, spread))
        # Keras's arithmetic: x * scale + (-low * scale)
        out = ops.clip(x * scale + ops.negative(low) * scale, 0.0, 255.0)
        out = transform_value_range(out, (0, 255), self.value_range)
        return ops.where(flat | ops.isnan(out), original, out)

    def get_config(self):
        config = super().get_config()
        config["value_range"] = self.value_range
        return config
