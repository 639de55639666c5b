"""cupy implementations of the fused kernels (compiled on first use).

Imported only when a GPU device asks for a kernel, so kerasish never needs
cupy to import.
"""
import cupy
import cupyx

from kerasish.backend.kernels import numpy_kernels

_sigmoid = cupy.ElementwiseKernel(
    "T x", "T y", "y = x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x))",
    "kerasish_sigmoid")


def ordered_sum(x, axes, keepdims=False):
    """Sum over `axes` (the CPU kernel reproduces TensorFlow's CPU order; on the
    GPU, TensorFlow's order is its own, so this is cupy's sum)."""
    return cupy.sum(x, axis=axes, keepdims=keepdims)


def bias_gradient_sum(rows):
    """Column sums of a `(n, cols)` gradient (float16 adds in float32)."""
    if rows.dtype == cupy.float16:
        return rows.sum(axis=0, dtype=cupy.float32).astype(cupy.float16)
    return rows.sum(axis=0)


def ordered_mean(x, axes, keepdims=False):
    """Mean over `axes` (see `ordered_sum`)."""
    return cupy.mean(x, axis=axes, keepdims=keepdims)


def sigmoid(x):
    """Logistic function in one fused pass."""
    return _sigmoid(x)


def index_add(target, index, values):
    """`target[index] += values` with atomic adds for repeated indices."""
    cupyx.scatter_add(target, index, values)


# Optimizer updates ---------------------------------------------------------
# One fused ElementwiseKernel per update; same signatures, formulas and
# operation order as the numpy versions (which document them). Scalars may
# be Python numbers or 0-d cupy arrays of param's dtype.


def _scalar(x, dtype):
    """A kernel scalar: 0-d device arrays pass through, numbers get `dtype`."""
    return x if isinstance(x, cupy.ndarray) else dtype.type(x)


_weight_decay = cupy.ElementwiseKernel(
    "T wd, T lr", "T p", "p -= p * wd * lr", "kerasish_weight_decay")
_ema = cupy.ElementwiseKernel(
    "T p, T mom", "T a", "a = mom * a + (1 - mom) * p", "kerasish_ema")
_sgd = cupy.ElementwiseKernel(
    "T g, T lr", "T p", "p -= g * lr", "kerasish_sgd")
_sgd_momentum = cupy.ElementwiseKernel(
    "T g, T lr, T mu", "T p, T m",
    "T step = g * lr; m = m * mu - step; p += m", "kerasish_sgd_momentum")
_sgd_nesterov = cupy.ElementwiseKernel(
    "T g, T lr, T mu", "T p, T m",
    "T step = g * lr; m = m * mu - step; p += m * mu - step", "kerasish_sgd_nesterov")
_ADAM_MOMENTS = "m += (g - m) * c1; v += (g * g - v) * c2;"
_adam = cupy.ElementwiseKernel(
    "T g, T alpha, T c1, T c2, T eps", "T p, T m, T v",
    _ADAM_MOMENTS + "p -= m * alpha / (sqrt(v) + eps)", "kerasish_adam")
_amsgrad = cupy.ElementwiseKernel(
    "T g, T alpha, T c1, T c2, T eps", "T p, T m, T v, T vh",
    _ADAM_MOMENTS + "vh = vh > v ? vh : v; p -= m * alpha / (sqrt(vh) + eps)",
    "kerasish_amsgrad")
_RMS_INCREMENT = "T inc = g * lr / sqrt(denom);"
_rmsprop_variants = {}


def _rmsprop_kernel(centered, with_momentum):
    """The RMSprop ElementwiseKernel for one (centered, momentum) variant."""
    key = (centered, with_momentum)
    if key not in _rmsprop_variants:
        outs = ["T p", "T v"] + (["T mom"] if with_momentum else []) + (["T a"] if centered else [])
        body = "v = rho * v + c * (g * g);"
        if centered:
            body += "a = rho * a + c * g; T denom = v - a * a + eps;"
        else:
            body += "T denom = v + eps;"
        body += _RMS_INCREMENT
        body += "mom = mu * mom + inc; p -= mom" if with_momentum else "p -= inc"
        _rmsprop_variants[key] = cupy.ElementwiseKernel(
            "T g, T lr, T rho, T c, T eps, T mu", ", ".join(outs), body,
            f"kerasish_rmsprop_{int(centered)}{int(with_momentum)}")
    return _rmsprop_variants[key]


_adagrad = cupy.ElementwiseKernel(
    "T g, T lr, T eps", "T p, T acc",
    "acc += g * g; p -= g * lr / sqrt(acc + eps)", "kerasish_adagrad")
_adadelta = cupy.ElementwiseKernel(
    "T g, T lr, T rho, T c, T eps", "T p, T ag, T ad",
    "ag = rho * ag + c * (g * g);"
    "T delta = -(sqrt(ad + eps) * g / sqrt(ag + eps));"
    "ad = rho * ad + c * (delta * delta);"
    "p += delta * lr", "kerasish_adadelta")
_adamax = cupy.ElementwiseKernel(
    "T g, T lr, T c1, T b2, T eps, T b1p", "T p, T m, T u",
    "m += (g - m) * c1; T ub = b2 * u; T ag = g < 0 ? -g : g; u = ub > ag ? ub : ag;"
    "p -= m * lr / ((1 - b1p) * (u + eps))", "kerasish_adamax")
_nadam = cupy.ElementwiseKernel(
    "T g, T lr, T b1, T b2, T eps, T ut, T ut1, T upt, T upt1, T b2p", "T p, T m, T v",
    "m += (g - m) * (1 - b1); v += (g * g - v) * (1 - b2);"
    "T m_hat = ut1 * m / (1 - upt1) + (1 - ut) * g / (1 - upt);"
    "T v_hat = v / (1 - b2p);"
    "p -= m_hat * lr / (sqrt(v_hat) + eps)", "kerasish_nadam")
_lion = cupy.ElementwiseKernel(
    "T g, T lr, T b1, T b2", "T p, T m",
    "T c = m * b1 + g * (1 - b1);"
    "T s = c > 0 ? (T)1 : (c < 0 ? (T)-1 : c);"
    "p -= s * lr; m = m * b2 + g * (1 - b2)", "kerasish_lion")


def weight_decay_update(param, weight_decay, lr):
    """Decoupled weight decay in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    _weight_decay(_scalar(weight_decay, dt), _scalar(lr, dt), param)


def ema_update(average, param, momentum):
    """Moving average of weights in one fused pass (see numpy_kernels)."""
    _ema(param, _scalar(momentum, average.dtype), average)


def chunked_update(update, param, args):
    """`update(param, *args)` in one call (a fused kernel needs no slicing on the GPU)."""
    update(param, *args)


def sgd_update(param, grad, momentum_buf, lr, momentum=0.0, nesterov=False):
    """SGD step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    if momentum_buf is None:
        _sgd(grad, _scalar(lr, dt), param)
        return
    kernel = _sgd_nesterov if nesterov else _sgd_momentum
    kernel(grad, _scalar(lr, dt), _scalar(momentum, dt), param, momentum_buf)


def adam_update(param, grad, m, v, alpha, beta_1, beta_2, epsilon, v_hat=None):
    """Adam / AMSGrad step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    args = (grad, _scalar(alpha, dt), dt.type(1.0 - beta_1),
            dt.type(1.0 - beta_2), _scalar(epsilon, dt), param, m, v)
    if v_hat is None:
        _adam(*args)
    else:
        _amsgrad(*args, v_hat)


def rmsprop_update(param, grad, velocity, lr, rho, epsilon,
                   momentum_buf=None, momentum=0.0, average_grad=None):
    """RMSprop step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    kernel = _rmsprop_kernel(average_grad is not None, momentum_buf is not None)
    outs = [param, velocity] + [a for a in (momentum_buf, average_grad) if a is not None]
    kernel(grad, _scalar(lr, dt), dt.type(rho), dt.type(1.0 - rho),
           dt.type(epsilon), dt.type(momentum), *outs)


def adagrad_update(param, grad, accumulator, lr, epsilon):
    """Adagrad step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    _adagrad(grad, _scalar(lr, dt), dt.type(epsilon), param, accumulator)


def adadelta_update(param, grad, accumulated_grad, accumulated_delta, lr, rho, epsilon):
    """Adadelta step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    _adadelta(grad, _scalar(lr, dt), dt.type(rho), dt.type(1.0 - rho),
              dt.type(epsilon), param, accumulated_grad, accumulated_delta)


def adamax_update(param, grad, m, u, lr, beta_1, beta_2, epsilon, beta_1_power):
    """Adamax step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    _adamax(grad, _scalar(lr, dt), dt.type(1.0 - beta_1), dt.type(beta_2),
            dt.type(epsilon), _scalar(beta_1_power, dt), param, m, u)


def nadam_update(param, grad, m, v, lr, beta_1, beta_2, epsilon,
                 u_t, u_t_1, u_product_t, u_product_t_1, beta_2_power):
    """Nadam step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    scalars = [_scalar(s, dt) for s in (lr, beta_1, beta_2, epsilon, u_t, u_t_1,
                                         u_product_t, u_product_t_1, beta_2_power)]
    _nadam(grad, *scalars, param, m, v)


def lion_update(param, grad, m, lr, beta_1, beta_2):
    """Lion step in one fused pass (see numpy_kernels)."""
    dt = param.dtype
    _lion(grad, _scalar(lr, dt), dt.type(beta_1), dt.type(beta_2), param, m)


# Convolution: im2col and input gradient (2-D ElementwiseKernels + cuBLAS) ---
# Same contracts as numpy_kernels.conv_im2col / conv_input_grad.
# 1-D convolutions run as 2-D ones with a unit height; other ranks use the
# numpy code, which is written against xp and runs on cupy arrays.
_IM2COL_PARAMS = ("raw T x, int32 h, int32 w, int32 c, int32 oh, int32 ow, int32 groups, "
                  "int32 kh, int32 kw, int32 cg, int32 sy, int32 sx, int32 dy, int32 dx")
_im2col_2d = cupy.ElementwiseKernel(
    _IM2COL_PARAMS, "T col",
    """
    long long t = i;
    const int ci = t % cg; t /= cg;
    const int kj = t % kw; t /= kw;
    const int ki = t % kh; t /= kh;
    const int gi = t % groups; t /= groups;
    const int oj = t % ow; t /= ow;
    const int oi = t % oh; t /= oh;
    const long long y = oi * sy + ki * dy;
    const long long xx = oj * sx + kj * dx;
    col = x[((t * h + y) * w + xx) * c + gi * cg + ci];
    """, "kerasish_im2col_2d")
_col2im_2d = cupy.ElementwiseKernel(
    _IM2COL_PARAMS.replace("raw T x", "raw T col"), "T img",
    """
    long long t = i;
    const int cc = t % c; t /= c;
    const int xx = t % w; t /= w;
    const int y = t % h; t /= h;
    const int gi = cc / cg, ci = cc % cg;
    T acc = 0;
    for (int ki = 0; ki < kh; ++ki) {
        const int ys = y - ki * dy;
        if (ys < 0 || ys % sy != 0 || ys / sy >= oh) continue;
        for (int kj = 0; kj < kw; ++kj) {
            const int xs = xx - kj * dx;
            if (xs < 0 || xs % sx != 0 || xs / sx >= ow) continue;
            acc += col[(((((t * oh + ys / sy) * ow + xs / sx) * groups + gi) * kh + ki)
                        * kw + kj) * cg + ci];
        }
    }
    img = acc;
    """, "kerasish_col2im_2d")


def split_matmul(a, b, out=None, kind=None):
    """`a @ b` (one cuBLAS call; `kind` is for the CPU's order: see numpy_kernels.split_matmul)."""
    return cupy.matmul(a, b, out=out)


def sequence_pipeline(run):
    """None: on the GPU a recurrent op queues all its work on the stream itself."""
    return None


# A GPU kernel wants its GEMMs as large as memory allows: the batch is only
# split when one chunk's scratch arrays would pass this size; chunks run in order.
CHUNK_BYTES = 256 * 2 ** 20


def batch_chunks(n, per_item_bytes):
    """The batch ranges a chunked kernel is computed in on this device.

    Args:
        n: batch size.
        per_item_bytes: bytes of one batch item's scratch arrays.

    Returns:
        list of (start, stop) ranges covering range(n).
    """
    return numpy_kernels._split_batch(n, per_item_bytes, CHUNK_BYTES)


def run_batch_chunks(run, chunks):
    """`[run(start, stop) for (start, stop) in chunks]` (one stream: in order).

    Args:
        run: callable computing one chunk.
        chunks: list of (start, stop) ranges.

    Returns:
        list: the results in chunk order.
    """
    return [run(start, stop) for start, stop in chunks]


def _as_2d(kernel_spatial, strides, dilation):
    if len(kernel_spatial) == 1:
        return (1,) + tuple(kernel_spatial), (1,) + tuple(strides), (1,) + tuple(dilation)
    return tuple(kernel_spatial), tuple(strides), tuple(dilation)


def conv_im2col(x, kernel_spatial, strides, dilation, out_spatial, groups=1):
    """Convolution patches in one kernel launch (see numpy_kernels.conv_im2col)."""
    if len(kernel_spatial) not in (1, 2):
        return numpy_kernels.conv_im2col(x, kernel_spatial, strides, dilation, out_spatial, groups)
    (kh, kw), (sy, sx), (dy, dx) = _as_2d(kernel_spatial, strides, dilation)
    oh, ow = (1,) + tuple(out_spatial) if len(out_spatial) == 1 else tuple(out_spatial)
    n, c = x.shape[0], x.shape[-1]
    h, w = (1, x.shape[1]) if x.ndim == 3 else x.shape[1:3]
    cg = c // groups
    cols = cupy.empty((n, *out_spatial, groups, *kernel_spatial, cg), dtype=x.dtype)
    _im2col_2d(cupy.ascontiguousarray(x), h, w, c, oh, ow, groups, kh, kw, cg,
               sy, sx, dy, dx, cols)
    return cols


def conv_input_grad(gy, w, padded_shape, kernel_spatial, strides, dilation, groups=1):
    """Input gradient as one cuBLAS GEMM (gy @ W^T) and a col2im kernel that
    gathers, per input element, the columns that read it (no atomics); see
    numpy_kernels.conv_input_grad for the contract."""
    nd = len(kernel_spatial)
    if nd not in (1, 2):
        return numpy_kernels.conv_input_grad(gy, w, padded_shape, kernel_spatial, strides,
                                             dilation, groups)
    f, c = w.shape[-1], padded_shape[-1]
    cg, fg = c // groups, f // groups
    m = gy.size // f
    gy2 = gy.reshape(m, f)
    if groups == 1:
        cols = gy2 @ w.reshape(-1, f).T
    else:
        kernels = w.reshape(-1, groups, fg).transpose(1, 2, 0)           # (G, F/G, K*Cg)
        cols = cupy.matmul(gy2.reshape(m, groups, fg).transpose(1, 0, 2), kernels)
        cols = cols.transpose(1, 0, 2)
    (kh, kw), (sy, sx), (dy, dx) = _as_2d(kernel_spatial, strides, dilation)
    out_spatial = gy.shape[1:1 + nd]
    oh, ow = (1,) + tuple(out_spatial) if nd == 1 else tuple(out_spatial)
    h, w_ = (1, padded_shape[1]) if nd == 1 else tuple(padded_shape[1:3])
    img = cupy.empty(tuple(padded_shape), dtype=cols.dtype)
    _col2im_2d(cupy.ascontiguousarray(cols), h, w_, c, oh, ow, groups, kh, kw, cg,
               sy, sx, dy, dx, img)
    return img
