"""exp, log, log1p, tanh and sigmoid of float32 arrays as TensorFlow's CPU kernels compute them.

TensorFlow's `Exp`, `Tanh` and `Sigmoid` run Eigen's vectorised approximations
(a Cephes-style polynomial for exp, a rational function of the mantissa for
log (and Kahan's log1p over it), a [9/8] rational function for tanh, and
`exp(x/2)^2 / (1 + exp(x/2)^2)` for the logistic), which differ from numpy's
results in the last bit for about half of all inputs. The functions below are
those approximations written with numpy float32 operations, in Eigen's order,
with a separate rounding for each multiply and add (TensorFlow's x86 wheels
build Eigen for AVX without FMA). Eigen evaluates an array in packets of 8
values; the values after the last full packet go through the scalar code
(`std::exp`/`std::log`/`std::log1p` for exp, log, log1p and sigmoid), as here. TensorFlow's threads flush
subnormal inputs and results to zero, and so do these functions.

Constants are Eigen's (TensorFlow 2.21's bundled Eigen,
`GenericPacketMathFunctions.h` and `UnaryFunctors.h`). Checked bit for bit
against TensorFlow 2.21 (`tests/backend/test_eigen_math.py`).

Other dtypes and cupy arrays use the array library's own functions.
"""
import ctypes
import ctypes.util
import functools

import numpy as np

_LANES = 8
_F32 = np.dtype(np.float32)
_f = np.float32
_TINY = _f(1.17549435e-38)   # the smallest normal float32
_EXP_NORMAL = _f(-87.0)      # exp of inputs at or above it is a normal float32


def _minimum(a):
    """The smallest value of a numpy array (NaN if it holds one), without `a.min()`'s
    Python wrapper."""
    return np.minimum.reduce(a, axis=None)


def exp(xp, a):
    """`exp(a)`: TensorFlow's values for float32 numpy arrays.

    Args:
        xp: the array module of `a`.
        a: array.

    Returns:
        array of `a`'s shape and dtype.
    """
    if xp is not np or a.dtype != _F32:
        return xp.exp(a)
    if a.size and _minimum(a) >= _EXP_NORMAL:
        # no NaN, no -inf and no result below the normal floats: nothing to zero or flush
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return _packets_then_tail(a, _packet_exp_normal, _scalar_exp)
    return _general_exp(a)


def _general_exp(a):
    """`exp` of any float32 array (the fast path above takes the common inputs)."""
    return _by_packets(a, _packet_exp, _scalar_exp, flush_out_below=_f(-87.0))


def tanh(xp, a):
    """`tanh(a)`: TensorFlow's values for float32 numpy arrays (see `exp`)."""
    if xp is not np or a.dtype != _F32:
        return xp.tanh(a)
    return _by_packets(a, _rational_tanh, _rational_tanh, flush_in=True)


def exp_for_row_sums(xp, a, flat_exp=None):
    """exp(a) as TensorFlow's kernels compute it inside a sum over the last axis
    (`exp(x).sum(-1)`): the packets run along each row, so a row's values after
    its last full packet of 8 take the scalar path.

    Args:
        xp: the array module of `a`.
        a: array.
        flat_exp: `exp(xp, a)` when the caller has it already.

    Returns:
        array of `a`'s shape and dtype.
    """
    if flat_exp is None:
        flat_exp = exp(xp, a)
    if xp is not np or a.dtype != _F32 or a.ndim == 0:
        return flat_exp
    packed = a.shape[-1] // _LANES * _LANES
    if packed == a.shape[-1]:
        return flat_exp
    out = flat_exp.copy()
    tail = a[..., packed:]
    with np.errstate(over="ignore"):
        out[..., packed:] = _scalar_exp(tail)
    if tail.size and not _minimum(tail) >= _EXP_NORMAL:   # (NaN too: a NaN minimum flushes)
        out[..., packed:] = flush_subnormals(out[..., packed:])
    return out


def exp_and_row_sum_exp(xp, a):
    """`(exp(xp, a), exp_for_row_sums(xp, a))`, the pair a softmax cross-entropy
    needs, with the checks and the error state shared.

    Args:
        xp: the array module of `a`.
        a: array.

    Returns:
        (array, array) of `a`'s shape and dtype (one array twice when the rows
        hold whole packets).
    """
    if xp is not np or a.dtype != _F32 or a.ndim == 0 or not a.size \
            or not _minimum(a) >= _EXP_NORMAL:
        flat = exp(xp, a)
        return flat, exp_for_row_sums(xp, a, flat)
    packed = a.shape[-1] // _LANES * _LANES
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        flat = _packets_then_tail(a, _packet_exp_normal, _scalar_exp)
        if packed == a.shape[-1]:
            return flat, flat
        rows = flat.copy()   # nothing to flush: every input is >= -87
        rows[..., packed:] = _scalar_exp(a[..., packed:])
    return flat, rows


def log(xp, a):
    """`log(a)`: TensorFlow's values for float32 numpy arrays (see `exp`)."""
    if xp is not np or a.dtype != _F32:
        return xp.log(a)
    return _by_packets(a, _packet_log, _scalar_log, flush_in=True, flush_out_below=_f(-np.inf))


def log1p(xp, a):
    """`log1p(a)`: TensorFlow's values for float32 numpy arrays (Kahan's formula
    over Eigen's log; see `exp`)."""
    if xp is not np or a.dtype != _F32:
        return xp.log1p(a)
    return _by_packets(a, _packet_log1p, _scalar_log1p, flush_in=True)


def _packet_log1p(x):
    plus_one = x + _f(1.0)
    log_plus_one = _packet_log(plus_one)
    kahan = x * (log_plus_one / (plus_one - _f(1.0)))
    exact = (plus_one == _f(1.0)) | (plus_one == log_plus_one)
    kahan[exact] = x[exact]
    return kahan


def _scalar_log1p(x):
    return _scalar("log1pf", np.log1p, x)


def scalar_log(xp, a):
    """`log(a)` as TensorFlow's scalar code (`std::log`, libm's logf) computes it
    for float32 numpy arrays."""
    if xp is not np or a.dtype != _F32:
        return xp.log(a)
    # (no output flush: the log of a float is 0 or at least 5.9e-8 in magnitude)
    return _scalar_log(flush_subnormals(a))


def _scalar_log(x):
    return _scalar("logf", np.log, x)


def sigmoid(xp, a):
    """The logistic function: TensorFlow's values for float32 and float16 numpy
    arrays (see `exp`), None for other arrays.

    float16 is Eigen's generic logistic, `e / (1 + e)` in float16 with
    `e = exp(x)` computed in float32 and rounded (1 where `e` overflows).
    """
    if xp is not np:
        return None
    if a.dtype == np.float16:
        e = exp(np, a.astype(_F32)).astype(np.float16)
        with np.errstate(over="ignore", invalid="ignore"):
            out = e / (np.float16(1.0) + e)
        return np.where(np.isinf(e) & (e > 0), np.float16(1.0), out)
    if a.dtype != _F32:
        return None
    return _by_packets(a, _packet_logistic, _scalar_logistic, flush_out_below=_f(-87.0))


def split_sigmoid(xp, a, width):
    """The logistic function of each `width`-column block of the 2-D `a`, each block
    computed as TensorFlow computes it once split off as its own tensor (Keras's
    recurrent cells split their gates): a block's values after its last full
    packet of 8 (in row-major order) take the scalar path. float32 numpy
    arrays only; None otherwise.

    Args:
        xp: the array module of `a`.
        a: (rows, blocks * width) array.
        width: the block width.

    Returns:
        array shaped like `a`, or None.
    """
    if xp is not np or a.dtype != _F32:
        return None
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = _packet_logistic(a)
        _scalar_tails(a, out, width, _scalar_logistic)
    return flush_subnormals(out)


def split_tanh(xp, a, width):
    """tanh of each `width`-column block of the 2-D `a` as TensorFlow computes it on
    the split-off block (see `split_sigmoid`; tanh's scalar path is its packet
    formula, so only the input flushing matters). float32 numpy only; None otherwise."""
    if xp is not np or a.dtype != _F32:
        return None
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return flush_subnormals(_rational_tanh(flush_subnormals(a)))


def _scalar_tails(a, out, width, scalar_fn):
    """Recomputes with `scalar_fn` the values of each block past its last full packet."""
    rows = a.shape[0]
    tail = rows * width % _LANES
    if not tail:
        return
    first = rows * width - tail
    r, c = np.divmod(np.arange(first, rows * width), width)
    for start in range(0, a.shape[1], width):
        out[r, start + c] = scalar_fn(a[r, start + c])


def _by_packets(a, packet_fn, scalar_fn, flush_in=False, flush_out_below=None):
    """Packets of 8 through `packet_fn`, the rest through `scalar_fn`; subnormal
    inputs (when they matter: `flush_in`) and results (possible only for inputs
    below `flush_out_below`, or any input when None) flushed to zero."""
    if flush_in:
        a = flush_subnormals(a)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):   # inf, NaN pass, as in TF
        out = _packets_then_tail(a, packet_fn, scalar_fn)
    if flush_out_below is None or (a < flush_out_below).any():
        out = flush_subnormals(out)
    return out


def flush_subnormals(a):
    """TensorFlow runs its CPU kernels with subnormals flushed to (signed) zero."""
    if np.minimum.reduce(np.abs(a), axis=None, initial=_f(np.inf)) >= _TINY:
        return a      # (one reduction: the common case, nothing below the normal floats)
    tiny = np.abs(a) < _TINY
    if not tiny.any():
        return a
    return np.where(tiny, np.copysign(_f(0.0), a), a)


def _packets_then_tail(a, packet_fn, scalar_fn):
    flat = a.reshape(-1)
    packed = flat.size // _LANES * _LANES
    if packed == flat.size:
        return packet_fn(flat).reshape(a.shape)
    out = np.empty_like(flat)
    if packed:
        out[:packed] = packet_fn(flat[:packed])
    out[packed:] = scalar_fn(flat[packed:])
    return out.reshape(a.shape)


@functools.lru_cache(maxsize=None)
def _libm(name):
    """The C library's float function `name` (what TensorFlow's scalar code
    calls), or None where there is no C math library to load."""
    path = ctypes.util.find_library("m")
    try:   # PyDLL: called with the GIL held (a short pure function; no release per value)
        fn = getattr(ctypes.PyDLL(path), name)
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


def _scalar(name, double_fn, x):
    """`name` from libm value by value (about 0.7 us a value); without libm, the
    double function rounded once, which differs from glibc's expf and logf for
    about 1 value in 1000 and from its log1pf for 1 in 25."""
    fn = _libm(name)
    if fn is None:   # (libm's functions give inf and NaN silently; so does this)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return double_fn(x.astype(np.float64)).astype(_F32)
    return np.fromiter(map(fn, x.reshape(-1).tolist()), _F32, x.size).reshape(x.shape)


def libm_float(name, double_fn, x):
    """The C library's float function `name` of the float32 array `x`, value by value
    (the float64 `double_fn` rounded once where there is no C math library).

    Args:
        name: "logf", "sinf", "cosf", ... (a `float f(float)` of libm).
        double_fn: the numpy float64 function standing in for it.
        x: float32 numpy array.

    Returns:
        float32 array of `x`'s shape.

    Example:
        >>> libm_float("logf", np.log, np.float32([0.5]))
        array([-0.6931472], dtype=float32)
    """
    return _scalar(name, double_fn, x)


def _scalar_exp(x):
    """libm's expf. Its error is at most 0.502 ulp, so it can only differ from the
    correctly rounded double exp when that lies within 0.002 ulp of halfway
    between two floats: only those values go to libm one by one.

    Near halfway, the double lies more than 0.497 ulp (of the float on its side)
    from its rounding; the smaller of the two spacings around the rounding
    (that of the float below it) stands in for that ulp, which flags a few
    more values near powers of two (they go to libm too) and never fewer.
    """
    exact = np.exp(x.astype(np.float64))
    rounded = exact.astype(_F32)
    below = np.spacing(np.nextafter(rounded, _f(0.0)))
    halfway = np.abs(exact - rounded) > np.multiply(below, 0.4969, dtype=np.float64)
    if halfway.any():
        rounded[halfway] = _scalar("expf", np.exp, x[halfway])
    return rounded


def _exp_of_reduced(x, even, odd, leading, finite=False):
    """2^m * p(r) with x = m ln2 + r (Cephes' two-part ln2), Eigen's polynomial.

    Each step is one float32 ufunc call, in Eigen's order (`a * b + c` is a
    multiply, then an add), with the result written in place where it can be
    and the constants as read-only 0-d arrays (`_const`), which numpy takes
    faster than scalars; the operands keep the order of `a op= b`. `finite`:
    the caller knows `x` is finite (no non-finite `m` to zero)."""
    m = np.multiply(x, _LOG2E)
    np.add(m, _HALF, out=m)
    np.floor(m, out=m)
    if not finite:
        m[~np.isfinite(m)] = 0      # NaN inputs stay NaN through r
    r = np.multiply(m, _LN2_HIGH)
    np.add(r, x, out=r)
    t = np.multiply(m, _LN2_LOW)
    r = np.add(t, r, out=t)
    r2 = np.multiply(r, r)
    p_even = np.multiply(r2, even[0])
    np.add(p_even, even[1], out=p_even)
    for c in even[2:]:
        np.multiply(p_even, r2, out=p_even)
        np.add(p_even, c, out=p_even)
    y = np.multiply(r2, odd[0])
    np.add(y, odd[1], out=y)
    np.multiply(y, r, out=y)        # r * p_odd
    np.add(y, p_even, out=y)
    np.multiply(y, r2, out=y)
    np.add(r, leading, out=r)
    np.add(y, r, out=y)
    return np.ldexp(y, m.astype(np.int32), out=y)


def _const(value):
    """A float32 constant as a read-only 0-d array."""
    array = np.array(value, _F32)
    array.flags.writeable = False
    return array


_LOG2E, _HALF, _ONE = _const(1.44269504088896341), _const(0.5), _const(1.0)
_LN2_HIGH, _LN2_LOW = _const(-0.693359375), _const(2.12194440e-4)
_EXP_MAX = _const(88.723)
_EXP_EVEN = (_const(1.37449637986719608306884765625e-3), _const(4.166965186595916748046875e-2),
             _const(0.49999988079071044921875))
_EXP_ODD = (_const(8.36894474923610687255859375e-3), _const(0.16666518151760101318359375))


def _packet_exp_normal(x):
    """`_packet_exp` of finite inputs >= -87 (or +inf): nothing underflows."""
    y = _exp_of_reduced(np.minimum(x, _EXP_MAX), _EXP_EVEN, _EXP_ODD, _ONE, finite=True)
    return np.maximum(y, x, out=y)


def _packet_exp(x):
    y = _exp_of_reduced(np.minimum(x, _EXP_MAX), _EXP_EVEN, _EXP_ODD, _ONE)
    y = np.maximum(y, x)
    y[x < _f(-104.0)] = 0.0
    return y


_LOGISTIC_EVEN = (_const(4.1898667812347412109375e-2), _const(0.49999141693115234375))
_LOGISTIC_ODD = (_const(8.33471305668354034423828125e-3), _const(0.16666877269744873046875))


def _packet_logistic(x):
    half = np.minimum(x, _f(16.6355324)) * _f(0.5)
    e = _exp_of_reduced(half, _LOGISTIC_EVEN, _LOGISTIC_ODD, _ONE)
    e = e * e
    out = e / (_f(1.0) + e)
    out[x < _f(-104.0)] = 0.0
    return out


def _scalar_logistic(x):
    e = _scalar_exp(np.minimum(x, _f(16.6355324)))
    return e / (_f(1.0) + e)


_LOG_NUM = (_f(0.18256296349849254), _f(1.0000000190281063), _f(1.0000000190281136))
_LOG_DEN = (_f(0.049616247954120038), _f(0.59923249590823520), _f(1.4999999999999927), _f(1.0))


def _packet_log(a):
    mantissa, exponent = np.frexp(a)           # mantissa in [0.5, 1)
    exponent = exponent.astype(_F32)
    low = mantissa < _f(0.707106781186547524)
    x = mantissa - _f(1.0)
    exponent[low] -= _f(1.0)
    x[low] += mantissa[low]                    # 2 * mantissa - 1 as (m - 1) + m
    p = _LOG_NUM[0]
    for c in _LOG_NUM[1:]:
        p = p * x + c
    p = x * p
    q = _LOG_DEN[0]
    for c in _LOG_DEN[1:]:
        q = q * x + c
    out = exponent * _f(0.693147180559945309417232121458) + p / q
    out[a == 0] = -np.inf
    out[a == np.inf] = np.inf
    out[~(a >= 0)] = np.nan
    return out


_TANH_NUM = (_f(1.394553628e-8), _f(2.102733560e-5), _f(3.520756727e-3), _f(1.340216100e-1))
_TANH_DEN = (_f(8.015776984e-7), _f(3.326951409e-4), _f(2.597254514e-2), _f(4.673548340e-1),
             _f(1.0))


def _rational_tanh(a):
    x = np.clip(a, _f(-7.90738964080810547), _f(7.90738964080810547))
    x2 = x * x
    p = _TANH_NUM[0]
    for c in _TANH_NUM[1:]:
        p = p * x2 + c
    q = _TANH_DEN[0]
    for c in _TANH_DEN[1:]:
        q = q * x2 + c
    return ((x2 * x) * p + x) / q
