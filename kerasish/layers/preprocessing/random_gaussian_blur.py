"""RandomGaussianBlur: blurs a random share of the images with a random Gaussian kernel."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer


class RandomGaussianBlur(BaseImagePreprocessingLayer):
    """Blurs each image with probability drawn from `factor`, then clips to `value_range`.

    As in Keras 3.15.1: each image draws a blur probability from `[factor[0],
    factor[1]]` and a threshold from `[0, 1)` and is blurred when the threshold
    is below it; one `(sigma_x, sigma_y)` pair, drawn from `[sigma[0], sigma[1]]`
    plus 1e-6, serves the whole batch, with `ops.image.gaussian_blur` and a
    `kernel_size` square kernel. `sigma`, like `factor`, must lie in [0, 1].

    Args:
        factor: float f in [0, 1] (probabilities drawn from [0, f]) or (low, high).
        kernel_size: odd int (or a pair of odd ints, the first used) of the kernel.
        sigma: float s in [0, 1] (sigmas drawn from [0, s]) or (low, high).
        value_range: (min, max) the output is clipped to.
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> blur = keras.layers.RandomGaussianBlur(factor=(1, 1), sigma=(0.5, 0.5))
        >>> blur(np.ones((1, 5, 5, 3)) * 100).shape
        (1, 5, 5, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.kernel_size = _odd_pair(kernel_size)
        self.sigma = self._set_factor(sigma, "sigma")
        self.value_range = value_range

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        batch = (images.shape[0],)
        probability = self._uniform(batch, self.factor[0], self.factor[1])
        threshold = self._uniform(batch, 0.0, 1.0)
        sigma = self._uniform((2,), self.sigma[0], self.sigma[1], dtype=self.compute_dtype)
        sigma = ops.convert_to_numpy(sigma + 1e-6)
        blurred = ops.image.gaussian_blur(images, kernel_size=self.kernel_size,
                                          sigma=(float(sigma[0]), float(sigma[1])),
                                          data_format=self.data_format)
        apply = ops.reshape(threshold < probability, (-1, 1, 1, 1))
        images = ops.where(apply, blurred, images)
        images = ops.clip(images, self.value_range[0], self.value_range[1])
        return ops.cast(images, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "kernel_size": self.kernel_size,
                       "sigma": self.sigma, "value_range": self.value_range,
                       "seed": self.seed})
        return config


def _odd_pair(kernel_size):
    message = f"kernel_size must be an odd number. Received: kernel_size={kernel_size}"
    if isinstance(kernel_size, (tuple, list)):
        if len(kernel_size) != 2:
            raise ValueError("RandomGaussianBlur: the `kernel_size` argument should be a "
                             f"number (or a list of two numbers) Received: "
                             f"kernel_size={kernel_size}")
        if kernel_size[0] % 2 == 0 or kernel_size[1] % 2 == 0:
            raise ValueError(f"RandomGaussianBlur: {message}")
        return tuple(kernel_size)
    if isinstance(kernel_size, (int, float)) and not isinstance(kernel_size, bool):
        if kernel_size % 2 == 0:
            raise ValueError(f"RandomGaussianBlur: {message}")
        return (kernel_size, kernel_size)
    raise ValueError(f"RandomGaussianBlur: {message}")
