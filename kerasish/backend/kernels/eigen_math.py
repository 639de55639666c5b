"""float32 exp, log, log1p, tanh, sigmoid, pow, sin and cos as TensorFlow's CPU kernels give them.

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
def _libm(name, arguments=1):
    """The C library's float function `name` (what TensorFlow's scalar code
    calls), or None where there is no C math library to load."""
    path = ctypes.util.find_library("m")
    try:   # PyDLL: called with the GIL held (a short pure function; no release per value)
        fn = getattr(ctypes.PyDLL(path), name)
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float] * arguments
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


# pow ------------------------------------------------------------------------------------
# TensorFlow's `Pow` of float32: Eigen's `generic_pow` on packets of 8 (log2 of the
# mantissa in double-word float32 arithmetic, Dekker's products through Veltkamp splits as
# the wheels have no FMA, then exp2 through Eigen's exp), libm's `powf` on the values after
# the last full packet and on single values. numpy's float32 power differs from it in
# about 30 % of values (and from libm's powf in Adam's `0.9 ** 4`).
_POW_LOG2_POLY = tuple(_f(c) for c in (
    9.7010828554630279541015625e-02, -1.6896486282348632812500000e-01,
    1.7200836539268493652343750e-01, -1.7892272770404815673828125e-01,
    2.0505344867706298828125000e-01, -2.4046677350997924804687500e-01,
    2.8857553005218505859375000e-01, -3.6067414283752441406250000e-01,
    4.8089790344238281250000000e-01))


def _dw_const(value):
    """A double constant as Eigen's float32 double word (hi, lo)."""
    hi = np.float32(value)
    return hi, np.float32(value - float(hi))


_POW_C0 = _dw_const(1.442695041742110273474963832995854318141937255859375e+00)
_POW_C1 = _dw_const(-7.2134751588268664068692714863573201000690460205078125e-01)
_LN2_F = _f(0.693147180559945309417)
_HUGE_EXPONENT = _f(_f(128) * _LN2_F) / _f(np.finfo(np.float32).eps)


def _two_prod(x, y):
    """Dekker's exact product {hi, lo} of float32 arrays. Eigen computes `lo` with
    Veltkamp splits (no FMA in TensorFlow's wheels); it is exact, so it equals the
    double product's remainder, which takes 4 numpy passes instead of 17."""
    hi = x * y
    lo = np.multiply(x, y, dtype=np.float64)
    lo -= hi
    return hi, lo.astype(_F32)


def _fast_two_sum(x, y):
    s_hi = x + y
    return s_hi, y - (s_hi - x)


def _dw_times(x_hi, x_lo, y):
    """Double word times float (Muller's Algorithm 7, as Eigen)."""
    c_hi, c_lo1 = _two_prod(x_hi, y)
    t_hi, t_lo1 = _fast_two_sum(c_hi, x_lo * y)
    return _fast_two_sum(t_hi, t_lo1 + c_lo1)


def _dw_plus_dw(x_hi, x_lo, y_hi, y_lo):
    """Eigen's fast_twosum of two double words (|x_hi| >= |y_hi|)."""
    r_hi, r_lo = _fast_two_sum(x_hi, y_hi)
    return _fast_two_sum(r_hi, (y_lo + r_lo) + x_lo)


def _round_half_away(x):
    """Eigen's AVX pround: `trunc(x + copysign(0.49999997, x))`."""
    return np.trunc(x + np.copysign(_f(0.49999997), x))


def _packet_pow_positive(x, y):
    """Eigen's generic_pow_impl for x > 0 (finite) on float32 arrays."""
    m, e = np.frexp(x)
    e = e.astype(_F32)
    low = m < _f(0.70710678118654752440)
    m = np.where(low, _f(2) * m, m)
    e = np.where(low, e - _f(1), e)
    z = m - _f(1)        # accurate_log2<float>: log2(1 + z) / z by a polynomial
    p = np.full_like(z, _POW_LOG2_POLY[0])
    for c in _POW_LOG2_POLY[1:]:
        p = p * z + c
    p_hi, p_lo = _two_prod(z, p)
    p_hi, p_lo = _dw_plus_dw(_POW_C1[0], _POW_C1[1], p_hi, p_lo)
    p_hi, p_lo = _dw_times(p_hi, p_lo, z)
    p_hi, p_lo = _dw_plus_dw(_POW_C0[0], _POW_C0[1], p_hi, p_lo)
    r_hi, r_lo = _dw_times(p_hi, p_lo, z)
    f1_hi, f1_lo = _two_prod(e, y)
    f2_hi, f2_lo = _dw_times(r_hi, r_lo, y)
    f_hi, f_lo = _dw_plus_dw(f1_hi, f1_lo, f2_hi, f2_lo)
    n = _round_half_away(f_hi)
    r = (f_hi - n) + f_lo
    n_r = _round_half_away(r)
    r = r - n_r
    n = n + n_r
    r = np.clip(r, _f(-(128 + 24 - 1)), _f(129))    # generic_exp2
    q_hi, q_lo = _two_prod(np.full_like(r, _LN2_F), r)
    e_r = _packet_exp(q_hi) * (_f(1) + q_lo)
    return np.ldexp(e_r, np.clip(n, -300, 300).astype(np.int32))


def _packet_pow(x_in, y):
    """Eigen's generic_pow: the positive case, then the C++ special cases in its order.

    TensorFlow's threads read subnormals as zero and flush subnormal results, except
    that `pow(x, 1)` selects `x` itself."""
    inf, zero, one = _f(np.inf), _f(0), _f(1)
    if _minimum(x_in) >= _TINY and np.maximum.reduce(x_in, axis=None) < inf and \
            np.maximum.reduce(np.abs(y), axis=None) < _HUGE_EXPONENT:
        # the common case: normal positive bases, moderate exponents (no NaN either)
        out = flush_subnormals(_packet_pow_positive(x_in, y))
        return np.where(y == one, x_in, np.where((x_in == one) | (y == zero), one, out))
    x, y = flush_subnormals(x_in), flush_subnormals(y)
    x_abs = np.abs(x)
    safe = np.where(np.isfinite(x_abs) & (x_abs > 0), x_abs, one)
    out = _packet_pow_positive(safe, np.where(np.isfinite(y), y, one))
    x_negative, x_zero, x_one = x < zero, x == zero, x == one
    x_signbit, x_abs_gt_one, x_abs_inf = np.signbit(x), one < x_abs, x_abs == inf
    y_abs = np.abs(y)
    y_negative, y_zero, y_one = y < zero, y == zero, y == one
    y_int = (np.floor(y) == y) & (y_abs != inf)
    y_half = y * _f(0.5)
    y_odd_int = y_int & ~(_round_half_away(y_half) == y_half)
    out = np.where(x_negative & ~y_int, _f(np.nan), out)
    out = np.where(x_zero, np.where(y_negative, inf, zero), out)
    out = np.where(x_signbit & y_odd_int, -out, out)
    inf_y = np.where((y_negative & x_zero) | (y_negative ^ x_abs_gt_one), inf, zero)
    inf_y = np.where(x == _f(-1), one, inf_y)
    out = np.where(_HUGE_EXPONENT <= y_abs, inf_y, out)
    pos_inf = np.where(y_negative, zero, inf)
    neg_inf = np.where(y_odd_int, -pos_inf, pos_inf)
    out = np.where(x_abs_inf, np.where(x_negative, neg_inf, pos_inf), out)
    out = flush_subnormals(np.where(np.isnan(x) | np.isnan(y), _f(np.nan), out))
    return np.where(y_one, x_in, np.where(x_one | y_zero, one, out)).astype(_F32, copy=False)


def _libm_powf():
    """libm's powf (what TensorFlow's scalar `Pow` calls), or None without libm."""
    return _libm("powf", arguments=2)


def _scalar_pow(x, y):
    """libm's powf value by value (without libm: the double power rounded once)."""
    fn = _libm_powf()
    if fn is None:
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return np.power(x.astype(np.float64), y.astype(np.float64)).astype(_F32)
    return np.fromiter(map(fn, x.tolist(), y.tolist()), _F32, x.size)


def power(xp, a, b):
    """`a ** b`: TensorFlow's values for float32 numpy arrays (see above).

    Args:
        xp: the array module of the operands.
        a, b: the base and the exponent (broadcast together).

    Returns:
        array of the broadcast shape, or None where this is not float32 numpy
        (the caller then uses the array library's power).
    """
    if xp is not np or getattr(a, "dtype", None) != _F32 or getattr(b, "dtype", None) != _F32:
        return None
    if a.ndim == 0 == b.ndim and _libm_powf() is not None:   # the optimizers' step powers
        return flush_subnormals(np.array(_libm_powf()(float(a), float(b)), _F32))
    a, b = np.broadcast_arrays(a, b)
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    packed = flat_a.size // _LANES * _LANES
    out = np.empty(flat_a.shape, _F32)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        if packed:
            out[:packed] = _packet_pow(flat_a[:packed], flat_b[:packed])
        if packed < flat_a.size:
            out[packed:] = flush_subnormals(_scalar_pow(flat_a[packed:], flat_b[packed:]))
    return out.reshape(a.shape)


def scalar_pow(base, exponent):
    """libm's powf of two float32 scalars (TensorFlow's `Pow` of single values).

    Args:
        base, exponent: numbers (rounded to float32).

    Returns:
        np.float32.
    """
    return _scalar_pow(np.array([base], _F32), np.array([exponent], _F32))[0]


# sin and cos --------------------------------------------------------------------------
# TensorFlow's `Sin`/`Cos` of float32: Eigen's psincos_float on packets of 8 (x reduced by
# y * pi/2 in four float32 parts, multiply then add as there is no FMA, Payne-Hanek for
# |x| from 25966 (sin) / 18838 (cos), then a degree-8 (cos) or degree-7 (sin)
# polynomial), libm's sinf/cosf after the last full packet and on single values.
_TWO_OVER_PI_BITS = (
    0x00000028, 0x000028be, 0x0028be60, 0x28be60db, 0xbe60db93, 0x60db9391, 0xdb939105,
    0x9391054a, 0x91054a7f, 0x054a7f09, 0x4a7f09d5, 0x7f09d5f4, 0x09d5f47d, 0xd5f47d4d,
    0xf47d4d37, 0x7d4d3770, 0x4d377036, 0x377036d8, 0x7036d8a5, 0x36d8a566, 0xd8a5664f,
    0xa5664f10, 0x664f10e4, 0x4f10e410, 0x10e41000, 0xe4100000)
_PI_OVER_2_PARTS = tuple(_f(c) for c in (-1.5703125, -0.000483989715576171875,
                                          1.62865035235881805419921875e-07,
                                          5.5644315544167710640977020375430583953857421875e-11))
_COS_POLY = tuple(_f(c) for c in (2.4372266125283204019069671630859375e-05,
                                   -0.00138865201734006404876708984375,
                                   0.041666619479656219482421875, -0.5, 1.0))
_SIN_POLY = tuple(_f(c) for c in (-0.0001959234114083702898469196984621021329076029360294342041015625,
                                   0.0083326873655616851693794799871284340042620897293090820312500000,
                                   -0.1666666203982298255503735617821803316473960876464843750000000000))


def _trig_reduce_huge(value):
    """Eigen's Payne-Hanek reduction of one large finite float: (remainder, quadrant)."""
    mask64 = (1 << 64) - 1
    xi = int(np.float32(value).view(np.uint32))
    e = ((xi >> 23) - 118) & 0xFFFFFFFF
    xi = (((xi & 0x007FFFFF) | 0x00800000) << (e & 0x7)) & 0xFFFFFFFF
    i = e >> 3
    t1, t2, t3 = (_TWO_OVER_PI_BITS[i - 1], _TWO_OVER_PI_BITS[i + 3],
                  _TWO_OVER_PI_BITS[i + 7])
    p = (xi * t3) & mask64
    p = (xi * t2 + (p >> 32)) & mask64
    p = ((((xi * t1) & 0xFFFFFFFF) << 32) + p) & mask64
    q = ((p + (1 << 61)) & mask64) >> 62
    p = (p - (q << 62)) & mask64
    signed = p - (1 << 64) if p >= 1 << 63 else p
    return np.float32(float(signed) * 3.4061215800865545e-19), q


def _packet_sincos(x_in, sine):
    """Eigen's psincos_float (AVX, no FMA) on a float32 array."""
    x = np.abs(x_in)
    y_round = x * _f(0.636619746685028076171875) + _f(12582912)
    y_int = y_round.view(np.int32).copy()
    y = y_round - _f(12582912)
    for c in _PI_OVER_2_PARTS:
        x = y * c + x
    huge = (np.abs(x_in) >= _f(25966.0 if sine else 18838.0)) & np.isfinite(x_in)
    for k in np.flatnonzero(huge):
        x[k], y_int[k] = _trig_reduce_huge(abs(float(x_in[k])))
    if sine:
        sign = (x_in.view(np.int32) ^ (y_int << 30)) & np.int32(-2 ** 31)
    else:
        sign = ((y_int + 1) << 30) & np.int32(-2 ** 31)
    even = (y_int & 1) == 0
    x2 = x * x
    y1 = np.full_like(x, _COS_POLY[0])
    for c in _COS_POLY[1:]:
        y1 = y1 * x2 + c
    y2 = np.full_like(x, _SIN_POLY[0])
    for c in _SIN_POLY[1:]:
        y2 = y2 * x2 + c
    y2 = (y2 * x2) * x + x
    out = np.where(even, y2, y1) if sine else np.where(even, y1, y2)
    return (out.view(np.int32) ^ sign).view(_F32)


def sin(xp, a):
    """`sin(a)`: TensorFlow's values for float32 numpy arrays (see above).

    Args:
        xp: the array module of `a`.
        a: array.

    Returns:
        array of `a`'s shape and dtype.
    """
    if xp is not np or a.dtype != _F32:
        return xp.sin(a)
    return _by_packets(a, lambda v: _packet_sincos(v, True),
                       lambda v: _scalar("sinf", np.sin, v), flush_in=True)


def cos(xp, a):
    """`cos(a)`: TensorFlow's values for float32 numpy arrays (see above).

    Args:
        xp: the array module of `a`.
        a: array.

    Returns:
        array of `a`'s shape and dtype.
    """
    if xp is not np or a.dtype != _F32:
        return xp.cos(a)
    return _by_packets(a, lambda v: _packet_sincos(v, False),
                       lambda v: _scalar("cosf", np.cos, v), flush_in=True)
