"""float32 functions TensorFlow computes with glibc's scalar code, value by value.

Eigen has no packet version of tan, sinh, cosh, arcsinh and arccosh, so
TensorFlow's CPU kernels call glibc's float functions (`tanf`, ...) on each value;
numpy's own differ from them in the last bit. (sin and cos, which Eigen does
vectorise, are in `eigen_math.py`.) Checked bit for bit against TensorFlow 2.21
(`tests/backend/test_eigen_trig.py`).
"""
import numpy as np

from kerasish.backend.kernels import eigen_math


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
        if xp is not np or a.dtype != np.float32:
            return numpy_fn(a)
        with np.errstate(all="ignore"):
            return eigen_math.libm_float(name, numpy_fn, a)
    return fn
