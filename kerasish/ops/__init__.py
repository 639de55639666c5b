"""kerasish.ops: differentiable functions with Keras 3 `keras.ops` names.

Every function accepts Tensors, Variables, numpy arrays and Python numbers
and returns Tensors on the inputs' device.
"""
from kerasish.ops import _operators
from kerasish.ops.core import (cast, convert_to_numpy, convert_to_tensor,
                               dtype, is_tensor, ndim, shape, stop_gradient)
from kerasish.ops.creation import (arange, empty, eye, full, full_like,
                                   identity, linspace, ones, ones_like, tri,
                                   zeros, zeros_like)
from kerasish.ops.elementwise import (abs, absolute, add, arccos, arcsin,
                                      arctan, ceil, clip, cos, cosh, divide,
                                      equal, erf, exp, expm1, floor,
                                      floor_divide, greater, greater_equal,
                                      isfinite, isinf, isnan, less, less_equal,
                                      log, log1p, log2, log10, logical_and,
                                      logical_not, logical_or, logical_xor,
                                      maximum, minimum, mod, multiply,
                                      nan_to_num, negative, not_equal, power,
                                      reciprocal, round, rsqrt, sign, sin,
                                      sinh, sqrt, square, subtract, tan, tanh,
                                      true_divide, where)
from kerasish.ops.linalg import dot, einsum, matmul, norm, outer, tensordot
from kerasish.ops.nn import (binary_crossentropy, categorical_crossentropy,
                             dense, elu, gelu, hard_sigmoid, hard_silu,
                             hard_swish, leaky_relu, log_sigmoid, log_softmax,
                             mish, moments, normalize, relu, relu6, selu,
                             sigmoid, silu, softmax, softplus, softsign,
                             sparse_categorical_crossentropy, swish)
from kerasish.ops.reduction import (all, amax, amin, any, argmax, argmin,
                                    count_nonzero, cumprod, cumsum, logsumexp,
                                    max, mean, min, prod, std, sum, var)
from kerasish.ops.manipulation import (broadcast_to, concatenate, expand_dims, flatten,
                                flip, moveaxis, one_hot, pad, ravel, repeat,
                                reshape, roll, scatter, size, slice, split,
                                squeeze, stack, swapaxes, take,
                                take_along_axis, tile, transpose, unstack)

_operators.install()
