"""RandomErasing: replaces a random rectangle of some images with a fill value."""
from kerasish import ops, random
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer


class RandomErasing(BaseImagePreprocessingLayer):
    """Erases one rectangle per image, with probability drawn from `factor` (training only).

    As in Keras 3.15.1: each image draws two area fractions from `scale`; the
    box sides are `sqrt(fraction) * width` and `sqrt(fraction) * height` at a
    uniform position; pixels inside become `fill_value` (or, when it is None,
    normal noise times `value_range[1]`), clipped to `value_range`. An image
    is erased when a uniform threshold falls below its probability drawn from
    `[factor[0], factor[1]]`.

    Args:
        factor: float f in [0, 1] (probabilities drawn from [0, f]) or (low, high).
        scale: (low, high) area fraction of the box, in [0, 1].
        fill_value: a number, three numbers (one per channel) or None (noise).
        value_range: (min, max) of the images.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> erase = keras.layers.RandomErasing(factor=(1, 1), scale=(1, 1), fill_value=0)
        >>> float(erase(np.ones((1, 4, 4, 3))).numpy().max())   # the whole image
        0.0
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.scale = self._set_factor(scale, "scale")
        if fill_value is not None and not (
                isinstance(fill_value, (tuple, list)) and len(fill_value) == 3 or
                isinstance(fill_value, (int, float)) and not isinstance(fill_value, bool)):
            raise ValueError("RandomErasing: the `fill_value` argument should be a number (or "
                             f"a list of three numbers). Received: fill_value={fill_value}")
        self.fill_value = fill_value
        self.value_range = value_range

    def get_random_transformation(self, images):
        """Box corners `(x0, x1, y0, y1)`, `apply_erasing` and the clipped fill per image.

        Args:
            images: a rank-4 batch.

        Returns:
            dict with "box_corners", "apply_erasing" and "fill_value".
        """
        batch = images.shape[0]
        height, width = images.shape[self.height_axis], images.shape[self.width_axis]
        ratio = ops.sqrt(self._uniform((batch, 2), self.scale[0], self.scale[1],
                                       dtype=self.compute_dtype))
        x0, x1 = self._crop_bounds(batch, width, ratio[:, 0])
        y0, y1 = self._crop_bounds(batch, height, ratio[:, 1])
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        threshold = self._uniform((batch,), 0.0, 1.0)
        if self.fill_value is None:
            fill = random.normal(images.shape, dtype=self.compute_dtype, seed=self.generator) \
                * self.value_range[1]
        else:
            fill = ops.full_like(ops.cast(images, self.compute_dtype), self.fill_value) \
                if isinstance(self.fill_value, (tuple, list)) else \
                ops.ones(images.shape, dtype=self.compute_dtype) * self.fill_value
        fill = ops.clip(fill, self.value_range[0], self.value_range[1])
        return {"box_corners": (x0, x1, y0, y1), "apply_erasing": threshold < probability,
                "fill_value": fill}

    def _crop_bounds(self, batch, length, ratio):
        crop = ops.cast(ratio * length, self.compute_dtype)
        start = self._uniform((batch,), 0.0, 1.0, dtype=self.compute_dtype) * (length - crop)
        return start, start + crop

    def box_masks(self, images_shape, box_corners):
        """True inside each image's box: `x0 <= x < x1` and `y0 <= y < y1` (all channels).

        Args:
            images_shape: the batch's shape.
            box_corners: (x0, x1, y0, y1), one value per image each.

        Returns:
            a bool tensor of `images_shape`.
        """
        return box_masks(self, images_shape, box_corners)

    def transform_images(self, images, transformation=None, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        transformation = transformation or self.get_random_transformation(images)
        masks = self.box_masks(images.shape, transformation["box_corners"])
        erased = ops.where(masks, ops.cast(transformation["fill_value"], self.compute_dtype),
                           images)
        apply = ops.reshape(transformation["apply_erasing"], (-1, 1, 1, 1))
        return ops.cast(ops.where(apply, erased, images), self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "scale": self.scale,
                       "fill_value": self.fill_value, "value_range": self.value_range,
                       "seed": self.seed})
        return config


def box_masks(layer, images_shape, box_corners):
    """Keras's box masks of RandomErasing and CutMix (see `RandomErasing.box_masks`)."""
    height, width = images_shape[layer.height_axis], images_shape[layer.width_axis]
    grid_y, grid_x = ops.meshgrid(ops.arange(height, dtype=layer.compute_dtype),
                                  ops.arange(width, dtype=layer.compute_dtype), indexing="ij")
    where = (None, slice(None), slice(None), None) if layer.data_format == "channels_last" \
        else (None, None, slice(None), slice(None))
    grid_y, grid_x = grid_y[where], grid_x[where]
    x0, x1, y0, y1 = (ops.reshape(ops.cast(c, layer.compute_dtype), (-1, 1, 1, 1))
                      for c in box_corners)
    masks = (grid_x >= x0) & (grid_x < x1) & (grid_y >= y0) & (grid_y < y1)
    return ops.repeat(masks, images_shape[layer.channel_axis], axis=layer.channel_axis)
