"""sin and cos of float32 arrays as TensorFlow's CPU kernels compute them.

TensorFlow's `Sin` and `Cos` run Eigen's `psincos_float` on packets of 8 values
(AVX without FMA, as TensorFlow's x86 wheels are built): the argument reduced by
`round(x * 2/pi)` times pi/2 split in four float32 constants, then a degree-8 cosine
or degree-7 sine polynomial, each multiply-add rounded twice; the values after the
last full packet go through the scalar code, glibc's `sinf`/`cosf`. numpy's float32
sin/cos differ from these in the last bit for a good share of inputs.

Arguments at or above Eigen's "huge" thresholds (25966 for sin, 18838 for cos),
which Eigen reduces with a Payne-Hanek step, keep numpy's values (an ulp or two
off). Constants are Eigen's (TensorFlow 2.21's bundled Eigen,
`GenericPacketMathFunctions.h`); checked bit for bit against TensorFlow 2.21
(`tests/backend/test_eigen_trig.py`).
"""
import numpy as np

from kerasish.backend.kernels import eigen_math

_LANES = 8
_F32 = np.dtype(np.float32)
_f = np.float32
_TWO_OVER_PI = _f(0.636619746685028076171875)
_ROUNDING_MAGIC = _f(12582912)   # 2^23 + 2^22: adding it rounds to an integer
# pi/2 in four pieces (the non-FMA reduction)
_PIO2 = (_f(-1.5703125), _f(-0.000483989715576171875),
         _f(1.62865035235881805419921875e-07),
         _f(5.5644315544167710640977020375430583953857421875e-11))
_COS = (_f(2.4372266125283204019069671630859375e-05), _f(-0.00138865201734006404876708984375),
        _f(0.041666619479656219482421875), _f(-0.5), _f(1.0))
_SIN = (_f(-0.0001959234114083702898469196984621021329076029360294342041015625),
        _f(0.0083326873655616851693794799871284340042620897293090820312500000),
        _f(-0.1666666203982298255503735617821803316473960876464843750000000000))
_HUGE = {True: _f(25966.0), False: _f(18838.0)}
_SIGN = np.uint32(0x80000000)


def sin(xp, a):
    """`sin(a)`: TensorFlow's values for float32 numpy arrays (others: `xp.sin`).

    Example:
        >>> sin(np, np.float32([0.5] * 9))[:2]
        array([0.47942555, 0.47942555], dtype=float32)
    """
    return _sincos(xp, a, True)


def cos(xp, a):
    """`cos(a)`: TensorFlow's values for float32 numpy arrays (others: `xp.cos`).

    Example:
        >>> cos(np, np.float32([0.5] * 9))[:2]
        array([0.87758255, 0.87758255], dtype=float32)
    """
    return _sincos(xp, a, False)


def _sincos(xp, a, sine):
    double_fn = np.sin if sine else np.cos
    if xp is not np or a.dtype != _F32:
        return double_fn(a) if xp is np else (xp.sin(a) if sine else xp.cos(a))
    flat = a.reshape(-1)
    packed = flat.size // _LANES * _LANES
    out = np.empty_like(flat)
    if packed:
        with np.errstate(invalid="ignore", over="ignore"):   # inf and NaN give NaN
            out[:packed] = _packet(flat[:packed], sine)
            huge = ~(np.abs(flat[:packed]) < _HUGE[sine])   # NaN and inf too: numpy's values
            if huge.any():
                head = out[:packed]
                head[huge] = double_fn(flat[:packed][huge].astype(np.float64)).astype(_F32)
    if packed < flat.size:
        out[packed:] = eigen_math.libm_float("sinf" if sine else "cosf", double_fn,
                                             flat[packed:])
    return out.reshape(a.shape)


def _packet(x_in, sine):
    """Eigen's `psincos_float<sine>` without FMA, lane by lane in numpy float32."""
    x = np.abs(x_in)
    y_round = x * _TWO_OVER_PI + _ROUNDING_MAGIC
    y_int = y_round.view(np.uint32)            # its low bits: the quadrant
    y = y_round - _ROUNDING_MAGIC
    for piece in _PIO2:                        # pmadd(y, piece, x): multiply, then add
        x = y * piece + x
    if sine:
        sign = (x_in.view(np.uint32) ^ (y_int << np.uint32(30))) & _SIGN
    else:
        sign = ((y_int + np.uint32(1)) << np.uint32(30)) & _SIGN
    x2 = x * x
    cos_poly = _COS[0]
    for c in _COS[1:]:
        cos_poly = cos_poly * x2 + c
    sin_poly = _SIN[0]
    for c in _SIN[1:]:
        sin_poly = sin_poly * x2 + c
    sin_poly = sin_poly * x2
    sin_poly = sin_poly * x + x
    even = (y_int & np.uint32(1)) == 0
    result = np.where(even, sin_poly, cos_poly) if sine else np.where(even, cos_poly, sin_poly)
    return (result.astype(_F32).view(np.uint32) ^ sign).view(_F32)


def glibc_float(name, numpy_name):
    """`fn(xp, a)` giving glibc's float function `name` value by value for float32 numpy
    arrays (what TensorFlow's scalar-only Eigen functors call: tan, sinh, cosh, arcsinh,
    arccosh), and `xp.<numpy_name>` otherwise.

    Example:
        >>> glibc_float("tanf", "tan")(np, np.float32([0.5]))
        array([0.5463025], dtype=float32)
    """
    def fn(xp, a):
        numpy_fn = getattr(xp, numpy_name)
        if xp is not np or a.dtype != _F32:
            return numpy_fn(a)
        with np.errstate(all="ignore"):
            return eigen_math.libm_float(name, numpy_fn, a)
    return fn
