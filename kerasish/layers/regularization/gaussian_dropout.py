"""GaussianDropout: multiplies inputs by 1-centred Gaussian noise during training."""
import math

from kerasish import ops, random
from kerasish.layers.layer import Layer
from kerasish.layers.regularization.noise_base import check_rate


class GaussianDropout(Layer):
    """Multiplies by N(1, rate / (1 - rate)) noise, training only.

    Args:
        rate: drop probability in [0, 1] (as Dropout's).
        seed: int seed.

    Example:
        >>> keras.layers.GaussianDropout(0.3, seed=1)(np.ones((2, 3)), training=True).shape
        (2, 3)
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        check_rate(rate)
        self.rate = rate
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed) if rate > 0 else None
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if not (training and self.rate > 0):
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = random.normal(inputs.shape, mean=1.0, stddev=stddev, dtype=self.compute_dtype,
                              seed=self.seed_generator)
        return ops.multiply(inputs, noise)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config
