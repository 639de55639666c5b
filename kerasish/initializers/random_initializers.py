"""Random initializers: RandomNormal/Uniform, TruncatedNormal, VarianceScaling family.

Seeds follow Keras 3: an int seed gives the same values on every call; a
`keras.random.SeedGenerator` gives a new draw per call; `seed=None` draws
one int seed from Python's `random` (seeded by `keras.utils.set_random_seed`)
when the initializer is created, so one unseeded instance also repeats its
values, and the order in which initializers are created decides their
seeds (as Keras 3 does).
"""
import math
import numbers

from kerasish import random
from kerasish.backend import config
from kerasish.initializers.initializer import Initializer
from kerasish.utils import registry

TRUNCATED_NORMAL_STDDEV = 0.87962566103423978  # stddev of N(0, 1) cut at +-2


def make_default_seed():
    """An int seed from Python's `random`, as Keras's `make_default_seed`.

    Returns:
        int in [1, 1e9].
    """
    return random.make_default_seed()


class RandomInitializer(Initializer):
    """Base of the random initializers: holds and validates `seed`.

    Args:
        seed: None, an int, a `keras.random.SeedGenerator`, or its config dict.
    """

    def __init__(self, seed=None):
        self._init_seed = seed
        if seed is None:
            seed = make_default_seed()
        elif isinstance(seed, dict):
            seed = registry.deserialize_keras_object(seed)
        elif isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, random.SeedGenerator)):
            raise ValueError(
                f"{type(self).__name__}: `seed` must be None, an int or a "
                f"keras.random.SeedGenerator. Received: seed={seed!r}"
            )
        self.seed = int(seed) if isinstance(seed, numbers.Integral) else seed

    def _float_dtype(self, dtype):
        dtype = config.standardize_dtype(dtype)
        if not config.is_float_dtype(dtype):
            raise ValueError(
                f"{type(self).__name__} draws random floats; `dtype` must be a float "
                f"type (float16, bfloat16, float32, float64). Received: dtype={dtype}"
            )
        return dtype

    def get_config(self):
        return {"seed": registry.serialize_keras_object(self._init_seed)}


class RandomNormal(RandomInitializer):
    """Samples from N(mean, stddev^2).

    Args:
        mean: mean of the values (0.0).
        stddev: standard deviation (0.05).
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.RandomNormal(stddev=1.0, seed=1)((2, 2))
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return random.normal(shape, mean=self.mean, stddev=self.stddev,
                             dtype=self._float_dtype(dtype), seed=self.seed)

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomInitializer):
    """Samples from N(mean, stddev^2), redrawing values beyond two stddevs.

    Args:
        mean: mean of the values (0.0).
        stddev: standard deviation before truncation (0.05).
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.TruncatedNormal(stddev=1.0, seed=1)((2, 2))
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return random.truncated_normal(shape, mean=self.mean, stddev=self.stddev,
                                       dtype=self._float_dtype(dtype), seed=self.seed)

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class RandomUniform(RandomInitializer):
    """Samples uniformly from [minval, maxval).

    Args:
        minval: lower bound (-0.05).
        maxval: upper bound (0.05).
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.RandomUniform(-1.0, 1.0, seed=1)((2, 2))
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        if dtype is not None and config.standardize_dtype(dtype) in ("int32", "int64"):
            # As Keras on TensorFlow: an integer stateless uniform, its bounds cast
            # (truncated) to the dtype: `minval + bits % (maxval - minval)`.
            return random.randint(shape, int(self.minval), int(self.maxval),
                                  dtype=config.standardize_dtype(dtype), seed=self.seed)
        return random.uniform(shape, minval=self.minval, maxval=self.maxval,
                              dtype=self._float_dtype(dtype), seed=self.seed)

    def get_config(self):
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


def compute_fans(shape, input_axes=None, output_axes=None):
    """Keras's (fan_in, fan_out) of a weight shape.

    Scalars give (1, 1), vectors (n, n), matrices (rows, cols); for conv
    kernels `(..., in, out)` both are multiplied by the receptive field
    `prod(shape[:-2])`. With both `input_axes` and `output_axes` given, the
    fans are the products of the sizes along those axes.

    Args:
        shape: tuple of ints.
        input_axes: axes whose sizes make fan_in (used with `output_axes`).
        output_axes: axes whose sizes make fan_out (used with `input_axes`).

    Returns:
        (fan_in, fan_out) as ints.

    Example:
        >>> compute_fans((3, 3, 16, 32))
        (144, 288)
    """
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return (int(math.prod(shape[a] for a in input_axes)),
                int(math.prod(shape[a] for a in output_axes)))
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    receptive_field = math.prod(shape[:-2])
    return int(shape[-2] * receptive_field), int(shape[-1] * receptive_field)


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")


class VarianceScaling(RandomInitializer):
    """Scales its distribution to the weight's fans.

    With n = fan_in, fan_out or (fan_in + fan_out) / 2 (by `mode`, at least 1):
    "truncated_normal" draws N(0, s^2) cut at 2s with s = sqrt(scale / n) /
    0.87962566103423978 (so the truncated stddev is sqrt(scale / n));
    "untruncated_normal" uses s = sqrt(scale / n); "uniform" draws from
    [-limit, limit] with limit = sqrt(3 * scale / n).

    Args:
        scale: positive float (1.0).
        mode: "fan_in" (default), "fan_out" or "fan_avg".
        distribution: "truncated_normal" (default; "normal" is an alias),
            "untruncated_normal" or "uniform".
        seed: None, int or SeedGenerator.
        input_axes: axes of the weight that make its fan-in (used only
            together with `output_axes`; None: the usual rule).
        output_axes: axes of the weight that make its fan-out.

    Example:
        >>> keras.initializers.VarianceScaling(2.0, "fan_in", "uniform")((64, 32))
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        if not scale > 0.0:
            raise ValueError(f"VarianceScaling: `scale` must be a positive float. Received: scale={scale}")
        if mode not in _MODES:
            raise ValueError(f"VarianceScaling: `mode` must be one of {_MODES}. Received: mode={mode!r}")
        distribution = str(distribution).lower()
        distribution = "truncated_normal" if distribution == "normal" else distribution
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(
                f"VarianceScaling: `distribution` must be one of {_DISTRIBUTIONS} (or 'normal'). "
                f"Received: distribution={distribution!r}"
            )
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.input_axes, self.output_axes = input_axes, output_axes
        super().__init__(seed=seed)

    def _variance(self, shape):
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        return self.scale / max(1.0, n)

    def __call__(self, shape, dtype=None):
        dtype = self._float_dtype(dtype)
        variance = self._variance(shape)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(variance) / TRUNCATED_NORMAL_STDDEV
            return random.truncated_normal(shape, mean=0.0, stddev=stddev, dtype=dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random.normal(shape, mean=0.0, stddev=math.sqrt(variance), dtype=dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random.uniform(shape, minval=-limit, maxval=limit, dtype=dtype, seed=self.seed)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "mode": self.mode,
                "distribution": self.distribution, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class _FixedVarianceScaling(VarianceScaling):
    """A VarianceScaling preset whose arguments are `seed` and the fan axes."""

    _preset = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        scale, mode, distribution = self._preset
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed,
                         input_axes=input_axes, output_axes=output_axes)

    def get_config(self):
        return {"seed": registry.serialize_keras_object(self._init_seed),
                "input_axes": self.input_axes, "output_axes": self.output_axes}


class GlorotUniform(_FixedVarianceScaling):
    """Uniform in [-limit, limit], limit = sqrt(6 / (fan_in + fan_out)) (Xavier).

    Args:
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.GlorotUniform(seed=0)((100, 50))   # |w| < 0.2
    """

    _preset = (1.0, "fan_avg", "uniform")


class GlorotNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)) after truncation.

    Args:
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.GlorotNormal(seed=0)((100, 50))
    """

    _preset = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in) after truncation.

    Args:
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.HeNormal(seed=0)((3, 3, 16, 32))
    """

    _preset = (2.0, "fan_in", "truncated_normal")


class HeUniform(_FixedVarianceScaling):
    """Uniform in [-limit, limit], limit = sqrt(6 / fan_in).

    Args:
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.HeUniform(seed=0)((64, 32))
    """

    _preset = (2.0, "fan_in", "uniform")


class LecunNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in) after truncation (for selu).

    Args:
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.LecunNormal(seed=0)((64, 32))
    """

    _preset = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_FixedVarianceScaling):
    """Uniform in [-limit, limit], limit = sqrt(3 / fan_in).

    Args:
        seed: None, int or SeedGenerator.

    Example:
        >>> keras.initializers.LecunUniform(seed=0)((64, 32))
    """

    _preset = (1.0, "fan_in", "uniform")
