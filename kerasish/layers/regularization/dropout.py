"""Dropout: randomly zeroes inputs during training."""
from kerasish import random
from kerasish.layers.layer import Layer


class Dropout(Layer):
    """Applies inverted dropout to the input during training.

    A `rate` fraction of the inputs is set to 0 and the rest scaled by
    `1 / (1 - rate)`, only when `training` is True (as in `fit`).

    Args:
        rate: float in [0, 1), the fraction of inputs to drop.
        noise_shape: 1-D shape of the binary mask, broadcast over the input
            (None entries take the input's size).
        seed: int seed for reproducible masks.

    Example:
        >>> keras.layers.Dropout(0.5)(np.ones((2, 4)), training=True)
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value between "
                f"0 and 1. Received: rate={rate}"
            )
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed) if rate > 0 else None
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, training=False):
        if training and 0 < self.rate < 1:
            return random.dropout(inputs, self.rate, noise_shape=self.noise_shape,
                                  seed=self.seed_generator)
        if training and self.rate == 1:
            return inputs * 0.0
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape})
        return config
