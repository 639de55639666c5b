"""GaussianNoise: adds zero-centred Gaussian noise during training."""
from kerasish import ops, random
from kerasish.layers.layer import Layer
from kerasish.layers.regularization.noise_base import check_rate


class GaussianNoise(Layer):
    """Adds N(0, stddev^2) noise, training only.

    Args:
        stddev: noise standard deviation in [0, 1].
        seed: int seed.

    Example:
        >>> keras.layers.GaussianNoise(0.1, seed=1)(np.ones((2, 3)), training=True).shape
        (2, 3)
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        check_rate(stddev, "stddev")
        self.stddev = stddev
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed) if stddev > 0 else None
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if not (training and self.stddev > 0):
            return inputs
        noise = random.normal(inputs.shape, mean=0.0, stddev=self.stddev,
                              dtype=self.compute_dtype, seed=self.seed_generator)
        return ops.add(inputs, noise)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"stddev": self.stddev, "seed": self.seed})
        return config
