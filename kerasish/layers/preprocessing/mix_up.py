"""MixUp: blends each image (and label) with another image of the batch."""
from kerasish import ops, random
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer


class MixUp(BaseImagePreprocessingLayer):
    """`w * x + (1 - w) * x[perm]` with `w ~ Beta(alpha, alpha)` per image and a random
    permutation of the batch; labels are mixed the same way (training only).

    Call it on a batch of images, or on a dict `{"images": ..., "labels": ...}`
    (labels one-hot or soft, shape `(batch, classes)`), which returns a dict.

    Args:
        alpha: Beta distribution parameter (> 0).
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> mixed = keras.layers.MixUp(alpha=0.2, seed=1)(
        ...     {"images": np.ones((4, 8, 8, 3)), "labels": np.eye(4)})
        >>> mixed["labels"].shape
        (4, 4)
    """

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        if alpha <= 0:
            raise ValueError(f"MixUp: `alpha` must be positive. Received: alpha={alpha}")
        self.alpha = alpha

    def call(self, inputs, training=True):
        is_dict = isinstance(inputs, dict)
        images = inputs["images"] if is_dict else inputs
        images = ops.convert_to_tensor(images)
        self._check_images(images)
        labels = inputs.get("labels") if is_dict else None
        if training:
            images, labels = self._mix(images, labels)
        else:
            images = ops.cast(images, self.compute_dtype)
        if is_dict:
            out = dict(inputs)
            out["images"] = images
            if labels is not None:
                out["labels"] = labels
            return out
        return images

    def _mix(self, images, labels):
        batch = images.shape[0] if images.ndim == 4 else 1
        order = random.shuffle(ops.arange(batch, dtype="int64"), seed=self.generator)
        weight = random.beta((batch,), self.alpha, self.alpha, seed=self.generator)
        images = ops.cast(images, self.compute_dtype)
        image_weight = ops.reshape(ops.cast(weight, self.compute_dtype),
                                   (-1, 1, 1, 1) if images.ndim == 4 else (1, 1, 1))
        partner = ops.take(images, order, axis=0) if images.ndim == 4 else images
        images = image_weight * images + (1.0 - image_weight) * partner
        if labels is not None:
            labels = ops.cast(ops.convert_to_tensor(labels), self.compute_dtype)
            label_weight = ops.reshape(ops.cast(weight, self.compute_dtype), (-1, 1))
            labels = label_weight * labels + (1.0 - label_weight) * ops.take(labels, order,
                                                                              axis=0)
        return images, labels

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"alpha": self.alpha, "seed": self.seed})
        return config
