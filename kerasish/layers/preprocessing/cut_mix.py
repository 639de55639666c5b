"""CutMix: pastes a random box of another image of the batch into each image."""
from kerasish import ops, random
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_erasing import box_masks


class CutMix(BaseImagePreprocessingLayer):
    """Replaces a box of each image by the same box of a partner image (training only).

    As in Keras 3.15.1: `alpha` is drawn once from `[factor[0], factor[1]]`
    (plus 1e-6); each image draws `w ~ Beta(alpha, alpha)` and a box of sides
    `sqrt(1 - w) * width` by `sqrt(1 - w) * height` at a uniform position;
    the partners come from a random permutation of the batch. Labels (given
    as `{"images": ..., "labels": ...}`) are mixed by the box's share of the
    image: `labels * (1 - area) + partner_labels * area`. A single
    (unbatched) image is returned unchanged.

    Args:
        factor: float f in [0, 1] (alpha drawn from [0, f]) or (low, high).
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> mixed = keras.layers.CutMix(seed=1)(
        ...     {"images": np.random.random((4, 8, 8, 3)), "labels": np.eye(4)})
        >>> mixed["labels"].shape
        (4, 4)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)

    def call(self, inputs, training=True):
        is_dict = isinstance(inputs, dict)
        if is_dict:
            for key in ("bounding_boxes", "segmentation_masks"):
                if key in inputs:
                    raise NotImplementedError(f"CutMix: `{key}` inputs are not supported by "
                                              "kerasish yet (images and labels are).")
        images = ops.convert_to_tensor(inputs["images"] if is_dict else inputs)
        self._check_images(images)
        labels = inputs.get("labels") if is_dict else None
        transformation = self.get_random_transformation(images) \
            if training and images.ndim == 4 else None
        images = self.transform_images(images, transformation, training=training)
        if not is_dict:
            return images
        out = dict(inputs)
        out["images"] = images
        if labels is not None:
            out["labels"] = self.transform_labels(labels, transformation, training=training)
        return out

    def get_random_transformation(self, images):
        """"permutation_order", "box_corners" (x0, x1, y0, y1) and "mix_weight" per image."""
        batch = images.shape[0]
        height, width = images.shape[self.height_axis], images.shape[self.width_axis]
        alpha = float(ops.convert_to_numpy(self._uniform((), self.factor[0], self.factor[1],
                                                         self.compute_dtype))) + 1e-6
        weight = random.beta((batch,), alpha, alpha, dtype=self.compute_dtype,
                             seed=self.generator)
        ratio = ops.sqrt(1.0 - weight)
        x0, x1 = self._crop_bounds(batch, width, ratio)
        y0, y1 = self._crop_bounds(batch, height, ratio)
        order = random.shuffle(ops.arange(batch, dtype="int32"), seed=self.generator)
        return {"permutation_order": order, "box_corners": (x0, x1, y0, y1),
                "mix_weight": kept_share((x0, x1, y0, y1), height, width)}

    def _crop_bounds(self, batch, length, ratio):
        crop = ops.cast(ratio * length, self.compute_dtype)
        start = self._uniform((batch,), 0.0, 1.0, dtype=self.compute_dtype) * (length - crop)
        return start, start + crop

    def transform_images(self, images, transformation=None, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        masks = box_masks(self, images.shape, transformation["box_corners"])
        partners = ops.take(images, transformation["permutation_order"], axis=0)
        return ops.where(masks, partners, images)

    def transform_labels(self, labels, transformation=None, training=True):
        """Labels mixed by the pasted box's area share (unchanged at inference).

        Args:
            labels: (batch, classes) one-hot or soft labels.
            transformation: `get_random_transformation`'s dict (None: unchanged).
            training: whether the layer augments.

        Returns:
            the mixed labels.
        """
        if not training or transformation is None:
            return labels
        labels = ops.convert_to_tensor(labels)
        partners = ops.take(labels, transformation["permutation_order"], axis=0)
        weight = ops.reshape(ops.cast(transformation["mix_weight"], labels.dtype), (-1, 1))
        return weight * labels + (1.0 - weight) * partners

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "seed": self.seed})
        return config


def kept_share(box_corners, height, width):
    """`1 - box area / image area` per image: the weight of an image's own label.

    Args:
        box_corners: (x0, x1, y0, y1), one value per image each (fractional edges
            count fractionally, as in Keras, though the pasted pixels are whole).
        height, width: the image size.

    Returns:
        a (batch,) tensor.
    """
    x0, x1, y0, y1 = box_corners
    return 1.0 - (x1 - x0) * (y1 - y0) / (width * height)

