"""Philox4x32-10 counter-based random numbers, drawn as TensorFlow's stateless ops draw them.

Keras on TensorFlow turns every random call into a `tf.random.stateless_*`
op on a seed pair. On CPU these run Philox4x32-10 (Salmon et al., 2011):
the seed pair is scrambled into a 64-bit key and a 128-bit counter (one
Philox call on a fixed key), then output group `g` of a tensor comes from
the counter advanced by `g` (by `256 g` for the truncated normal, which
rejects samples). This module reproduces those bits and their conversion
to floats and ints, so a seeded program draws the same numbers as Keras.

Everything works on arrays of the given array module `xp` (numpy or cupy);
words are uint32 arrays; each round's products go through uint64 buffers.

Example:
    >>> import numpy as np
    >>> uniform_float(np, seed_to_key_counter(3, 0), (3,), np.float32).dtype
    dtype('float32')
"""
import ctypes
import ctypes.util
import functools
import math

import numpy as np

from kerasish.backend.kernels import cpu_threads, eigen_math

_MASK = 0xFFFFFFFF
_M0, _M1 = 0xD2511F53, 0xCD9E8D57  # round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # key increments (golden ratio, sqrt(3) - 1)
_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)
TRUNCATED_SKIP = 256  # words reserved per output value of a rejection sampler
TRUNCATE_AT = 2.0


def _philox_python(counter, key):
    """One Philox4x32-10 block on python ints (4 words of output)."""
    c = list(counter)
    k0, k1 = key
    for r in range(10):
        p0, p1 = _M0 * c[0], _M1 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & _MASK, p1 & _MASK,
             ((p0 >> 32) ^ c[3] ^ k1) & _MASK, p0 & _MASK]
        k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
    return c


def seed_to_key_counter(seed0, seed1):
    """The Philox key and counter TensorFlow derives from a stateless seed pair.

    Args:
        seed0, seed1: the two seed ints (int32 or int64 values; negative ones
            are taken as their 64-bit two's complement, as TF does).

    Returns:
        (key, counter): tuples of 2 and 4 uint32 python ints.
    """
    s0, s1 = int(seed0) & 0xFFFFFFFFFFFFFFFF, int(seed1) & 0xFFFFFFFFFFFFFFFF
    mix = _philox_python([s0 & _MASK, s0 >> 32, s1 & _MASK, s1 >> 32], _SCRAMBLE_KEY)
    return (mix[0], mix[1]), (0, 0, mix[2], mix[3])


_CHUNK = 16384  # groups per piece on the CPU: the round's arrays stay in cache


def _rounds(xp, steps, key_counter, out):
    """Philox4x32-10 on the counters `[steps, 0, c2, c3]` (steps < 2**32), into `out`
    (uint32, (len(steps), 4)).

    The words stay uint32; each round's two products go to preallocated uint64
    buffers, whose high and low halves are cast back in place.
    """
    (k0, k1), (_, _, c2, c3) = key_counter
    n = steps.shape[0]
    x0 = steps.astype(np.uint32)
    x1 = xp.zeros(n, dtype=np.uint32)
    x2 = xp.full(n, c2, dtype=np.uint32)
    x3 = xp.full(n, c3, dtype=np.uint32)
    p0, p1 = xp.empty(n, dtype=np.uint64), xp.empty(n, dtype=np.uint64)
    h0, h1 = xp.empty(n, dtype=np.uint32), xp.empty(n, dtype=np.uint32)
    m0, m1, shift = np.uint64(_M0), np.uint64(_M1), np.uint64(32)
    for _ in range(10):
        xp.multiply(x0, m0, out=p0)
        xp.multiply(x2, m1, out=p1)
        xp.right_shift(p1, shift, out=h1, casting="unsafe")
        xp.right_shift(p0, shift, out=h0, casting="unsafe")
        xp.bitwise_xor(h1, x1, out=x0)
        x0 ^= np.uint32(k0)
        xp.bitwise_xor(h0, x3, out=x2)
        x2 ^= np.uint32(k1)
        xp.copyto(x1, p1, casting="unsafe")  # the low halves
        xp.copyto(x3, p0, casting="unsafe")
        k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
    out[:, 0] = x0
    out[:, 1] = x1
    out[:, 2] = x2
    out[:, 3] = x3


def random_words(xp, key_counter, groups, skip=1, blocks=1, start=0):
    """Raw Philox output: `blocks` consecutive blocks for each of `groups` groups.

    Group `g` starts at the counter advanced by `g * skip`. On the CPU the
    work is split in cache-sized pieces over the CPU worker threads.

    Args:
        xp: numpy or cupy.
        key_counter: from `seed_to_key_counter`.
        groups: number of groups.
        skip: counter steps between the starts of consecutive groups.
        blocks: blocks per group.
        start: blocks already used in each group (the first block taken).

    Returns:
        uint32 array (groups, blocks * 4), in the order Philox emits them.
    """
    _, (c0, c1, _, _) = key_counter
    total = groups * blocks
    if c0 or c1 or (groups - 1) * skip + start + blocks > _MASK:
        raise ValueError("philox: counters must start at 0 and stay below 2**32")
    out = xp.empty((total, 4), dtype=np.uint32)

    def steps_of(lo, hi):
        if blocks == 1 and skip == 1 and not start:
            return xp.arange(lo, hi, dtype=np.uint64)
        flat = xp.arange(lo, hi, dtype=np.uint64)
        return ((flat // np.uint64(blocks)) * np.uint64(skip) + flat % np.uint64(blocks)
                + np.uint64(start))

    if xp is not np:
        _rounds(xp, steps_of(0, total), key_counter, out)
    else:
        pieces = [(lo, min(lo + _CHUNK, total)) for lo in range(0, total, _CHUNK)]
        cpu_threads.run_split(
            lambda lo, hi: _rounds(xp, steps_of(lo, hi), key_counter, out[lo:hi]), pieces)
    return out.reshape(groups, blocks * 4)


def _size(shape):
    return int(math.prod(shape))


def _words(xp, key_counter, n):
    """The first `n` uint32 words of the stream, flat (one group per block)."""
    return random_words(xp, key_counter, -(-n // 4)).reshape(-1)[:n]


def _float_from_words(xp, words, dtype, overwrite=False):
    """Uniform [0, 1) floats of `dtype` from uint32 words (numpy dtype: f2, f4 or bf16);
    `overwrite` lets float32 reuse the words' memory."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        if overwrite:
            bits = words
            bits &= np.uint32(0x7FFFFF)
        else:
            bits = words & np.uint32(0x7FFFFF)
        bits |= np.uint32(0x3F800000)
        values = bits.view(np.float32)
        values -= np.float32(1.0)
        return values
    if dtype == np.float16:
        bits = ((words & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
        return bits.view(np.float16) - np.float16(1.0)
    if dtype.name == "bfloat16":
        bits = ((words & np.uint32(0x7F)) | np.uint32(127 << 7)).astype(np.uint16)
        return (bits.view(dtype).astype(np.float32) - np.float32(1.0)).astype(dtype)
    raise ValueError(f"philox: no uniform floats of dtype {dtype}")


def _double_from_words(xp, hi, lo):
    """Uniform [0, 1) float64s from pairs of uint32 words (20 + 32 mantissa bits)."""
    bits = (hi & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)
    bits |= lo.astype(np.uint64)
    bits |= np.uint64(1023 << 52)
    return bits.view(np.float64) - 1.0


def uniform_float(xp, key_counter, shape, dtype):
    """`stateless_random_uniform_v2`: floats in [0, 1).

    Args:
        xp: numpy or cupy.
        key_counter: from `seed_to_key_counter`.
        shape: output shape.
        dtype: numpy float dtype (float16, bfloat16, float32, float64).

    Returns:
        array of `shape` and `dtype`.
    """
    n = _size(shape)
    if np.dtype(dtype) == np.float64:
        w = random_words(xp, key_counter, -(-n // 2)).reshape(-1, 2)
        return _double_from_words(xp, w[:, 0], w[:, 1])[:n].reshape(shape)
    return _float_from_words(xp, _words(xp, key_counter, n), dtype, overwrite=True).reshape(shape)


_MANTISSA_BITS = {"float32": 23, "float16": 10, "bfloat16": 7}


def uniform_at_least(xp, key_counter, shape, threshold, dtype):
    """`uniform_float(...) >= threshold` (TF's dropout keep mask), without making the floats.

    A uniform of `dtype` is `m / 2**bits` for the word's low `bits` bits `m`,
    so comparing `m` with `ceil(threshold * 2**bits)` gives the same mask.

    Args:
        xp: numpy or cupy.
        key_counter: from `seed_to_key_counter`.
        shape: mask shape.
        threshold: the rate, already rounded to `dtype`.
        dtype: numpy float dtype of the uniform draw.

    Returns:
        bool array of `shape`.
    """
    bits = _MANTISSA_BITS.get(np.dtype(dtype).name)
    if bits is None:  # float64: two words per value
        return uniform_float(xp, key_counter, shape, dtype) >= threshold
    words = _words(xp, key_counter, _size(shape))
    words &= np.uint32((1 << bits) - 1)
    return (words >= np.uint32(math.ceil(float(threshold) * 2 ** bits))).reshape(shape)


def uniform_int(xp, key_counter, shape, minval, maxval, dtype):
    """`stateless_random_uniform_int_v2`: `minval + bits % (maxval - minval)`.

    Args:
        xp: numpy or cupy.
        key_counter: from `seed_to_key_counter`.
        shape: output shape.
        minval, maxval: python ints, minval < maxval.
        dtype: numpy int32 or int64.

    Returns:
        array of `shape` and `dtype`.
    """
    n = _size(shape)
    if np.dtype(dtype) == np.int64:
        w = random_words(xp, key_counter, -(-n // 2)).reshape(-1, 2)
        bits = w[:, 0].astype(np.uint64) | (w[:, 1].astype(np.uint64) << np.uint64(32))
        span = np.uint64((maxval - minval) & 0xFFFFFFFFFFFFFFFF)
        out = (bits % span).astype(np.int64) + np.int64(minval)
        return out[:n].reshape(shape)
    span = np.uint32((maxval - minval) & _MASK)
    out = (_words(xp, key_counter, n) % span).astype(np.int64) + minval
    return out.astype(np.int32).reshape(shape)


def _box_muller_float(xp, x0, x1, exact=True):
    """TF's BoxMullerFloat in float32: glibc's `logf` and `sincosf` of the uniform grid
    values (`_glibc_float`), so the draws equal TensorFlow's to the bit (`exact=False`:
    the float64 functions rounded, within an ulp or two, much faster)."""
    u1 = xp.maximum(_float_from_words(xp, x0, np.float32), np.float32(1e-7))
    v1 = (2.0 * math.pi * _float_from_words(xp, x1, np.float32).astype(np.float64)
          ).astype(np.float32)
    glibc = _glibc_float if exact else _rounded_float
    u2 = xp.sqrt(np.float32(-2.0) * glibc(xp, "logf", u1))
    return glibc(xp, "sinf", v1) * u2, glibc(xp, "cosf", v1) * u2


# How far (in ulps of the float32 result) the float64 value must lie from its float32
# rounding before glibc's function may round the other way: found by running glibc's
# logf on every value BoxMullerFloat feeds it (the 2^23 grid `k 2^-23`, floored at 1e-7;
# nearest 0.214 ulp) and sinf/cosf on every `2 pi k 2^-23` (nearest 0.439 ulp).
_GLIBC_SAFE_DISTANCE = {"logf": 0.2, "sinf": 0.4, "cosf": 0.4}
_DOUBLE_FUNCTIONS = {"logf": np.log, "sinf": np.sin, "cosf": np.cos}


def _rounded_float(xp, name, x):
    return _DOUBLE_FUNCTIONS[name](x.astype(np.float64)).astype(np.float32)


def _glibc_float(xp, name, x):
    """glibc's float `name` of a float32 array: the float64 function rounded to float32,
    and glibc itself (value by value) where that rounding is too close to call (60 % of
    values for logf, 20 % for sinf/cosf). cupy arrays keep the float64 rounding."""
    double_fn = _DOUBLE_FUNCTIONS[name]
    exact = double_fn(x.astype(np.float64))
    rounded = exact.astype(np.float32)
    if xp is not np:
        return rounded
    smaller = np.minimum(np.abs(rounded), np.abs(np.nextafter(rounded, np.float32(0))))
    distance = np.abs(exact - rounded) / np.spacing(smaller).astype(np.float64)
    unsure = distance > _GLIBC_SAFE_DISTANCE[name]
    if unsure.any():
        rounded[unsure] = eigen_math.libm_float(name, double_fn, x[unsure])
    return rounded


def _box_muller_double(xp, x0, x1, x2, x3, exact=True):
    """TF's BoxMullerDouble, with glibc's double log, sin and cos (value by value on
    numpy arrays: numpy's own differ from them in the last bit for 0.2 % of draws;
    `exact=False` keeps numpy's)."""
    u1 = xp.maximum(_double_from_words(xp, x0, x1), 1e-7)
    v1 = 2.0 * math.pi * _double_from_words(xp, x2, x3)
    glibc = _glibc_double if exact else (lambda xp, name, x: getattr(xp, name)(x))
    u2 = xp.sqrt(-2.0 * glibc(xp, "log", u1))
    return glibc(xp, "sin", v1) * u2, glibc(xp, "cos", v1) * u2


@functools.lru_cache(maxsize=None)
def _libm_double(name):
    path = ctypes.util.find_library("m")
    try:
        fn = getattr(ctypes.PyDLL(path), name)
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    return fn


def _glibc_double(xp, name, x):
    """glibc's double `name` of a float64 array (numpy's where there is no C math
    library, and on other array modules)."""
    fn = _libm_double(name) if xp is np else None
    if fn is None:
        return getattr(xp, name)(x)
    return np.fromiter(map(fn, x.reshape(-1).tolist()), np.float64, x.size).reshape(x.shape)


def _interleave(xp, a, b):
    return xp.stack([a, b], axis=-1).reshape(-1)


def normal(xp, key_counter, shape, dtype):
    """`stateless_random_normal_v2`: standard normals (Box-Muller on Philox words).

    Args:
        xp: numpy or cupy.
        key_counter: from `seed_to_key_counter`.
        shape: output shape.
        dtype: numpy float dtype.

    Returns:
        array of `shape` and `dtype`.
    """
    n = _size(shape)
    if np.dtype(dtype) == np.float64:
        w = random_words(xp, key_counter, -(-n // 2))
        out = _interleave(xp, *_box_muller_double(xp, w[:, 0], w[:, 1], w[:, 2], w[:, 3]))
        return out[:n].reshape(shape)
    w = random_words(xp, key_counter, -(-n // 4)).reshape(-1, 2)
    out = _interleave(xp, *_box_muller_float(xp, w[:, 0], w[:, 1]))
    return out[:n].astype(dtype).reshape(shape)


def truncated_normal(xp, key_counter, shape, dtype):
    """`stateless_truncated_normal_v2`: normals with |x| < 2, by rejection.

    Output group `g` (4 values, 2 for float64) reads single words from the
    counter advanced by `256 g` (`128 g` for float64: 256 words per value), Box-Muller on consecutive pairs (quadruples
    for float64), keeping values in (-2, 2) until the group is full.

    Args:
        xp: numpy or cupy.
        key_counter: from `seed_to_key_counter`.
        shape: output shape.
        dtype: numpy float dtype.

    Returns:
        array of `shape` and `dtype`.
    """
    n = _size(shape)
    double = np.dtype(dtype) == np.float64
    per_group = 2 if double else 4
    groups = -(-n // per_group)
    blocks = 2
    while True:  # almost every group fills from its first 2 blocks; widen for the rest
        w = random_words(xp, key_counter, groups, skip=per_group * TRUNCATED_SKIP // 4,
                         blocks=blocks)
        if double:
            w = w.reshape(groups, -1, 4)
            # numpy's functions to choose the kept values; glibc's for them below
            a, b = _box_muller_double(xp, w[..., 0], w[..., 1], w[..., 2], w[..., 3],
                                      exact=False)
        else:
            w = w.reshape(groups, -1, 2)
            # rounded transcendentals to choose the kept values; the exact ones below
            a, b = _box_muller_float(xp, w[..., 0], w[..., 1], exact=False)
        values = xp.stack([a, b], axis=-1).reshape(groups, -1)
        keep = xp.abs(values) < TRUNCATE_AT
        rank = xp.cumsum(keep, axis=1)
        if bool((rank[:, -1] >= per_group).all()) or blocks >= TRUNCATED_SKIP:
            break
        blocks *= 4
    # the j-th kept value of a row is where keep is set and rank == j + 1
    take = keep & (rank <= per_group)
    if double:
        values, take = _exact_double_values(xp, w, values, take, per_group)
    else:
        values, take = _exact_float_values(xp, w, values, take, per_group)
    out = values[take].reshape(groups, per_group).reshape(-1)
    return out[:n].astype(dtype).reshape(shape)


def _redraw_near_bound(xp, values, take, per_group, bound, draw_rows):
    """Redraws whole, with `draw_rows(rows) -> (firsts, seconds)` of each pair, the rows
    with a value up to their last kept one within a few ulps of the truncation bound
    (`bound` in the draws' dtype), and picks their kept values again.

    Returns:
        (values, take, settled): copies, and the kept values not redrawn.
    """
    values, take = values.copy(), take.copy()
    last = values.shape[1] - 1 - xp.argmax(take[:, ::-1], axis=1)
    near = xp.abs(xp.abs(values) - bound) <= 4 * np.spacing(bound)
    near &= xp.arange(values.shape[1])[None, :] <= last[:, None]
    redo = xp.nonzero(near.any(axis=1))[0]
    if redo.size:
        a, b = draw_rows(redo)
        values[redo] = xp.stack([a, b], axis=-1).reshape(redo.size, -1)
        keep = xp.abs(values[redo]) < TRUNCATE_AT
        take[redo] = keep & (xp.cumsum(keep, axis=1) <= per_group)
    settled = take.copy()
    settled[redo] = False
    return values, take, settled


def _exact_float_values(xp, w, values, take, per_group):
    """The kept float32 values with glibc's transcendentals (`_box_muller_float`): only
    their pairs are recomputed, except in rows where a value up to the last kept one lies
    within a few ulps of the truncation bound (the exact value might be kept where the
    rounded one was not): those rows are redrawn whole and chosen again."""
    values, take, settled = _redraw_near_bound(
        xp, values, take, per_group, np.float32(TRUNCATE_AT),
        lambda rows: _box_muller_float(xp, w[rows, :, 0], w[rows, :, 1]))
    rows, cols = xp.nonzero(settled)
    pairs = w[rows, cols // 2]
    u1 = xp.maximum(_float_from_words(xp, pairs[:, 0], np.float32), np.float32(1e-7))
    v1 = (2.0 * math.pi * _float_from_words(xp, pairs[:, 1], np.float32).astype(np.float64)
          ).astype(np.float32)
    u2 = xp.sqrt(np.float32(-2.0) * _glibc_float(xp, "logf", u1))
    first = cols % 2 == 0   # a pair's first value is sin(v1) * u2, its second cos(v1) * u2
    wave = xp.empty_like(u2)
    wave[first] = _glibc_float(xp, "sinf", v1[first])
    wave[~first] = _glibc_float(xp, "cosf", v1[~first])
    values[rows, cols] = wave * u2
    return values, take


def _exact_double_values(xp, w, values, take, per_group):
    """`_exact_float_values` for float64 draws (quadruples of words per pair): rows with
    a value near the bound redrawn whole, the others' kept values recomputed."""
    values, take, settled = _redraw_near_bound(
        xp, values, take, per_group, TRUNCATE_AT,
        lambda rows: _box_muller_double(xp, *(w[rows][..., i] for i in range(4))))
    rows, cols = xp.nonzero(settled)
    quad = w[rows, cols // 2]
    a, b = _box_muller_double(xp, quad[:, 0], quad[:, 1], quad[:, 2], quad[:, 3])
    values[rows, cols] = xp.where(cols % 2 == 0, a, b)
    return values, take


def categorical(xp, key_counter, logits, num_samples):
    """`stateless_multinomial` on CPU when TF runs all rows in one piece.

    Each row's unnormalised CDF is the running sum of `exp(logit - max)` in
    float64 over its finite logits; each sample takes two words as a float64
    uniform `u` and returns the number of CDF entries `<= u * total` (C++
    `upper_bound`). Rows draw one after another from one word stream. (TF
    splits large inputs over its CPU threads, each piece skipping ahead by
    `first_row * (num_samples + 3) // 4` blocks; that depends on the
    machine's thread count and is not reproduced.)

    Args:
        xp: numpy or cupy.
        key_counter: from `seed_to_key_counter`.
        logits: float array (batch, classes).
        num_samples: samples per row.

    Returns:
        int64 array (batch, num_samples).
    """
    rows, classes = logits.shape
    count = rows * num_samples
    words = random_words(xp, key_counter, max(-(-(2 * count) // 4), 1)).reshape(-1)[:2 * count]
    words = words.reshape(rows, num_samples, 2)
    u = _double_from_words(xp, words[..., 0], words[..., 1])
    values = logits.astype(np.float64)
    finite = xp.isfinite(values)
    top = xp.where(finite, values, -np.inf).max(axis=1, keepdims=True)
    cdf = xp.cumsum(xp.where(finite, xp.exp(values - top), 0.0), axis=1)
    target = u * cdf[:, -1:]
    return (cdf[:, None, :] <= target[:, :, None]).sum(axis=-1).astype(np.int64)


_MAX_INT32 = 2**31 - 1


def _tf_seed_pair(global_seed):
    """TF's (seed, seed2) of an op without its own seed, with the global seed set:
    the op seed is 0 here (ops in Keras's tf.data map functions); (0, 0) is never
    used, TF's kernels read it as "nondeterministic"."""
    seed = int(global_seed) % _MAX_INT32
    return (seed, _MAX_INT32) if seed == 0 else (seed, 0)


def _tf_random_shuffles(global_seed, sizes):
    """Permutations of `range(size)` for each size, as successive calls of one
    `tf.random.shuffle` kernel draw them.

    The kernel is a forward Fisher-Yates shuffle: for i = 0 .. n - 2 it swaps i
    with `i + word % (n - i)`, reading Philox words with key = seed and counter
    = [0, 0, seed2] (no scramble); each call reserves `ceil((n - 1) / 4)` blocks.
    """
    seed, seed2 = _tf_seed_pair(global_seed)
    key = (seed & _MASK, seed >> 32)
    blocks = [-(-(n - 1) // 4) if n > 1 else 0 for n in sizes]
    words = random_words(np, (key, (0, 0, seed2 & _MASK, seed2 >> 32)),
                         max(sum(blocks), 1)).reshape(-1)
    orders, offset = [], 0
    for n, used in zip(sizes, blocks):
        order = list(range(n))
        if n > 1:
            steps = np.arange(n - 1, dtype=np.int64)
            mine = words[4 * offset:4 * offset + n - 1].astype(np.int64)
            for i, j in enumerate((steps + mine % (n - steps)).tolist()):
                order[i], order[j] = order[j], order[i]
        orders.append(np.asarray(order, dtype=np.int64))
        offset += used
    return orders


def tf_global_shuffle(global_seed, n, batch_size=None):
    """The sample order of one epoch of a seeded `fit(shuffle=...)` on Keras-on-TensorFlow.

    Keras's array adapter shuffles inside `tf.data` map functions whose
    stateful kernels start afresh each epoch, so every epoch gets the same
    order. `shuffle=True` applies `tf.random.shuffle` to `range(n)`;
    `shuffle="batch"` applies it to each batch's indices in turn.

    Args:
        global_seed: the int given to `set_random_seed`.
        n: number of samples.
        batch_size: for `shuffle="batch"`: shuffle within consecutive batches.

    Returns:
        int64 numpy array: a permutation of range(n).
    """
    if batch_size is None:
        return _tf_random_shuffles(global_seed, [n])[0]
    starts = range(0, n, batch_size)
    sizes = [min(batch_size, n - start) for start in starts]
    orders = _tf_random_shuffles(global_seed, sizes)
    return np.concatenate([order + start for order, start in zip(orders, starts)])


def _uniform_pair(words):
    """TF's UniformDistribution<Philox, double>: two doubles from one block (n, 4)."""
    return (_double_from_words(np, words[:, 0], words[:, 1]),
            _double_from_words(np, words[:, 2], words[:, 3]))


def gamma(key_counter, alphas):
    """`stateless_random_gamma_v2` on the CPU: one gamma(alpha) draw per output, in
    float64, in the kernel's output order.

    Output `i` restarts the stream at the counter advanced by `256 i` and runs
    Marsaglia-Tsang with TF's double Box-Muller normals and double uniforms,
    each taken from the end of its pair of results (alpha < 1: boosted by one
    and scaled by `u ** (1 / alpha)`; alpha == 1: `-log1p(-u)`).

    Args:
        key_counter: from `seed_to_key_counter`.
        alphas: float64 numpy array, the alpha of each output (in the kernel's
            output order: `alpha_index * samples_per_alpha + sample_index`).

    Returns:
        float64 numpy array of the draws, in the same order.
    """
    alphas = np.asarray(alphas, dtype=np.float64).reshape(-1)
    n = alphas.shape[0]
    out = np.empty(n)
    if n == 0:
        return out
    fetched, width = 0, 4
    words = np.empty((n, 0), dtype=np.uint32)

    def block(rows, index):
        nonlocal words, fetched
        need = int(index.max()) + 1 if index.size else 0
        while need > fetched:  # more blocks for every output, in one Philox call
            more = random_words(np, key_counter, n, skip=TRUNCATED_SKIP, blocks=width,
                                start=fetched)
            words = np.concatenate([words, more], axis=1)
            fetched += width
        cols = index[:, None] * 4 + np.arange(4)
        return words[rows[:, None], cols]

    one = alphas == 1.0
    rows = np.nonzero(one)[0]
    if rows.size:
        u = _uniform_pair(block(rows, np.zeros(rows.size, dtype=np.int64)))[1]
        out[rows] = -np.log1p(-u)
    rows = np.nonzero(~one)[0]
    alpha = alphas[rows]
    small = alpha < 1
    d = alpha + np.where(small, 2.0 / 3, -1.0 / 3)
    c = 1.0 / 3 / np.sqrt(d)
    m = rows.size
    next_block = np.zeros(m, dtype=np.int64)
    norm_left = np.zeros(m, dtype=np.int64)
    unif_left = np.zeros(m, dtype=np.int64)
    norms, unifs = np.zeros((m, 2)), np.zeros((m, 2))
    active = np.arange(m)

    def take_uniform(idx):
        refill = idx[unif_left[idx] == 0]
        if refill.size:
            pair = _uniform_pair(block(rows[refill], next_block[refill]))
            unifs[refill, 0], unifs[refill, 1] = pair
            next_block[refill] += 1
            unif_left[refill] = 2
        unif_left[idx] -= 1
        return unifs[idx, unif_left[idx]]

    with np.errstate(divide="ignore", invalid="ignore"):
        while active.size:
            refill = active[norm_left[active] == 0]
            if refill.size:
                w = block(rows[refill], next_block[refill])
                norms[refill, 0], norms[refill, 1] = _box_muller_double(
                    np, w[:, 0], w[:, 1], w[:, 2], w[:, 3])
                next_block[refill] += 1
                norm_left[refill] = 2
            norm_left[active] -= 1
            x = norms[active, norm_left[active]]
            v = 1 + c[active] * x
            live = v > 0
            idx, x, v = active[live], x[live], v[live]
            v = v * v * v
            u = take_uniform(idx)
            accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (
                np.log(u) < 0.5 * x * x + d[idx] * (1 - v + np.log(v)))
            done, res = idx[accept], d[idx[accept]] * v[accept]
            boost = small[done]
            if boost.any():
                b = take_uniform(done[boost])
                res[boost] *= np.power(b, 1 / alpha[done[boost]])
            out[rows[done]] = res
            finished = np.zeros(m, dtype=bool)
            finished[done] = True
            active = active[~finished[active]]
    return out


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)
_INVERSION_SKIP = 42  # blocks reserved per output by TF's binomial inversion


class _Stream:
    """One output's Philox blocks (prefetched rows, more fetched on demand) as TF's
    `UniformDistribution<Philox, double>` pairs, each pair used from its end."""

    def __init__(self, key_counter, skip, index, rows):
        self.key_counter, self.skip, self.index, self.rows = key_counter, skip, index, rows
        self.used, self.left, self.pair = 0, 0, (0.0, 0.0)

    def uniform(self):
        if self.left == 0:
            if self.used >= self.rows.shape[0] // 4:  # beyond the prefetched blocks
                more = random_words(np, self.key_counter, 1, skip=1, blocks=4,
                                    start=self.index * self.skip + self.used)[0]
                self.rows = np.concatenate([self.rows, more])
            w = self.rows[4 * self.used:4 * self.used + 4]
            self.pair = tuple(_double_from_words(np, w[[0, 2]], w[[1, 3]]).tolist())
            self.used += 1
            self.left = 2
        self.left -= 1
        return self.pair[self.left]


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count, prob, stream):
    geom_sum, num_geom = 0.0, 0
    while True:
        u = stream.uniform()
        geom_sum += math.ceil(math.log(u) / math.log1p(-prob)) if u > 0 else math.inf
        if geom_sum > count:
            return float(num_geom)
        num_geom += 1


def _btrs(count, prob, stream):
    """Hormann's transformed rejection, as TF's `btrs` (its missing log included)."""
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = stream.uniform()
        v = stream.uniform()
        u = u - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or k > count:
            continue
        v = math.log(v * alpha / (a / (us * us) + b)) if v > 0 else -math.inf
        upperbound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                      + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                      + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                      + _stirling_tail(m) + _stirling_tail(count - m)
                      - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upperbound:
            return float(k)


def binomial(key_counter, counts, probs):
    """`stateless_random_binomial` on the CPU: one draw per output, in the kernel's
    output order.

    `counts` and `probs` are the float32 (the kernel's T) parameters of each
    output. Output `i` restarts the stream at the counter advanced by `256 i`
    (transformed rejection, when `count * min(p, 1 - p) >= 10`) or `42 i`
    (inversion: geometric waiting times); `p > 0.5` draws `count - B(count, 1 - p)`.

    Args:
        key_counter: from `seed_to_key_counter`.
        counts, probs: float32 numpy arrays, one entry per output.

    Returns:
        float64 numpy array of the draws.
    """
    counts = np.asarray(counts, dtype=np.float32).reshape(-1)
    probs = np.asarray(probs, dtype=np.float32).reshape(-1)
    n = counts.shape[0]
    out = np.zeros(n)
    half, ten = np.float32(0.5), np.float32(10)
    q = np.float32(1) - probs
    small = np.where(probs <= half, probs, q)  # float32, as the kernel's T
    big = (counts * small) >= ten
    skips = np.where(big, TRUNCATED_SKIP, _INVERSION_SKIP)
    prefetched = {}
    for skip in (TRUNCATED_SKIP, _INVERSION_SKIP):
        if (skips == skip).any():
            prefetched[skip] = random_words(np, key_counter, n, skip=skip, blocks=4)
    for i in range(n):
        count, prob = float(counts[i]), float(probs[i])
        if math.isnan(prob):
            out[i] = math.nan
        elif count <= 0.0 or probs[i] <= 0:
            out[i] = 0.0
        elif probs[i] >= 1:
            out[i] = count
        else:
            stream = _Stream(key_counter, int(skips[i]), i, prefetched[int(skips[i])][i])
            p = float(small[i])
            draw = _btrs(count, p, stream) if big[i] else _binomial_inversion(count, p, stream)
            out[i] = draw if probs[i] <= half else count - draw
    return out
