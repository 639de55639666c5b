"""softmax and the fused activations of float32 arrays as TensorFlow's CPU kernels
compute them on x86 (oneDNN).

TensorFlow's x86 wheels run `Softmax` on float32 through oneDNN (its
`_MklSoftmax`, eagerly and in graphs alike), whose kernel is generated for the
CPU it runs on: rows are read in vectors of 16 lanes (AVX-512), 8 (AVX2) or 4
(SSE4.1); each lane keeps its own maximum and sum in four accumulators (one
per unrolled vector), merged pairwise, then across the lanes by halves; exp
is oneDNN's own approximation (range reduction by ln 2 and a degree-5
polynomial, with fused multiply-adds where the CPU has them); the row is
multiplied by the reciprocal of its sum. TensorFlow's threads flush
subnormal operands and results to zero, and so does this. Maxima follow x86's `maxps` (a NaN
operand yields the second operand), so a NaN logit ends up as `exp` of the
clamped maximum, as in TensorFlow. numpy's own softmax differs from these
results in the last bit for more than half of all values.

The kernel is chosen as oneDNN chooses it: from the CPU's flags, capped by
`ONEDNN_MAX_CPU_ISA` when that is set (oneDNN reads the same variable).
Constants are oneDNN's (`jit_uni_eltwise_injector`, `jit_uni_softmax`).
Checked bit for bit against TensorFlow 2.21 with each of the three kernels
(`tests/backend/test_onednn_math.py`).
"""
import functools
import os
import platform

import numpy as np

from kerasish.backend.kernels import cpu_threads
from kerasish.backend.kernels.eigen_math import flush_subnormals

_F32 = np.dtype(np.float32)
_f = np.float32


def _bits(word):
    return np.array([word], np.uint32).view(_F32)[0]


_LOG2E, _LN_MAX, _LN_MIN, _LN2 = (_bits(0x3fb8aa3b), _bits(0x42b17218), _bits(0xc2aeac50),
                                  _bits(0x3f317218))
_EXP_POLY = tuple(_bits(w) for w in (0x3c07cfce, 0x3d2b9d0d, 0x3e2aad40, 0x3efffee3, 0x3f7ffffb))
_NEG_MAX = _f(-np.finfo(np.float32).max)
# tanh: 32 intervals of |x| (by its exponent and top mantissa bit), a degree-6
# polynomial in the offset from the interval's start each; 32 coefficients per
# degree, degree 0 first (oneDNN's `tanh_pol_table`, its float32 words).
_TANH_POLY = np.array([int(word, 16) for word in """
    00000000 39bfffff 39ffffff 3a3ffffe 3a7ffffb 3abffff7 3affffeb 3b3fffdc
    3b7fffab 3bbfff70 3bfffeab 3c3ffdc0 3c7ffaab 3cbff701 3cffeaad 3d3fdc08
    3d7faacd 3dbf7081 3dfeacc9 3e3dc7fd 3e7acbf5 3eb77a9f 3eec9a9f 3f22991f
    3f42f7d6 3f67b7cc 3f76ca83 3f7ebbe9 3f7fd40c 3f7fff32 3f7ffffc 3f800000
    3f800000 3f800018 3f7fffe8 3f7fffda 3f7fffdc 3f7fffdc 3f7fffac 3f7fff70
    3f7ffeec 3f7ffdc0 3f7ffbed 3f7ff704 3f7feff5 3f7fdbca 3f7fbfff 3f7f7041
    3f7f009b 3f7dc36c 3f7c0aa8 3f7734b8 3f70a4de 3f5f1fd8 3f495493 3f18b9ec
    3ed706cb 3e390b06 3d90b11f 3c21a053 3aaf7fdb 37ccc1a3 355c6733 00000000
    00000000 be4e0ff1 3d25b1b1 3d6b6dab 3c9fb1d5 babff06f 3c07b3f6 bb3fc1bc
    3a9f5921 bbbf06f2 bbb0f402 bc47db9e bc73d5e7 bca25bda bcfca780 bd40e07c
    bd7dab03 bdbe4a0f bdfb14a5 be36cc8d be6bd102 be9fe7c5 beba0f10 bec206a8
    bea3c388 be277d62 bd8b7960 bc209f49 baad44ca b7c6eeac b663aa41 00000000
    00000000 45b3ae96 c414eb20 c450e02e c3152b4e bead2f56 c2162e02 beb4bd5a
    c11a59a4 bed2f507 c020d32c 3dd0f506 bf2a75e2 bff950e3 bed47334 be809b8c
    beb64532 be961a5b be9b63ac bea0d4b2 be828a77 be378612 bdc20908 3d2d3957
    3dd46e89 3db3f629 3d2c5e7b 3bd20403 3a59dfae 3770af45 372cc014 00000000
    00000000 cc981a1b 4a7edd3d 4ab1007c 48fedd9c 41a557b5 477ee32a 422557f5
    45ff3ce4 42a55641 446e0867 c33dc19a 42915214 43af4fad 4110fe88 c1099b75
    3fc8a8dc bfbeaef5 be365aad 3f4d9652 3ddfa08f 3e34e9b8 3e2d07a6 3dc63567
    3cdaeb78 bcd17537 bc92829c bb43ab99 b9b471dd b6baad5a b78bafc7 00000000
    00000000 52f688d5 d0505c72 d08f98e3 ce505cc9 c7162b8a cc5061d6 c7162bdf
    ca50b37f c7162a3a c8422086 471a714e c5ece1f1 c70e3d90 c3eba94a 43e0c424
    c21f4552 42217cc8 405e7dc4 c10dd401 3e96b602 bd1a6d2f bd393883 bd674682
    bd310016 b961e269 3ba32495 3a7680d5 38b3173c 35a9deea 375c3f2a 00000000
    00000000 d8995ed1 558285ea 55b2cd69 53028625 4bc9991f 5082898a 4b4999b3
    4e02c07c 4ac99764 4b72c822 ca40c0e1 489413e4 49b12224 46134c4e c60c2d57
    43c83910 c3c872d1 c186bc9e 42325bc3 bf2ffa4a 3d9a203c bc545a43 bae08fee
    3c80225d 3b1fd1df ba36b9d1 b91de544 b71f100f b408e2ed b685fec8 00000000
""".split()], np.uint32).view(_F32).reshape(7, 32)
_TANH_IDX_BIAS, _TANH_IDX_MASK = np.uint32(0x39800000), np.uint32(0xffc00000)
_TANH_LINEAR, _TANH_SATURATED = _bits(0x39ddb3d7), _bits(0x41102cb3)
_SIGN = np.uint32(0x80000000)
_UNROLL = 4
_BLOCK_ELEMENTS = 1 << 13   # a block's float64 temporaries stay in the L1/L2 cache

# ONEDNN_MAX_CPU_ISA values -> (lanes, fused multiply-add), weakest first
_ISAS = (("SSE41", 4, False), ("AVX", 8, False), ("AVX2", 8, True), ("AVX512_CORE", 16, True))
_AVX512_CORE_FLAGS = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}


def softmax_kernel(xp, dtype):
    """TensorFlow's softmax over the last axis of 2-D arrays of `xp` and `dtype`.

    Args:
        xp: the array module.
        dtype: the arrays' dtype.

    Returns:
        `fn(rows) -> softmax of each row`, or None where TensorFlow does not
        use oneDNN (other dtypes, cupy arrays, CPUs other than x86): the
        caller's formula then.

    Example:
        >>> softmax_kernel(np, np.float64) is None
        True
    """
    kernel = cpu_kernel()
    if xp is not np or np.dtype(dtype) != _F32 or kernel is None:
        return None
    return lambda rows: rows_softmax(rows, *kernel)


def rows_softmax(rows, lanes, fused):
    """oneDNN's softmax of each row of a 2-D float32 array.

    Rows are independent, so blocks of rows small enough for the CPU's cache
    are spread over the CPU threads (`cpu_threads`); the numbers do not depend
    on the blocking.

    Args:
        rows: (n, length) float32 array.
        lanes: the kernel's vector width (4, 8 or 16).
        fused: whether its multiply-adds are fused (FMA).

    Returns:
        (n, length) float32 array.

    Example:
        >>> rows_softmax(np.zeros((1, 2), np.float32), 16, True)
        array([[0.5, 0.5]], dtype=float32)
    """
    n, length = rows.shape
    out = np.empty_like(rows)
    if out.size == 0:
        return out
    step = max(1, _BLOCK_ELEMENTS // length)

    def block(start, stop):
        out[start:stop] = _block_softmax(rows[start:stop], lanes, fused)
    cpu_threads.run_split(block, [(start, min(n, start + step)) for start in range(0, n, step)])
    return out


def _block_softmax(rows, lanes, fused):
    length = rows.shape[1]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        rows = flush_subnormals(rows)
        if np.isnan(rows).any():
            peak = _per_position(_lane_reduce(rows, lanes, _x86_max, _NEG_MAX, pad=_NEG_MAX,
                                              nan_safe_tail=lanes != 16), length)
        else:
            peak = np.maximum(rows.max(axis=1, keepdims=True), _NEG_MAX)
        e = _exp(flush_subnormals(rows - peak), fused)
        # every lane holds the same sum (addition commutes), so lane 0 serves the row
        total = _lane_reduce(e, lanes, np.add, _f(0), pad=_f(0))[:, :1]
        e *= _f(1) / total
        return flush_subnormals(e)


def _per_position(per_lane, length):
    """The lane values of each row, repeated along the row (position p reads lane p % lanes)."""
    lanes = per_lane.shape[1]
    return per_lane[:, np.arange(length) % lanes]


def _lane_reduce(v, lanes, op, start, pad, nan_safe_tail=False):
    """The kernel's reduction of each row: `lanes`-wide accumulators, four of them while
    whole groups of four vectors remain, then the remaining whole vectors, then the
    partial last vector (its missing lanes untouched, or for `nan_safe_tail`, AVX2's
    blend with `pad`); the accumulators merged pairwise, then the lanes by halves.

    Returns:
        (rows, lanes) array: every lane's result (they agree unless a NaN met `op`).
    """
    n, length = v.shape
    full, tail = divmod(length, lanes)
    loops, loop_tail = divmod(full, _UNROLL)
    count = _UNROLL if loops else (loop_tail or 1)
    acc = [np.full((n, lanes), start, v.dtype) for _ in range(count)]
    vectors = v[:, :full * lanes].reshape(n, full, lanes)
    for j in range(full):
        i = j % _UNROLL if j < loops * _UNROLL else j - loops * _UNROLL
        acc[i] = op(acc[i], vectors[:, j])
    if tail:
        last = v[:, full * lanes:]
        if nan_safe_tail:
            padded = np.full((n, lanes), pad, v.dtype)
            padded[:, :tail] = last
            acc[0] = op(acc[0], padded)
        else:
            acc[0][:, :tail] = op(acc[0][:, :tail], last)
    if count == 4:
        merged = op(op(acc[0], acc[1]), op(acc[2], acc[3]))
    elif count == 3:
        merged = op(op(acc[0], acc[1]), acc[2])
    elif count == 2:
        merged = op(acc[0], acc[1])
    else:
        merged = acc[0]
    lane = np.arange(lanes)
    step = lanes // 2
    while step:
        merged = op(merged, merged[:, lane ^ step])
        step //= 2
    return merged


def _x86_max(a, b):
    """`maxps`: a where a > b, else b (so a NaN in either gives b)."""
    return np.where(a > b, a, b)


def _x86_min(a, b):
    """`minps`: a where a < b, else b."""
    return np.where(a < b, a, b)


def _exp(x, fused):
    """oneDNN's exp: x = n ln2 + r, 2 * 2^(n-1) * p(r), zero below ln(FLT_MIN)."""
    below = x < _LN_MIN
    if np.isnan(x).any():
        x = _x86_max(_x86_min(x, _LN_MAX), _LN_MIN)
    else:
        x = np.clip(x, _LN_MIN, _LN_MAX)
    n = x * _LOG2E
    n += _f(0.5)
    np.floor(n, out=n)
    r = _multiply_add(-n, _LN2, x, fused)
    n -= _f(1)
    scale = n.astype(np.int32)
    scale += 127
    scale <<= 23
    scale[below] = 0
    if fused:
        r = r.astype(np.float64)
    p = np.full_like(x, _EXP_POLY[0])
    for c in _EXP_POLY[1:] + (_f(1.0),):
        p = _multiply_add(p, r, c, fused)
    p *= scale.view(_F32)
    p = flush_subnormals(p)
    p *= _f(2.0)
    return p


def eltwise_kernel(xp, dtype, name):
    """oneDNN's elementwise `name` ("sigmoid", "tanh", "elu", "silu"), the activation
    TensorFlow's graphs fuse into a matrix product and its bias (`_FusedMatMul`).

    Args:
        xp: the array module.
        dtype: the arrays' dtype.
        name: the activation.

    Returns:
        `fn(array) -> array`, or None where TensorFlow does not use oneDNN (see
        `softmax_kernel`).

    Example:
        >>> eltwise_kernel(np, np.float64, "tanh") is None
        True
    """
    kernel = cpu_kernel()
    if xp is not np or np.dtype(dtype) != _F32 or kernel is None:
        return None
    return functools.partial(_flushed, _ELTWISE[name], fused=kernel[1])


def _flushed(fn, x, fused):
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return flush_subnormals(fn(flush_subnormals(x), fused))


def _logistic(x, fused):
    """e / (e + 1) with e = exp(-|x|), mirrored (1 - that) for non-negative x."""
    e = _exp(-np.abs(x), fused)
    y = e / (e + _f(1))
    return np.where(np.signbit(x), y, _f(1) - y)


def _elu(x, fused):
    """x above zero, else exp(x) - 1; NaN stays NaN (as TensorFlow's fused kernel gives)."""
    return np.where((x > 0) | np.isnan(x), x, _exp(x, fused) - _f(1))


def _tanh(x, fused):
    """|x|'s interval by its bits, the interval's polynomial in the offset; x below
    the linear bound (and NaN), 1 above saturation; x's sign put back."""
    bits = x.view(np.uint32)
    magnitude_bits = bits & ~_SIGN
    magnitude = magnitude_bits.view(_F32)
    index = (((magnitude_bits - _TANH_IDX_BIAS) & _TANH_IDX_MASK) >> np.uint32(22)) & np.uint32(31)
    offset = magnitude - (magnitude_bits & _TANH_IDX_MASK).view(_F32)
    poly = _TANH_POLY[6][index]
    for degree in range(5, -1, -1):
        poly = _multiply_add(poly, offset, _TANH_POLY[degree][index], fused)
    out = np.where(_TANH_SATURATED > magnitude, poly, _f(1))
    out = np.where((_TANH_LINEAR > magnitude) | np.isnan(magnitude), magnitude, out)
    return (out.view(np.uint32) ^ (bits & _SIGN)).view(_F32)


_ELTWISE = {"sigmoid": _logistic, "tanh": _tanh, "elu": _elu,
            "silu": lambda x, fused: x * _logistic(x, fused)}


def fused_multiply_add(a, b, c):
    """`a * b + c` of float32 arrays rounded once, as an FMA instruction computes it
    (exactly: float64 arithmetic with a correction where its rounding is a tie).

    Args:
        a, b, c: float32 arrays (broadcast together).

    Returns:
        float32 array.

    Example:
        >>> fused_multiply_add(np.float32(3), np.float32(1 / 3), np.float32(-1))
        np.float32(2.9802322e-08)
    """
    return _multiply_add(a, b, c, True)


def _multiply_add(a, b, c, fused):
    """`a * b + c` in float32: one rounding (FMA) when `fused`, else two. For `fused`,
    `b` may be given in float64 already."""
    if not fused:
        return a * b + c
    total = np.multiply(a, b, dtype=np.float64)   # exact: 24 + 24 bits
    total += np.float64(c) if np.ndim(c) == 0 else c
    out = total.astype(_F32)
    # Rounding the double sum to float32 is a second rounding, wrong only when the
    # double lands exactly halfway between two floats; the sum's exact error decides.
    halfway = (total.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
    if halfway.any():
        out = _fix_halfway(a, b, c, total, out, halfway)
    return out


def _fix_halfway(a, b, c, total, out, halfway):
    product = np.multiply(a, b, dtype=np.float64)
    addend = np.broadcast_to(np.asarray(c, np.float64), total.shape)
    back = total - product
    error = (product - (total - back)) + (addend - back)
    nudged = (total + np.abs(total) * 2.0 ** -30 * np.sign(error)).astype(_F32)
    return np.where(halfway & (error != 0), nudged, out)


def cpu_kernel():
    """(lanes, fused multiply-add) of the softmax kernel oneDNN picks on this CPU, or
    None off x86 (where TensorFlow's kernels are others).

    Returns:
        tuple or None.
    """
    return _cpu_kernel(os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper())


@functools.lru_cache(maxsize=None)
def _cpu_kernel(cap):
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    flags = _cpu_flags()
    available = [isa for isa in _ISAS if _has(isa[0], flags)]
    names = [isa[0] for isa in _ISAS]
    if cap in names:
        available = [isa for isa in available if names.index(isa[0]) <= names.index(cap)]
    if not available:
        return None
    _, lanes, fused = available[-1]
    return lanes, fused


def _has(name, flags):
    need = {"SSE41": {"sse4_1"}, "AVX": {"avx"}, "AVX2": {"avx2", "fma"},
            "AVX512_CORE": _AVX512_CORE_FLAGS}[name]
    return need <= flags


def _cpu_flags():
    """The CPU's feature flags from /proc/cpuinfo (empty where it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()
