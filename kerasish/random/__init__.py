"""Random tensors (`keras.random`): normal, uniform, truncated_normal, ...

`seed` may be None (the device's global generator, set by
`keras.utils.set_random_seed`), an int (the same numbers on every call,
like Keras's stateless integer seeds) or a `SeedGenerator` (a stream that
advances on each call).
"""
import random as _pyrandom

import numpy as np

from kerasish.autodiff import capture as _capture
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config, devices as _dev
from kerasish.ops import core, elementwise as ew, manipulation
from kerasish.utils import registry


class SeedGenerator:
    """A seeded stream of random draws, as `keras.random.SeedGenerator`.

    Args:
        seed: int seed (random if None).

    Example:
        >>> gen = keras.random.SeedGenerator(42)
        >>> a = keras.random.normal((2,), seed=gen)
        >>> b = keras.random.normal((2,), seed=gen)   # different from a
    """

    def __init__(self, seed=None, name=None, **kwargs):
        self.initial_seed = int(seed) if seed is not None else int(np.random.randint(0, 2**31 - 1))
        self.name = name or "seed_generator"
        self._count = 0

    def next(self):
        """Returns a fresh generator for one draw and advances the stream."""
        seed = (self.initial_seed, self._count)
        self._count += 1
        return seed

    @property
    def state(self):
        """(seed, draws so far), for checkpointing."""
        return (self.initial_seed, self._count)

    def set_state(self, state):
        self.initial_seed, self._count = int(state[0]), int(state[1])

    def get_config(self):
        return {"seed": self.initial_seed}


def _generator(seed):
    dev = _dev.current_device()
    if seed is None:
        return dev, dev.rng
    if isinstance(seed, SeedGenerator):
        return dev, dev.make_rng(list(seed.next()))
    if isinstance(seed, (int, np.integer)):
        return dev, dev.make_rng(int(seed))
    raise ValueError(
        f"`seed` must be None, an int or a keras.random.SeedGenerator. Received: seed={seed!r}"
    )


def _sample(seed, draw, device=None):
    """`draw(device, generator)` as a Tensor (on `device`, default the generator's);
    a captured step draws again on each replay."""
    dev, gen = _generator(seed)
    out = Tensor(draw(dev, gen), device or dev)
    if _capture.tracer is not None:
        _capture.hook_random(lambda: draw(*_generator(seed)), out, seed)
    return out


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)


def _float(dtype):
    dtype = config.standardize_dtype(dtype)
    if not config.is_float_dtype(dtype):
        raise ValueError(f"Expected a float dtype. Received: dtype={dtype}")
    return dtype


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples from a normal distribution.

    Args:
        shape: output shape.
        mean, stddev: distribution parameters.
        dtype: float dtype (floatx by default).
        seed: None, int or SeedGenerator.

    Returns:
        Tensor.
    """
    dtype, shape = config.to_numpy_dtype(_float(dtype)), _shape(shape)
    return _sample(seed, lambda dev, gen: (gen.standard_normal(shape) * stddev + mean
                                           ).astype(dtype))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples uniformly from [minval, maxval)."""
    dtype, shape = config.to_numpy_dtype(_float(dtype)), _shape(shape)
    return _sample(seed, lambda dev, gen: gen.uniform(minval, maxval, shape).astype(dtype))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples redrawn until within two standard deviations of the mean."""
    dtype, shape = config.to_numpy_dtype(_float(dtype)), _shape(shape)

    def draw(dev, gen):
        values = gen.standard_normal(shape)
        bad = dev.xp.abs(values) > 2.0
        while bool(bad.any()):
            values[bad] = gen.standard_normal(int(bad.sum()))
            bad = dev.xp.abs(values) > 2.0
        return (values * stddev + mean).astype(dtype)
    return _sample(seed, draw)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniformly from [minval, maxval)."""
    dtype, shape = config.to_numpy_dtype(dtype), _shape(shape)
    return _sample(seed, lambda dev, gen: gen.integers(minval, maxval, shape).astype(dtype))


def categorical(logits, num_samples, dtype="int32", seed=None):
    """Draws class indices from unnormalised log-probabilities, one row per batch item."""
    logits = core.convert_to_tensor(logits)
    dev, gen = _generator(seed)
    xp = dev.xp
    z = logits._value - logits._value.max(axis=-1, keepdims=True)
    p = xp.exp(z)
    cdf = xp.cumsum(p / p.sum(axis=-1, keepdims=True), axis=-1)
    draws = gen.uniform(0, 1, (z.shape[0], num_samples))
    idx = (draws[:, :, None] > cdf[:, None, :]).sum(axis=-1)
    return Tensor(xp.minimum(idx, z.shape[-1] - 1).astype(config.to_numpy_dtype(dtype)), dev)


def shuffle(x, axis=0, seed=None):
    """Shuffles a tensor along `axis`."""
    x = core.convert_to_tensor(x)
    dev, gen = _generator(seed)
    perm = gen.permutation(x.shape[axis])
    return manipulation.take(x, perm, axis=axis)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Inverted dropout: zeroes a `rate` fraction and scales the rest by 1/(1-rate).

    Args:
        inputs: tensor.
        rate: float in [0, 1).
        noise_shape: shape of the keep mask, broadcast against `inputs`.
        seed: None, int or SeedGenerator.
    """
    x = core.float_operand(inputs)
    if not 0 <= rate < 1:
        raise ValueError(f"dropout: `rate` must be in [0, 1). Received: rate={rate}")
    if rate == 0:
        return x
    if isinstance(x, KerasTensor):  # a symbolic call: no draw, the seed does not advance
        return KerasTensor(tuple(x.shape), x.dtype)
    shape = x.shape if noise_shape is None else tuple(
        x.shape[i] if n is None else n for i, n in enumerate(noise_shape))
    dtype, target = x._value.dtype, x._device

    def draw(dev, gen):
        keep = gen.random(shape, dtype=np.float32) >= rate
        return target.send((keep / (1.0 - rate)).astype(dtype))
    return ew.multiply(x, _sample(seed, draw, target))


def gamma(shape, alpha, dtype=None, seed=None):
    """Samples from a gamma distribution with concentration `alpha` (scale 1).

    Example:
        >>> keras.random.gamma((3,), alpha=2.0, seed=1).shape
        (3,)
    """
    dev, gen = _generator(seed)
    values = gen.gamma(alpha, 1.0, _shape(shape))
    return Tensor(values.astype(config.to_numpy_dtype(_float(dtype))), dev)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Samples successes out of `counts` trials with success `probabilities`.

    Example:
        >>> keras.random.binomial((2,), counts=10, probabilities=0.5, seed=1)
    """
    dev, gen = _generator(seed)
    counts = core.convert_to_numpy(counts)
    probs = core.convert_to_numpy(probabilities)
    values = gen.binomial(dev.send(counts).astype("int64"), dev.send(probs), _shape(shape))
    return Tensor(values.astype(config.to_numpy_dtype(_float(dtype))), dev)


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Samples from a beta distribution.

    Example:
        >>> keras.random.beta((2,), alpha=2.0, beta=3.0, seed=1)
    """
    dev, gen = _generator(seed)
    values = gen.beta(core.convert_to_numpy(alpha), core.convert_to_numpy(beta), _shape(shape))
    return Tensor(values.astype(config.to_numpy_dtype(_float(dtype))), dev)


def set_seed(seed):
    """Seeds Python's, numpy's and every kerasish device's generators.

    Devices created later are seeded from the same value, so
    `keras.utils.set_random_seed(n)` makes `seed=None` draws reproducible.

    Args:
        seed: an int.

    Example:
        >>> keras.random.set_seed(42)
    """
    seed = int(seed)
    _pyrandom.seed(seed)
    np.random.seed(seed)
    _dev.set_global_seed(seed)


def set_random_seed(seed):
    """Seeds Python's `random`, numpy and every kerasish device generator.

    Args:
        seed: an int.

    Example:
        >>> keras.utils.set_random_seed(42)
    """
    set_seed(int(seed))


__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma",
           "normal", "randint", "set_seed", "shuffle", "truncated_normal", "uniform"]

registry.REGISTRY.add_namespace("random", globals())
