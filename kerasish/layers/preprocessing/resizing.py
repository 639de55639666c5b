"""Resizing: resizes image batches to a fixed size."""
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.ops import image as image_ops


class Resizing(BaseImagePreprocessingLayer):
    """Resizes images to (height, width) with Keras's numbers for every interpolation.

    Args:
        height, width: output size.
        interpolation: "bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5".
        crop_to_aspect_ratio: crop the centre to the target aspect ratio first.
        pad_to_aspect_ratio: pad to the target aspect ratio (with `fill_value`) first.
        fill_mode: "constant" only.
        fill_value: padding value.
        antialias: antialias when downsampling.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.Resizing(4, 6)(np.ones((2, 8, 8, 3))).shape
        (2, 4, 6, 3)
    """

    _has_seed_generator = False  # Keras's draws nothing

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height, self.width = height, width
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = antialias

    def transform_images(self, images, training=True):
        return image_ops.resize(
            images, (self.height, self.width), interpolation=self.interpolation,
            antialias=self.antialias, crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            pad_to_aspect_ratio=self.pad_to_aspect_ratio, fill_value=self.fill_value,
            data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[self.height_axis], shape[self.width_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width,
                       "interpolation": self.interpolation,
                       "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                       "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
                       "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                       "antialias": self.antialias})
        return config
