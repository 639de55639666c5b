"""CenterCrop: crops the centre of images (resizing when they are too small)."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.utils import image_utils


class CenterCrop(BaseImagePreprocessingLayer):
    """Crops the central (height, width) box; smaller inputs are centre-cropped to the
    target aspect ratio and resized (`smart_resize`), as Keras.

    Args:
        height, width: output size.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.CenterCrop(2, 2)(np.ones((1, 4, 4, 3))).shape
        (1, 2, 2, 3)
    """

    _has_seed_generator = False  # Keras's draws nothing

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height, self.width = height, width

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        h_diff = images.shape[self.height_axis] - self.height
        w_diff = images.shape[self.width_axis] - self.width
        if h_diff >= 0 and w_diff >= 0:
            top, left = h_diff // 2, w_diff // 2
            if self.data_format == "channels_last":
                return images[:, top:top + self.height, left:left + self.width, :]
            return images[:, :, top:top + self.height, left:left + self.width]
        return image_utils.smart_resize(images, (self.height, self.width),
                                        data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[self.height_axis], shape[self.width_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config
