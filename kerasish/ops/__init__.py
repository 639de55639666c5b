"""kerasish.ops: differentiable functions with Keras 3 `keras.ops` names.

Every function accepts Tensors, Variables, numpy arrays and Python numbers
and returns Tensors on the inputs' device. Dtypes follow Keras's promotion
rules (`kerasish.backend.result_type`).
"""
from kerasish.ops import _operators
from kerasish.autodiff.keras_tensor import KerasTensor as _KerasTensor
from kerasish.ops.attention import dot_product_attention
from kerasish.ops.control_flow import (associative_scan, cond, custom_gradient,
                                       fori_loop, map, scan, switch,
                                       vectorized_map, while_loop)
from kerasish.ops.conv import (conv, conv_transpose, depthwise_conv,
                               separable_conv)
from kerasish.ops.core import (cast, convert_to_numpy, convert_to_tensor,
                               dtype, is_tensor, ndim, shape, stop_gradient)
from kerasish.ops.creation import (arange, array, empty, empty_like, eye, full,
                                   full_like, identity, linspace, logspace,
                                   ones, ones_like, tri, zeros, zeros_like)
from kerasish.ops.elementwise import (abs, absolute, add, arccos, arccosh,
                                      arcsin, arcsinh, arctan, arctan2,
                                      arctanh, cbrt, ceil, clip, conj,
                                      conjugate, copy, cos, cosh, deg2rad,
                                      divide, divide_no_nan, equal, erf, erfc,
                                      erfinv, exp, exp2, expm1, floor,
                                      floor_divide, greater, greater_equal,
                                      hypot, imag, isclose, isfinite, isinf,
                                      isnan, isneginf, isposinf, less,
                                      less_equal, log, log1p, log2, log10,
                                      logaddexp, logical_and, logical_not,
                                      logical_or, logical_xor, maximum,
                                      minimum, mod, multiply, nan_to_num,
                                      negative, not_equal, power, rad2deg,
                                      real, reciprocal, round, rsqrt, sign,
                                      signbit, sin, sinh, sqrt, square,
                                      subtract, tan, tanh, true_divide, trunc,
                                      where)
from kerasish.ops.elementwise import divide_operator as divide  # noqa: E402,F811 - graph-aware
from kerasish.ops.elementwise import divide_operator as true_divide  # noqa: E402,F811
from kerasish.ops.extras import (allclose, array_split, cross, diagflat,
                                 dsplit, dstack, fliplr, flipud, fmod,
                                 get_item, heaviside, hsplit, isin, kron,
                                 logaddexp2, nanmax, nanmean, nanmin, nanprod,
                                 nanstd, nansum, nanvar, percentile, psnr, ptp,
                                 select, sinc, sparse_sigmoid, trapezoid,
                                 vander, vsplit)
from kerasish.ops.integer_ops import (bincount, bitwise_and, bitwise_invert,
                                      bitwise_left_shift, bitwise_not,
                                      bitwise_or, bitwise_right_shift,
                                      bitwise_xor, digitize, gcd, lcm,
                                      left_shift, right_shift, saturate_cast,
                                      unique, unravel_index)
from kerasish.ops.linalg import (dot, einsum, inner, matmul, norm, outer,
                                 tensordot, vdot)
from kerasish.ops.manipulation import (append, broadcast_to, concatenate,
                                       diff, expand_dims, flatten, flip,
                                       getitem, hstack, meshgrid, moveaxis,
                                       multi_hot, one_hot, pad, ravel, repeat,
                                       reshape, roll, rot90, scatter,
                                       scatter_update, size, slice,
                                       slice_update, split, squeeze, stack,
                                       swapaxes, take, take_along_axis, tile,
                                       transpose, unstack, vstack)
from kerasish.ops.matrix import (det, diag, diagonal, inv, logdet, slogdet,
                                 solve, trace, tril, triu)
from kerasish.ops.nn import (batch_normalization, binary_crossentropy,
                             categorical_crossentropy, celu, dense, elu, gelu,
                             glu, hard_shrink, hard_sigmoid, hard_silu,
                             hard_swish, hard_tanh, layer_normalization,
                             leaky_relu, log_sigmoid, log_softmax, mish,
                             moments, normalize, relu, relu6,
                             rms_normalization, selu, sigmoid, silu,
                             soft_shrink, softmax, softplus, softsign,
                             sparse_categorical_crossentropy, sparse_plus,
                             sparsemax, squareplus, swish, tanh_shrink,
                             threshold)
from kerasish.ops.pooling import average_pool, max_pool
from kerasish.ops.reduction import (all, amax, amin, any, argmax, argmin,
                                    count_nonzero, cumprod, cumsum, logsumexp,
                                    max, mean, min, prod, std, sum, var)
from kerasish.ops.segment import segment_max, segment_min, segment_sum
from kerasish.ops.sorting import (argsort, average, in_top_k, median,
                                  quantile, searchsorted, sort, top_k)
from kerasish.ops.symbolic import keras_op


@keras_op
def nonzero(x):
    """Indices of the non-zero elements, one int32 tensor per axis.

    Example:
        >>> ops.nonzero(ops.convert_to_tensor([0, 3, 0, 4]))   # [tensor [1, 3]] (a list)
    """
    if x.__class__ is _KerasTensor:  # one index vector per axis, of unknown length
        return tuple(_KerasTensor((None,), "int32") for _ in range(x.ndim))
    return where(x)


from kerasish.ops.conv import fused_conv  # noqa: E402
from kerasish.ops.normalization import normalize_moments  # noqa: E402

_operators.install()
_operators.install_symbolic()
from kerasish.autodiff.op import Op  # noqa: E402 - the contract every op follows (docs/autodiff.md)
from kerasish.ops.fft import (extract_sequences, fft, fft2, ifft2, irfft,  # noqa: E402
                              istft, rfft, stft)
from kerasish.ops.nan_reductions import (nanargmax, nanargmin,  # noqa: E402
                                         nancumprod, nancumsum, nanmedian,
                                         nanpercentile, nanquantile)
from kerasish.ops.numpy_extras import (angle, argpartition, bartlett,  # noqa: E402
                                       blackman, cdist, corrcoef, correlate,
                                       fabs, fmax, fmin, geomspace, hamming,
                                       hanning, histogram, i0, isreal, kaiser,
                                       ldexp, nextafter, polar, view,
                                       vectorize, view_as_complex,
                                       view_as_real)
from kerasish.ops.patches import (depth_to_space, fold,  # noqa: E402
                                  space_to_depth, unfold)
from kerasish.ops.ctc import ctc_decode, ctc_loss  # noqa: E402
from kerasish.ops.einops import rearrange  # noqa: E402
from kerasish.ops.jvp import jvp  # noqa: E402

# Fused attention (replaces the per-op `dot_product_attention` of ops/attention.py).
from kerasish.ops.fused_attention import dot_product_attention, fused_attention  # noqa: E402,F811

# Decompositions (keras.ops.linalg), segment_prod and adaptive pooling (keras.ops.nn).
from kerasish.ops.decompositions import (cholesky, cholesky_inverse, eig,  # noqa: E402
                                         eigh, lstsq, lu_factor, matrix_rank,
                                         pinv, qr, solve_triangular, svd)
from kerasish.ops.adaptive_pooling import (adaptive_average_pool,  # noqa: E402
                                           adaptive_max_pool, segment_prod)

# Keras's sub-namespaces (keras.ops.numpy); imported last, they look names up here.
from kerasish.ops import numpy  # noqa: E402,F401
from kerasish.ops import image  # noqa: E402,F401  (keras.ops.image)
# registers the activations TensorFlow fuses after a Dense product (backend/keras_graph.py)
from kerasish.ops import graph_activations  # noqa: E402,F401
