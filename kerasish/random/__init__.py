"""Random tensors (`keras.random`): normal, uniform, truncated_normal, ...

The numbers are those of Keras 3 on TensorFlow: every draw is a stateless
Philox draw (`kerasish.backend.philox`) on a seed pair. `seed` may be None
(Keras's global SeedGenerator, itself seeded from Python's `random`, which
`keras.utils.set_random_seed` seeds), an int (the pair `[seed, 0]`: the
same numbers on every call) or a `SeedGenerator` (a stream that advances
on each call). See docs/random.md.
"""
import random as _pyrandom

import numpy as np

from kerasish.autodiff import capture as _capture
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor, Variable, path_scopes
from kerasish.backend import config, devices as _dev, philox
from kerasish.ops import core, elementwise as ew, manipulation
from kerasish.utils import naming, registry


_SEED_MODULUS = 2**31 - 2  # TF backend's _cast_seed: floormod(seed, int32.max - 1)


def make_default_seed():
    """A fresh int seed from Python's `random` (as Keras: `randint(1, 1e9)`).

    `keras.utils.set_random_seed` seeds Python's `random`, so the seeds of
    unseeded initializers and SeedGenerators repeat from run to run.

    Returns:
        int in [1, 1e9].
    """
    return _pyrandom.randint(1, int(1e9))


class SeedGenerator:
    """A seeded stream of random draws, as `keras.random.SeedGenerator`.

    The state is Keras's: a Variable `[seed, 0]` (int64); each draw uses the
    state as the seed pair of a stateless draw and adds `[0, 1]`.

    Args:
        seed: int seed (a fresh `make_default_seed()` if None).
        name: the generator's name.

    Example:
        >>> gen = keras.random.SeedGenerator(42)
        >>> a = keras.random.normal((2,), seed=gen)
        >>> b = keras.random.normal((2,), seed=gen)   # different from a
    """

    def __init__(self, seed=None, name=None, **kwargs):
        kwargs.pop("backend", None)
        if kwargs:
            raise ValueError(f"SeedGenerator: unrecognized keyword arguments: {kwargs}")
        self.name = name or naming.auto_name("SeedGenerator")
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self.state = Variable(np.array([int(seed), 0], dtype=np.int64), dtype="int64",
                              trainable=False, name="seed_generator_state")
        # inside a layer's build/call the path starts with its scope, as Keras's name_scope
        self.state.path = "/".join(path_scopes() + [self.name, "seed_generator_state"])

    def next(self, ordered=True):
        """Returns the current seed pair (a tuple of 2 ints) and advances the state.

        Args:
            ordered: True adds `[0, 1]` (a layer's generator); False applies
                Keras's global-generator step `(state + 1) * 5387 % 933199`.
        """
        pair = self.get_state()
        if ordered:
            new = (pair[0], pair[1] + 1)
        else:
            new = tuple((v + 1) * 5387 % 933199 for v in pair)
        self.set_state(new)
        return pair

    # The state is read and written as raw arrays: the seed pair is host data that a
    # captured step re-reads on every replay (through `hook_random`), not a traced value.
    def get_state(self):
        """The state as a tuple of 2 python ints."""
        return tuple(int(v) for v in _dev.to_host(self.state._value))

    def set_state(self, state):
        """Sets the state from 2 ints (inside a `StatelessScope`, the scope's copy)."""
        self.state._protect()
        self.state._value[...] = self.state._device.send(
            np.array([int(state[0]), int(state[1])], dtype=np.int64))

    def get_config(self):
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def global_seed_generator():
    """The generator `seed=None` draws advance (made on first use, reset by
    `keras.utils.set_random_seed` and `clear_session`)."""
    gen = _dev.random_state["global_generator"]
    if gen is None:
        gen = SeedGenerator()
        _dev.random_state["global_generator"] = gen
    return gen


def draw_seed(seed):
    """The int32 seed pair a stateless draw uses, as Keras-on-TensorFlow draws it.

    Args:
        seed: None (the global generator, advanced), an int (`[seed, 0]`) or a
            `SeedGenerator` (its state, then advanced).

    Returns:
        tuple of 2 ints in [0, 2**31 - 2).
    """
    if isinstance(seed, SeedGenerator):
        pair = seed.next()
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        pair = (int(seed), 0)
    elif seed is None:
        pair = global_seed_generator().next(ordered=False)
    else:
        raise ValueError(
            "Argument `seed` must be either an integer or an instance of "
            f"`SeedGenerator`. Received: seed={seed} (of type {type(seed)})"
        )
    return tuple(v % _SEED_MODULUS for v in pair)


def _generator(seed):
    """(device, Philox key/counter, the generator object advanced or None)."""
    dev = _dev.current_device()
    pair = draw_seed(seed)
    owner = global_seed_generator() if seed is None else seed
    return dev, philox.seed_to_key_counter(*pair), pair, owner


def _sample(seed, draw, device=None):
    """`draw(device, key_counter, pair)` as a Tensor (on `device`, default the current
    one); a captured step draws again (advancing the generator) on each replay."""
    dev, kc, pair, owner = _generator(seed)
    out = Tensor(draw(dev, kc, pair), device or dev)
    if _capture.tracer is not None:
        def again():
            d, k, p, _ = _generator(seed)
            return draw(d, k, p)
        _capture.hook_random(again, out, owner)
    return out


def _unknown(shape):
    return not isinstance(shape, (int, np.integer)) and any(n is None for n in shape)


def _traced_draw(shape, dtype, seed):
    """A draw whose shape has unknown dims (`ops.shape` of a KerasTensor in a
    layer's symbolic call) is a KerasTensor, as in Keras's trace: `seed=None`
    makes the global generator (one Python `random` draw, as Keras), and no
    generator advances (Keras traces in a stateless scope)."""
    if seed is None:
        global_seed_generator()
    return KerasTensor(tuple(None if n is None else int(n) for n in shape),
                       config.standardize_dtype(dtype))


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)


def _float(dtype, *parameters):
    """`dtype` standardized; a non-float one is refused (as TensorFlow refuses the first
    Python float parameter in that dtype: Keras's TypeError and text)."""
    dtype = config.standardize_dtype(dtype)
    if not config.is_float_dtype(dtype):
        for value in parameters:
            if isinstance(value, float):
                raise TypeError(f"Cannot convert {value} to EagerTensor of dtype {dtype}")
        raise ValueError(f"Expected a float dtype. Received: dtype={dtype}")
    return dtype


def _affine(xp, values, scale, shift, dtype):
    """`values * scale + shift` in `dtype` arithmetic (as TF's mul then add; skipped
    for 1 and 0, which change no value)."""
    dtype = np.dtype(dtype)
    if _is(scale, 1) and _is(shift, 0):
        return values
    scaled = values * xp.asarray(scale, dtype=dtype)
    return (scaled + xp.asarray(shift, dtype=dtype)).astype(dtype)


def _is(value, number):
    return isinstance(value, (int, float, np.number)) and float(value) == number


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples from a normal distribution (TF's stateless Box-Muller on Philox).

    Args:
        shape: output shape.
        mean, stddev: distribution parameters.
        dtype: float dtype (floatx by default).
        seed: None, int or SeedGenerator.

    Returns:
        Tensor.

    Example:
        >>> keras.random.normal((2, 3), seed=1).shape
        (2, 3)
    """
    if _unknown(shape):
        return _traced_draw(shape, _float(dtype, mean, stddev), seed)
    dtype, shape = config.to_numpy_dtype(_float(dtype, mean, stddev)), _shape(shape)
    return _sample(seed, lambda dev, kc, pair: _affine(
        dev.xp, philox.normal(dev.xp, kc, shape, dtype), stddev, mean, dtype))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples uniformly from [minval, maxval).

    Args:
        shape: output shape.
        minval, maxval: the bounds.
        dtype: float dtype (floatx by default).
        seed: None, int or SeedGenerator.

    Returns:
        Tensor.

    Example:
        >>> keras.random.uniform((2,), seed=3).shape
        (2,)
    """
    if dtype and not config.is_float_dtype(config.standardize_dtype(dtype)):
        raise ValueError("`keras.random.uniform` requires a floating point `dtype`. "
                         f"Received: dtype={dtype} ")
    if _unknown(shape):
        return _traced_draw(shape, _float(dtype), seed)
    dtype, shape = config.to_numpy_dtype(_float(dtype)), _shape(shape)

    def draw(dev, kc, pair):
        xp = dev.xp
        values = philox.uniform_float(xp, kc, shape, dtype)
        if _is(minval, 0) and _is(maxval, 1):
            return values
        lo, hi = (xp.asarray(_tf_cast_operand(v), dtype=dtype) for v in (minval, maxval))
        return _affine(xp, values, hi - lo, lo, dtype)
    return _sample(seed, draw)


def _tf_cast_operand(value):
    """Keras's uniform passes `tf.cast(minval, dtype)`: TF first makes a Python float a
    float32 tensor, so a float64 draw's bounds are float32-rounded (GlorotUniform's
    `limit` in a float64 model)."""
    return np.float32(value) if type(value) is float else value


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples within two standard deviations of the mean (TF's rejection order).

    Args:
        shape: output shape.
        mean, stddev: parameters of the normal before truncation.
        dtype: float dtype (floatx by default).
        seed: None, int or SeedGenerator.

    Returns:
        Tensor.
    """
    if _unknown(shape):
        return _traced_draw(shape, _float(dtype, mean, stddev), seed)
    dtype, shape = config.to_numpy_dtype(_float(dtype, mean, stddev)), _shape(shape)
    return _sample(seed, lambda dev, kc, pair: _affine(
        dev.xp, philox.truncated_normal(dev.xp, kc, shape, dtype), stddev, mean, dtype))


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniformly from [minval, maxval) (`minval + bits % range`, as TF).

    Args:
        shape: output shape.
        minval, maxval: int bounds.
        dtype: int dtype.
        seed: None, int or SeedGenerator.

    Returns:
        Tensor.
    """
    if dtype and not config.is_int_dtype(config.standardize_dtype(dtype)):
        raise ValueError("`keras.random.randint` requires an integer `dtype`. "
                         f"Received: dtype={dtype} ")
    if _unknown(shape):
        return _traced_draw(shape, dtype, seed)
    dtype, shape = config.standardize_dtype(dtype), _shape(shape)
    middle = dtype if dtype in ("int32", "int64") else "int64"
    lo, hi = int(minval), int(maxval)
    if hi <= lo:
        raise ValueError(f"randint: `maxval` must be greater than `minval`. "
                         f"Received: minval={minval}, maxval={maxval}")
    out = config.to_numpy_dtype(dtype)
    return _sample(seed, lambda dev, kc, pair: philox.uniform_int(
        dev.xp, kc, shape, lo, hi, np.dtype(middle)).astype(out))


def categorical(logits, num_samples, dtype="int32", seed=None):
    """Draws class indices from unnormalised log-probabilities, one row per batch item.

    As TF's `stateless_categorical` on CPU for inputs it runs in one piece
    (TF splits large batches over its threads; see docs/random.md).

    Args:
        logits: (batch, classes) unnormalised log-probabilities.
        num_samples: samples per row.
        dtype: int dtype of the result.
        seed: None, int or SeedGenerator.

    Returns:
        Tensor (batch, num_samples).

    Example:
        >>> keras.random.categorical([[0.0, 1.0, 2.0]], 4, seed=1).shape
        (1, 4)
    """
    logits = core.convert_to_tensor(logits)
    if logits.ndim != 2:
        raise ValueError("`logits` should be a 2-D tensor with shape "
                         f"[batch_size, num_classes]. Received: logits={logits}")
    out = config.to_numpy_dtype(dtype)
    value = logits._value
    return _sample(seed, lambda dev, kc, pair: philox.categorical(
        dev.xp, kc, dev.send(value), int(num_samples)).astype(out))


def shuffle(x, axis=0, seed=None):
    """Shuffles a tensor along `axis`: the order sorting a stateless uniform draw gives.

    Args:
        x: tensor.
        axis: the axis to permute.
        seed: None, int or SeedGenerator.

    Returns:
        Tensor.
    """
    x = core.convert_to_tensor(x)
    dev, kc, pair, _ = _generator(seed)
    keys = philox.uniform_float(dev.xp, kc, (x.shape[axis],), np.float32)
    perm = dev.xp.argsort(keys, kind="stable")
    return manipulation.take(x, perm, axis=axis)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Inverted dropout: zeroes a `rate` fraction and scales the rest by 1/(1-rate).

    As `tf.nn.experimental.stateless_dropout`: an element is kept where a
    uniform draw of the input's dtype (over `noise_shape`) is >= `rate`.

    Args:
        inputs: tensor.
        rate: float in [0, 1).
        noise_shape: shape of the keep mask, broadcast against `inputs`.
        seed: None, int or SeedGenerator.

    Returns:
        Tensor.
    """
    x = core.float_operand(inputs)
    if not 0 <= rate < 1:
        raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    if rate == 0:
        return x
    if isinstance(x, KerasTensor):  # a symbolic call: no draw, the seed does not advance
        return KerasTensor(tuple(x.shape), x.dtype)
    shape = x.shape if noise_shape is None else tuple(
        x.shape[i] if n is None else n for i, n in enumerate(noise_shape))
    dtype, target = x._value.dtype, x._device

    def draw(dev, kc, pair):
        xp = dev.xp
        keep = philox.uniform_at_least(xp, kc, _shape(shape), np.asarray(rate, dtype=dtype), dtype)
        mask = keep.astype(dtype)
        mask *= xp.asarray(1.0 / (1.0 - rate), dtype=dtype)
        return target.send(mask)
    return ew.multiply(x, _sample(seed, draw, target))


def _numpy_generator(seed):
    """The device's array-library generator seeded from the drawn seed pair (for the
    samplers whose TF bits are not reproduced: gamma, binomial, beta)."""
    dev, _, pair, _ = _generator(seed)
    return dev, dev.make_rng(list(pair))


def gamma(shape, alpha, dtype=None, seed=None):
    """Samples from a gamma distribution with concentration `alpha` (scale 1).

    TensorFlow's stateless gamma sampler, as Keras: Marsaglia-Tsang on Philox
    words, output `i` starting its own stream 256 blocks after output `i - 1`
    (bfloat16 drawn in float32). `shape` must end with `alpha`'s shape.

    Example:
        >>> keras.random.gamma((3,), alpha=2.0, seed=1).shape
        (3,)
    """
    dtype, shape = _float(dtype, alpha), _shape(shape)
    return _sample(seed, lambda dev, kc, pair: dev.send(_tf_gamma(kc, shape, alpha, dtype)))


def _tf_gamma(key_counter, shape, alpha, dtype):
    """`tf.random.stateless_gamma(shape, alpha, dtype)` (beta 1) as a numpy array of `dtype`."""
    middle = config.to_numpy_dtype("float32" if dtype == "bfloat16" else dtype)
    alpha = np.asarray(core.convert_to_numpy(alpha)).astype(middle)
    if alpha.ndim > len(shape) or tuple(shape[len(shape) - alpha.ndim:]) != alpha.shape:
        raise ValueError(f"gamma: `shape` {tuple(shape)} must end with the shape of `alpha` "
                         f"{alpha.shape}.")
    per_alpha = int(np.prod(shape[:len(shape) - alpha.ndim], dtype=np.int64))
    # the kernel's output i draws for alpha i // per_alpha, sample i % per_alpha, and is
    # stored at sample * num_alphas + alpha
    draws = philox.gamma(key_counter, np.repeat(alpha.reshape(-1).astype(np.float64), per_alpha))
    order = np.arange(draws.size)
    out = np.empty(draws.size)
    out[(order % per_alpha) * alpha.size + order // per_alpha] = draws
    if middle == np.float16:  # Eigen's half from a double goes through float
        out = out.astype(np.float32)
    out = np.maximum(out.astype(middle), config.finfo(middle).tiny)  # TF's floor at `tiny`
    return out.reshape(shape).astype(config.to_numpy_dtype(dtype))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Samples successes out of `counts` trials with success `probabilities`.

    TensorFlow's stateless binomial sampler, as Keras: inversion or Hormann's
    transformed rejection on Philox words, in float32 parameters (bfloat16
    drawn in float32). `shape` must end with the broadcast shape of `counts`
    and `probabilities`.

    Example:
        >>> keras.random.binomial((2,), counts=10, probabilities=0.5, seed=1)
    """
    # TensorFlow's sampler also counts in int32/int64 (the same draws)
    dtype = config.standardize_dtype(dtype) if dtype in ("int32", "int64") else _float(dtype)
    shape = _shape(shape)
    middle = config.to_numpy_dtype("float32" if dtype == "bfloat16" else dtype)

    def draw(dev, kc, pair):
        probs = np.asarray(core.convert_to_numpy(probabilities)).astype(np.float32)
        trials = np.asarray(core.convert_to_numpy(counts)).astype(np.float32)
        batch = np.broadcast_shapes(probs.shape, trials.shape)
        if len(batch) > len(shape) or tuple(shape[len(shape) - len(batch):]) != batch:
            raise ValueError(f"binomial: `shape` {tuple(shape)} must end with the broadcast "
                             f"shape of `counts` and `probabilities` {batch}.")
        per_batch = int(np.prod(shape[:len(shape) - len(batch)], dtype=np.int64))
        size = int(np.prod(batch, dtype=np.int64))
        # the kernel's output i draws for batch member i // per_batch, stored at
        # sample * num_batches + member
        member = np.repeat(np.arange(size), per_batch)
        draws = philox.binomial(kc, np.broadcast_to(trials, batch).reshape(-1)[member],
                                np.broadcast_to(probs, batch).reshape(-1)[member])
        order = np.arange(draws.size)
        out = np.empty(draws.size)
        out[(order % per_batch) * size + order // per_batch] = draws
        return dev.send(out.astype(middle).reshape(shape).astype(config.to_numpy_dtype(dtype)))
    return _sample(seed, draw)


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Samples from a beta distribution, as Keras on TensorFlow: `ga / (ga + gb)` of
    two stateless gamma draws (`alpha` with the drawn seed pair, `beta` with the pair
    plus 12), `alpha` and `beta` broadcast to `shape`.

    Example:
        >>> keras.random.beta((2,), alpha=2.0, beta=3.0, seed=1)
    """
    dtype, shape = _float(dtype, alpha, beta), _shape(shape)
    middle = "float32" if dtype == "bfloat16" else dtype
    out_dtype = config.to_numpy_dtype(dtype)

    def draw(dev, kc, pair):
        a = np.broadcast_to(np.asarray(core.convert_to_numpy(alpha)).astype(
            config.to_numpy_dtype(middle)), shape)
        b = np.broadcast_to(np.asarray(core.convert_to_numpy(beta)).astype(
            config.to_numpy_dtype(middle)), shape)
        shifted = [int(np.int32(np.int64(v) + 12)) if -2 ** 31 <= int(v) < 2 ** 31
                   else int(v) + 12 for v in pair]  # int32 seeds wrap, as TF's add
        ga = _tf_gamma(kc, shape, a, middle).astype(out_dtype)
        gb = _tf_gamma(philox.seed_to_key_counter(*shifted), shape, b, middle).astype(out_dtype)
        return dev.send((ga / (ga + gb)).astype(out_dtype))
    return _sample(seed, draw)


def set_seed(seed):
    """Seeds Python's `random`, numpy's global generator and the devices' generators,
    and drops the global SeedGenerator (the next `seed=None` draw makes a new
    one, seeded from Python's `random`), as `keras.utils.set_random_seed`.

    Args:
        seed: an int.

    Example:
        >>> keras.random.set_seed(42)
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError("Expected `seed` argument to be an integer. "
                         f"Received: seed={seed} (of type {type(seed)})")
    seed = int(seed)
    _dev.random_state["global_generator"] = None
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
    set_seed(seed)


__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma",
           "normal", "randint", "set_seed", "shuffle", "truncated_normal", "uniform"]

registry.REGISTRY.add_namespace("random", globals())
