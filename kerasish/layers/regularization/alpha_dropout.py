"""AlphaDropout: dropout that keeps SELU's self-normalising mean and variance."""
from kerasish import ops, random
from kerasish.layers.layer import Layer
from kerasish.layers.regularization.noise_base import check_rate, concrete_noise_shape

_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(Layer):
    """Alpha dropout (Klambauer et al., 2017), training only.

    Dropped inputs are set to SELU's negative saturation `-alpha * scale`,
    then `a * x + b` restores zero mean and unit variance, with
    `a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5` and
    `b = -a * alpha_p * rate`.

    Args:
        rate: drop probability in [0, 1].
        noise_shape: shape of the keep mask (None entries from the input).
        seed: int seed.

    Example:
        >>> keras.layers.AlphaDropout(0.2, seed=1)(np.ones((2, 3)), training=True).shape
        (2, 3)
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        check_rate(rate)
        self.rate = rate
        self.seed = seed
        self.noise_shape = noise_shape
        self.seed_generator = random.SeedGenerator(seed) if rate > 0 else None
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if not (training and self.rate > 0):
            return inputs
        alpha_p = -_ALPHA * _SCALE
        shape = concrete_noise_shape(inputs.shape, self.noise_shape)
        kept = ops.cast(ops.greater_equal(random.uniform(shape, seed=self.seed_generator),
                                          self.rate), inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = ops.add(ops.multiply(inputs, kept), ops.multiply(alpha_p, ops.subtract(1.0, kept)))
        return ops.add(ops.multiply(a, x), b)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape})
        return config
