"""Convolution ops: conv, depthwise_conv, separable_conv, conv_transpose.

Every convolution is computed in channels_last layout `(N, *spatial, C)`
for any number of spatial axes (channels_first inputs are transposed in and
out). The algorithm is im2col + one GEMM:

- `conv_im2col` (a backend kernel: strided numpy copies on CPU, one CUDA
  kernel on GPU) gathers the patches into an `(N*OH*OW, kh*kw*C)` matrix with
  one copy per kernel offset -- never a loop over pixels or batch items;
- one GEMM with the `(kh*kw*C, filters)` kernel gives the output directly in
  channels_last order (BLAS on CPU, cuBLAS on GPU);
- 1x1 convolutions skip im2col (a plain GEMM on the input or a strided view);
- grouped convolutions lay the columns out group-major, so they are one
  batched GEMM; depthwise convolution is the grouped case groups == C.

Why im2col and not `sliding_window_view` + einsum: measured on the MNIST
convnet shapes (batch 128, channels_last, 2-core CPU, OpenBLAS) im2col +
GEMM took 1.5 ms (28x28x1 -> 32) and 15 ms (13x13x32 -> 64), against 2.6 ms
and 42 ms for `einsum(optimize=True)` on the window view and 6.6 / 62 ms
for `tensordot` on it: with channels innermost the patch copy is a few
contiguous block copies, while the view forces einsum/tensordot into a
generic strided copy. im2col is therefore used for every shape.

The batch is processed in chunks whose size the device picks
(`batch_chunks` kernel): on CPU a chunk's column buffer fits the caches,
so the patch copy and the GEMM reading it stay out of DRAM (2-3x faster than
one whole-batch buffer on the MNIST convnet), the chunks are spread over the
CPU worker threads (`run_batch_chunks`: one single-threaded BLAS call per
chunk and thread; the thread count follows the BLAS thread setting), and the
bias add and a fused relu run on each chunk's output while it is in cache;
on GPU chunks only bound memory and run in order.

Backward: one `ConvGrad` op computes, chunk by chunk in the same threaded
pass, the relu mask `gz = g * (out > 0)`, the input gradient
`gx = col2im(gz @ W^T)` (the `conv_input_grad` kernel: on CPU one GEMM per
kernel offset into a contiguous buffer, then one strided add into the input
window; on GPU one cuBLAS GEMM and a col2im kernel), the filter gradient
`gW = cols^T @ gz` (on the forward's columns when the batch was one chunk,
otherwise on columns rebuilt per chunk) and the bias gradient `ones @ gz`;
partial filter and bias gradients are summed in chunk order, so the numbers
do not depend on the thread count. The maps -- convolution, its input
gradient and its filter gradient -- are also Ops whose backwards are written
in terms of one another (`ConvGrad`'s backward uses them), so gradients of
any order work and each formula exists once. Without an outer tape they run
on raw arrays and record nothing. `conv_transpose` is the input-gradient op.
"""
import math

import numpy as np

from kerasish.autodiff import recording, tape as _tape
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.backend import config
from kerasish.backend.kernels import onednn_gemm, onednn_math
from kerasish.ops import core, manipulation as shape_ops
from kerasish.ops.fused import fused_activation
from kerasish.ops.symbolic import keras_op

# Argument checking -----------------------------------------------------------
def standardize_tuple(value, rank, name, op):
    """`value` (an int or a sequence of `rank` ints) as a tuple of positive ints."""
    if isinstance(value, (int, np.integer)):
        value = (int(value),) * rank
    try:
        value = tuple(int(v) for v in value)
    except TypeError:
        raise ValueError(f"{op}: `{name}` must be an int or a tuple of {rank} ints. "
                         f"Received: {name}={value!r}") from None
    if len(value) != rank or any(v <= 0 for v in value):
        raise ValueError(f"{op}: `{name}` must be a positive int or a tuple of {rank} "
                         f"positive ints. Received: {name}={value}")
    return value


def standardize_data_format(data_format, op):
    """"channels_last"/"channels_first" (None: the configured image_data_format)."""
    value = config.image_data_format() if data_format is None else str(data_format).lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"{op}: unknown data_format {data_format!r}; expected "
                         "'channels_last' or 'channels_first'.")
    return value


def standardize_padding(padding, op, allow_causal=False):
    """"valid"/"same" (and "causal" where allowed), case-insensitive."""
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    value = str(padding).lower()
    if value not in allowed:
        raise ValueError(f"{op}: unknown padding {padding!r}; expected one of {allowed}.")
    return value


def same_padding(size, kernel, stride):
    """TensorFlow's SAME padding (before, after) for one spatial axis."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def conv_output_length(size, kernel, stride, padding, dilation=1):
    """Output length of a convolution along one axis (None stays None)."""
    if size is None:
        return None
    k_eff = dilation * (kernel - 1) + 1
    if padding == "same":
        return -(-size // stride)
    if padding == "causal":
        return (size - 1) // stride + 1
    return (size - k_eff) // stride + 1


def conv_transpose_output_length(size, kernel, stride, padding, output_padding=None, dilation=1):
    """Output length of a transposed convolution along one axis (Keras's rule)."""
    if size is None:
        return None
    k_eff = dilation * (kernel - 1) + 1
    if output_padding is None:
        return size * stride + max(k_eff - stride, 0) if padding == "valid" else size * stride
    pad = k_eff // 2 if padding == "same" else 0
    return (size - 1) * stride + k_eff - 2 * pad + output_padding


class _Geometry:
    """Sizes of one channels_last convolution: x (N, *in, C) * w (*kernel, C/groups, F)."""

    __slots__ = ("kernel", "strides", "dilation", "pads", "groups", "in_spatial",
                 "out_spatial", "pointwise")

    def __init__(self, kernel, strides, dilation, pads, groups, in_spatial, out_spatial):
        self.kernel, self.strides, self.dilation = kernel, strides, dilation
        self.pads, self.groups = pads, groups
        self.in_spatial, self.out_spatial = in_spatial, out_spatial
        self.pointwise = all(k == 1 for k in kernel) and not any(lo or hi for lo, hi in pads)

    def padded_shape(self, n, channels):
        return (n,) + tuple(s + lo + hi for s, (lo, hi) in zip(self.in_spatial, self.pads)) \
            + (channels,)

    def crop(self):
        return (slice(None),) + tuple(slice(lo, lo + s) for s, (lo, _) in
                                      zip(self.in_spatial, self.pads)) + (slice(None),)


def _conv_geometry(op, x_shape, w_shape, strides, padding, dilation, groups):
    """Geometry of conv(x, w) with Keras padding rules; errors name the shapes."""
    in_spatial, kernel = tuple(x_shape[1:-1]), tuple(w_shape[:-2])
    k_eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if padding == "same":
        pads = tuple(same_padding(s, k, st) for s, k, st in zip(in_spatial, k_eff, strides))
    else:
        pads = tuple((0, 0) for _ in in_spatial)
    padded = [s + lo + hi for s, (lo, hi) in zip(in_spatial, pads)]
    if any(p < k for p, k in zip(padded, k_eff)):
        raise ValueError(
            f"{op}: the kernel (spatial size {kernel}, {tuple(k_eff)} with dilation "
            f"{tuple(dilation)}) is larger than the padded input (spatial size "
            f"{tuple(padded)}). Received inputs of shape {tuple(x_shape)} (channels_last) "
            f"and a kernel of shape {tuple(w_shape)} with padding={padding!r}.")
    out = tuple((p - k) // s + 1 for p, k, s in zip(padded, k_eff, strides))
    return _Geometry(kernel, strides, dilation, pads, groups, in_spatial, out)


# Raw-array computation (channels_last) ----------------------------------------
def _chunks(dev, n, per_item_bytes):
    """(start, stop) batch ranges of the size the device's kernel picks."""
    return dev.kernel("batch_chunks")(n, per_item_bytes)


def _run_chunks(dev, run, chunks):
    """`[run(b0, b1) for each chunk]`, on the device's threads (CPU) or in order."""
    return dev.kernel("run_batch_chunks")(run, chunks)


def _strided(geom):
    """The input positions a 1x1 strided convolution reads."""
    return (slice(None),) + tuple(slice(0, s * (o - 1) + 1, s)
                                  for s, o in zip(geom.strides, geom.out_spatial))


def _columns(dev, x, geom):
    """im2col of an unpadded channels_last array: (N, *out, groups, *kernel, C/groups)."""
    n, c = x.shape[0], x.shape[-1]
    shape = (n,) + geom.out_spatial + (geom.groups,) + geom.kernel + (c // geom.groups,)
    if geom.pointwise:
        if any(s > 1 for s in geom.strides):
            x = dev.xp.ascontiguousarray(x[_strided(geom)])
        return x.reshape(shape)
    if any(lo or hi for lo, hi in geom.pads):
        x = dev.xp.pad(x, ((0, 0),) + geom.pads + ((0, 0),))
    return dev.kernel("conv_im2col")(x, geom.kernel, geom.strides, geom.dilation,
                                     geom.out_spatial, geom.groups)


def _grouped_kernel(w, groups):
    """(*kernel, Cg, F) -> (groups, kernel_size * Cg, F / groups)."""
    kg = math.prod(w.shape[:-1])
    fg = w.shape[-1] // groups
    return w.reshape(kg, groups, fg).transpose(1, 0, 2)


def _per_item_bytes(geom, channels, itemsize):
    """Bytes of one batch item's column buffer: what the chunk size is chosen from."""
    return math.prod(geom.out_spatial) * math.prod(geom.kernel) * channels * itemsize


def _forward_raw(dev, x, w, geom, keep_columns, bias=None, relu=False):
    """y = conv(x, w) [+ bias] [then relu] and (if kept and built in one piece) the
    column buffer. Bias and relu are applied chunk by chunk, while the chunk's
    output is still in cache (the same float operations as on the whole array)."""
    n, f = x.shape[0], w.shape[-1]
    xp = dev.xp
    chunks = _chunks(dev, n, _per_item_bytes(geom, x.shape[-1], x.itemsize))
    row = _bias_row(xp, bias, geom.out_spatial, f)
    one_channel = _one_channel_taps(x, w, geom)
    if len(chunks) == 1:
        cols = _columns(dev, x, geom)
        y = (_taps_in_onednn_order(dev, cols, w) if one_channel else
             _gemm(dev, cols, w, geom.groups)).reshape((n,) + geom.out_spatial + (f,))
        _bias_relu(xp, y, bias, row, relu)
        return y, (cols if keep_columns else None)
    y = xp.empty((n,) + geom.out_spatial + (f,), dtype=np.result_type(x.dtype, w.dtype))

    def run(b0, b1):
        cols = _columns(dev, x[b0:b1], geom)
        part = y[b0:b1]
        if one_channel:
            part[...] = _taps_in_onednn_order(dev, cols, w).reshape(part.shape)
        elif geom.groups == 1:  # the GEMM writes straight into the output rows
            m = math.prod(cols.shape[:-2 - len(geom.kernel)])
            xp.matmul(cols.reshape(m, -1), w.reshape(-1, f), out=part.reshape(m, f))
        else:
            part[...] = _gemm(dev, cols, w, geom.groups).reshape(part.shape)
        _bias_relu(xp, part, bias, row, relu)

    _run_chunks(dev, run, chunks)
    return y, None


def _one_channel_taps(x, w, geom):
    """Whether this is a float32 2-D convolution of one input channel that no tape records,
    which TensorFlow's oneDNN kernel sums tap by tap down the kernel's columns (see
    `_taps_in_onednn_order`); for a single image, and in a training step, TensorFlow's
    forward adds the taps in the im2col order (a Keras fit's losses match with it), which
    stays."""
    return (len(geom.kernel) == 2 and geom.groups == 1 and x.shape[-1] == 1
            and x.shape[0] >= 2   # one image: oneDNN's other kernel adds in the im2col order
            and x.dtype == np.float32 and w.dtype == np.float32
            and math.prod(geom.kernel) <= onednn_gemm.BLOCK_K and not _tape._active)


def _taps_in_onednn_order(dev, cols, w):
    """cols @ kernel for a one-channel 2-D convolution as oneDNN sums it: one chain of
    fused multiply-adds per output over the taps column by column (kw outer, kh inner;
    found by probing TensorFlow 2.21), through the ordered product kernel."""
    kh, kw, _, f = w.shape
    m = cols.size // (kh * kw)
    taps = cols.reshape(m, kh, kw).transpose(0, 2, 1).reshape(m, kw * kh)
    kernel = w.reshape(kh, kw, f).transpose(1, 0, 2).reshape(kw * kh, f)
    return dev.kernel("split_matmul")(taps, kernel, kind="nn")


def _gemm(dev, cols, w, groups):
    """(M, groups * Kg) columns times the kernel -> (M, F)."""
    m = math.prod(cols.shape[:-2 - len(w.shape[:-2])])
    if groups == 1:
        return cols.reshape(m, -1) @ w.reshape(-1, w.shape[-1])
    colsg = cols.reshape(m, groups, -1).transpose(1, 0, 2)
    y = dev.xp.matmul(colsg, _grouped_kernel(w, groups))        # (G, M, F/G)
    return y.transpose(1, 0, 2).reshape(m, w.shape[-1])


def _filter_grad_raw(dev, x, gy, geom, w_shape):
    """gW = cols(x)^T @ gy, summed over batch chunks (columns rebuilt per chunk)."""
    return _sum_in_order(_run_chunks(dev, lambda b0, b1: _filter_gemm(
        dev, _columns(dev, x[b0:b1], geom), gy[b0:b1], geom.groups, w_shape),
        _chunks(dev, x.shape[0], _per_item_bytes(geom, x.shape[-1], x.itemsize))))


def _filter_gemm(dev, cols, gy, groups, w_shape):
    f = w_shape[-1]
    gy2 = gy.reshape(-1, f)
    m = gy2.shape[0]
    if groups == 1:
        return (cols.reshape(m, -1).T @ gy2).reshape(w_shape)
    colsg = cols.reshape(m, groups, -1).transpose(1, 2, 0)       # (G, Kg, M)
    gyg = gy2.reshape(m, groups, f // groups).transpose(1, 0, 2)  # (G, M, F/G)
    gw = dev.xp.matmul(colsg, gyg)                                # (G, Kg, F/G)
    return gw.transpose(1, 0, 2).reshape(w_shape)


def _input_grad_raw(dev, gy, w, geom, x_shape):
    """gx = col2im(gy @ W^T), cropped to the unpadded input."""
    n, c = x_shape[0], x_shape[-1]
    chunks = _chunks(dev, n, _per_item_bytes(geom, c, gy.itemsize))
    if len(chunks) == 1:
        return _input_grad_chunk(dev, gy, w, geom, x_shape)
    gx = dev.xp.empty(x_shape, dtype=np.result_type(gy.dtype, w.dtype))

    def run(b0, b1):
        gx[b0:b1] = _input_grad_chunk(dev, gy[b0:b1], w, geom, (b1 - b0,) + tuple(x_shape[1:]))

    _run_chunks(dev, run, chunks)
    return gx


def _input_grad_chunk(dev, gy, w, geom, x_shape):
    n, c = x_shape[0], x_shape[-1]
    if not geom.pointwise:
        padded = dev.kernel("conv_input_grad")(gy, w, geom.padded_shape(n, c), geom.kernel,
                                               geom.strides, geom.dilation, geom.groups)
        return padded[geom.crop()] if any(lo or hi for lo, hi in geom.pads) else padded
    f = w.shape[-1]
    gy2 = gy.reshape(-1, f)
    if geom.groups == 1:
        gx = gy2 @ w.reshape(-1, f).T
    else:
        gyg = gy2.reshape(-1, geom.groups, f // geom.groups).transpose(1, 0, 2)
        gx = dev.xp.matmul(gyg, _grouped_kernel(w, geom.groups).transpose(0, 2, 1))
        gx = gx.transpose(1, 0, 2)
    gx = gx.reshape((n,) + geom.out_spatial + (c,))
    if not any(s > 1 for s in geom.strides):
        return gx
    full = dev.xp.zeros(x_shape, dtype=gx.dtype)
    full[_strided(geom)] = gx
    return full


def _backward_raw(dev, g, x, w, out, geom, need_x, need_w, need_b, cols=None):
    """(gx, gw, gb) of `conv(x, w) [+ b] [relu]` from its output gradient `g`, in
    one pass over batch chunks (None for those not needed).

    Per chunk: the relu mask `gz = g * (out > 0)` (when `out` is given), the
    input gradient, the chunk's filter-gradient GEMM (on the forward's columns
    `cols` when given, else columns rebuilt from the chunk) and its bias sum,
    all while the chunk is in cache; the chunks run on the device's threads.
    The partial filter and bias gradients are summed in chunk order, so the
    numbers do not depend on the thread count.
    """
    xp = dev.xp
    n, f = x.shape[0], w.shape[-1]
    chunks = _chunks(dev, n, _per_item_bytes(geom, x.shape[-1], x.itemsize))
    gx = xp.empty(x.shape, dtype=np.result_type(g.dtype, w.dtype)) \
        if need_x and len(chunks) > 1 else None

    def run(b0, b1):
        gz = g[b0:b1] if out is None else g[b0:b1] * (out[b0:b1] > 0)
        gx_part = gw_part = gb_part = None
        if need_x:
            gx_part = _input_grad_chunk(dev, gz, w, geom, (b1 - b0,) + tuple(x.shape[1:]))
            if gx is not None:
                gx[b0:b1] = gx_part
                gx_part = None
        if low:  # partial sums stay float32, as TensorFlow's float16 sums
            gz = gz.astype(np.float32)
        if need_w:
            c = cols[b0:b1] if cols is not None else _columns(dev, x[b0:b1], geom)
            gw_part = _filter_gemm(dev, c.astype(np.float32) if low else c, gz,
                                   geom.groups, w.shape)
        if need_b and not bf16:
            gz2 = gz.reshape(-1, f)
            gb_part = xp.ones(gz2.shape[0], gz.dtype) @ gz2
        return gx_part, gw_part, gb_part

    low = str(g.dtype) in ("float16", "bfloat16")
    bf16 = str(g.dtype) == "bfloat16"
    parts = _run_chunks(dev, run, chunks)

    def total(i):
        result = _sum_in_order([p[i] for p in parts])
        return result.astype(g.dtype) if low and result.dtype != g.dtype else result
    gb = None
    if need_b and bf16:  # TensorFlow's bfloat16 BiasAddGrad adds row after row in bfloat16
        gb = (g if out is None else g * (out > 0)).reshape(-1, f).sum(axis=0)
    elif need_b:
        gb = total(2)
    gx_full = gx if gx is not None else parts[0][0]
    if low and gx_full is not None and gx_full.dtype != x.dtype:  # numpy: bfloat16 -> float32
        gx_full = gx_full.astype(x.dtype)
    return gx_full, total(1) if need_w else None, gb


def _sum_in_order(parts):
    total = parts[0]
    for part in parts[1:]:  # in chunk order: the same numbers on any thread count
        total = total + part
    return total


# Differentiable primitives (channels_last, geometry fixed) ----------------------
def _bias_row(xp, bias, out_spatial, filters):
    """The bias tiled along the last spatial axis (None without a bias).

    Broadcasting a short (filters,) vector makes numpy run its inner loop
    `filters` elements at a time; tiling it along the last spatial axis gives
    inner loops ~last-axis times longer (about 2x faster for 32 filters).
    """
    if bias is None:
        return None
    return xp.tile(bias, out_spatial[-1] if out_spatial else 1)


def _bias_relu(xp, y, bias, row, relu):
    """y += bias, then relu, in place (`row` from `_bias_row`)."""
    if bias is not None:
        if y.flags.c_contiguous and y.ndim > 2 and row.shape[0] == y.shape[-2] * y.shape[-1]:
            y.reshape(-1, row.shape[0])[...] += row
        else:  # e.g. a grouped GEMM's transposed result: reshape would copy
            y += bias
    if relu:
        xp.maximum(y, 0, out=y)


class Conv(Op):
    """conv(x, w) [+ b] [then relu] on channels_last arrays with a fixed geometry.

    Inputs (x, w[, b]). While a tape records, the forward's column buffer is
    kept (on the instance, one instance per call) and saved for the filter
    gradient. Backward: `ConvGrad` (all gradients in one pass over batch
    chunks), whose own backward is `Conv`, `ConvInputGrad`, `ConvFilterGrad`
    and `ReluMask`, Ops whose backwards are convolutions again.
    """

    def __init__(self, geom, relu=False, name="conv"):
        self.geom, self.relu, self.name = geom, relu, name
        self._cols = None

    def forward(self, device, x, w, b=None):
        y, self._cols = _forward_raw(device, x, w, self.geom, bool(_tape._active), b,
                                     self.relu)
        return y

    def save(self, inputs, outputs):
        cols, self._cols = self._cols, None
        return inputs[0], inputs[1], outputs[0] if self.relu else None, len(inputs) > 2, cols

    def backward(self, saved, needs, g):
        x, w, out, has_bias, cols = saved
        wanted = (needs[0], needs[1], has_bias and needs[2])
        grads = [None, None] + ([None] if has_bias else [])
        if not any(wanted):
            return grads
        op = ConvGrad(self.geom, self.relu, wanted, cols)
        results = op(g, x, w, out) if self.relu else op(g, x, w)
        results = iter(results if type(results) is tuple else (results,))
        for i, want in enumerate(wanted):
            if want:
                grads[i] = next(results)
        return grads


class ConvGrad(Op):
    """The gradients of `Conv` in one pass: (g, x, w[, out]) -> the wanted ones of
    (gx, gw, gb), where gz = g * (out > 0) with a fused relu (else g),
    gx = ConvInputGrad(gz, w), gw = ConvFilterGrad(x, gz) and gb = gz summed over all
    but the last axis.

    Its backward is written with those ops again (each map's adjoint), so
    gradients of any order work.
    """

    name = "conv_grad"

    def __init__(self, geom, relu, wanted, cols=None):
        self.geom, self.relu, self.wanted, self.cols = geom, relu, tuple(wanted), cols

    def forward(self, device, g, x, w, out=None):
        cols, self.cols = self.cols, None   # the forward's columns serve one use
        grads = _backward_raw(device, g, x, w, out, self.geom, *self.wanted, cols=cols)
        grads = tuple(a for a, want in zip(grads, self.wanted) if want)
        return grads if len(grads) > 1 else grads[0]

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, grads):
        g, x, w = saved[:3]
        out = saved[3] if self.relu else None
        grads = iter(grads if sum(self.wanted) > 1 else [grads])
        ggx, ggw, ggb = (next(grads) if want else None for want in self.wanted)
        gz = _RELU_MASK(g, out) if self.relu else g
        terms = []  # the adjoint of gz -> (gx, gw, gb), applied to (ggx, ggw, ggb)
        if ggx is not None:
            terms.append(Conv(self.geom)(ggx, w))
        if ggw is not None:
            terms.append(Conv(self.geom)(x, ggw))
        if ggb is not None:
            terms.append(shape_ops.broadcast_to(ggb, g.shape))
        ggz = terms[0]
        for term in terms[1:]:
            ggz = ggz + term
        result = [(_RELU_MASK(ggz, out) if self.relu else ggz) if needs[0] else None,
                  ConvInputGrad(self.geom, x.shape)(gz, ggw)
                  if ggw is not None and needs[1] else None,
                  ConvFilterGrad(self.geom, w.shape)(ggx, gz)
                  if ggx is not None and needs[2] else None]
        return result + ([None] if self.relu else [])


class ConvInputGrad(Op):
    """The adjoint of conv(., w): col2im(gy @ W^T), shape `x_shape`. Inputs (gy, w)."""

    name = "conv_input_grad"

    def __init__(self, geom, x_shape, name="conv_input_grad"):
        self.geom, self.x_shape, self.name = geom, tuple(x_shape), name

    def forward(self, device, gy, w):
        return _input_grad_raw(device, gy, w, self.geom, self.x_shape)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, g):
        gy, w = saved
        return (Conv(self.geom)(g, w) if needs[0] else None,
                ConvFilterGrad(self.geom, w.shape)(g, gy) if needs[1] else None)


class ConvFilterGrad(Op):
    """The filter gradient of conv: cols(x)^T @ gy, shape `w_shape`. Inputs (x, gy)."""

    name = "conv_filter_grad"

    def __init__(self, geom, w_shape):
        self.geom, self.w_shape = geom, tuple(w_shape)

    def forward(self, device, x, gy):
        return _filter_grad_raw(device, x, gy, self.geom, self.w_shape)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, g):
        x, gy = saved
        return (ConvInputGrad(self.geom, x.shape)(gy, g) if needs[0] else None,
                Conv(self.geom)(x, g) if needs[1] else None)


class ReluMask(Op):
    """`g * (out > 0)`: the gradient through a fused relu. Inputs (g, out)."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "relu_mask"

    def forward(self, device, g, out):
        return g * (out > 0)

    def save(self, inputs, outputs):
        return (inputs[1],)

    def backward(self, saved, needs, gg):
        return self(gg, saved[0]), None


_RELU_MASK = ReluMask()


def _conv_channels_last(x, w, geom, bias=None, relu=False, name="conv"):
    """conv(x, w) [+ bias] [then relu] on channels_last tensors, recorded as one op."""
    args = (x, w) if bias is None else (x, w, bias)
    _, tensors, _ = core.operands(name, *args)
    return Conv(geom, relu, name)(*tensors)


def _conv_input_grad(gy, w, geom, x_shape, name="conv_input_grad"):
    """`ConvInputGrad` on tensor-likes."""
    _, tensors, _ = core.operands(name, gy, w)
    return ConvInputGrad(geom, x_shape, name)(*tensors)


# Public ops ---------------------------------------------------------------------
def _float_pair(name, x, w):
    """Tensors `x`, `w` cast to one float dtype (ints become floatx)."""
    x, w = core.float_operand(x), core.float_operand(w)
    if x.dtype != w.dtype:
        target = config.standardize_dtype(np.result_type(config.to_numpy_dtype(x.dtype),
                                                         config.to_numpy_dtype(w.dtype)))
        x, w = core.cast(x, target), core.cast(w, target)
    return x, w


def _to_channels_last(x, data_format):
    if data_format == "channels_first":
        return shape_ops.transpose(x, (0,) + tuple(range(2, x.ndim)) + (1,))
    return x


def _from_channels_last(y, data_format):
    if data_format == "channels_first":
        return shape_ops.transpose(y, (0, y.ndim - 1) + tuple(range(1, y.ndim - 1)))
    return y


def _check_ranks(op, x, w, kernel_name="kernel"):
    if x.ndim not in (3, 4, 5) or w.ndim != x.ndim:
        raise ValueError(
            f"{op}: expected inputs of rank 3, 4 or 5 (batch, spatial..., channels) and a "
            f"{kernel_name} of the same rank. Received inputs of shape {tuple(x.shape)} and "
            f"a {kernel_name} of shape {tuple(w.shape)}.")


def _symbolic_conv(op, x, w, activation, strides, padding, dilation, data_format, in_shape,
                   name):
    """The output spec of a convolution on KerasTensors (channels-last `x`): sizes
    unknown in the input stay None."""
    channels, in_per_group = x.shape[-1], w.shape[-2]
    if None not in (channels, in_per_group) and channels % in_per_group:
        raise ValueError(
            f"{op}: the input channels must match the kernel: the input has {channels} "
            f"channels, which is not a multiple of the kernel's input channels {in_per_group}. "
            f"Received inputs of shape {in_shape} and a kernel of shape {tuple(w.shape)}.")
    spatial = []
    for n, k, st, d in zip(x.shape[1:-1], w.shape[:-2], strides, dilation):
        if n is None or k is None:
            spatial.append(None)
            continue
        size = -(-n // st) if padding == "same" else (n - (d * (k - 1) + 1)) // st + 1
        if size <= 0:
            raise ValueError(f"{op}: the kernel (size {tuple(w.shape[:-2])} with dilation "
                             f"{dilation}) is larger than the input (shape {in_shape}).")
        spatial.append(size)
    y = KerasTensor((x.shape[0],) + tuple(spatial) + (w.shape[-1],), x.dtype)
    _, after = fused_activation(name, activation)
    if after is not None:
        y = after(y)
    return _from_channels_last(y, data_format)


@keras_op
def fused_conv(inputs, kernel, bias=None, activation=None, strides=1, padding="valid",
               data_format=None, dilation_rate=1, name="conv"):
    """`activation(conv(inputs, kernel) + bias)` as one op (relu/linear fused).

    This is what the convolution layers call: the bias add and a relu run in
    place on the GEMM output, and their gradients in the same backward.

    Args:
        inputs: (batch, *spatial, channels) or channels_first.
        kernel: (*kernel_size, channels / groups, filters).
        bias: (filters,) or None.
        activation: None, "linear", "relu", or a callable applied afterwards.
        strides, padding, data_format, dilation_rate: as in `conv`.
        name: the op name used in error messages.

    Returns:
        Tensor.

    Example:
        >>> y = ops.fused_conv(x, kernel, bias, activation="relu", padding="same")
    """
    op = f"ops.{name}"
    x, w = _float_pair(name, inputs, kernel)
    _check_ranks(op, x, w)
    rank = x.ndim - 2
    strides = standardize_tuple(strides, rank, "strides", op)
    dilation = standardize_tuple(dilation_rate, rank, "dilation_rate", op)
    padding = standardize_padding(padding, op)
    data_format = standardize_data_format(data_format, op)
    in_shape = tuple(x.shape)
    x = _to_channels_last(x, data_format)
    channels, in_per_group, filters = x.shape[-1], w.shape[-2], w.shape[-1]
    if x.__class__ is KerasTensor or w.__class__ is KerasTensor:
        return _symbolic_conv(op, x, w, activation, strides, padding, dilation, data_format,
                              in_shape, name)
    if channels % in_per_group:
        raise ValueError(
            f"{op}: the input has {channels} channels, which is not a multiple of the "
            f"kernel's input channels {in_per_group} (groups = channels / "
            f"kernel.shape[-2]). Received inputs of shape {in_shape} and a "
            f"kernel of shape {tuple(w.shape)}.")
    groups = channels // in_per_group
    if filters % groups:
        raise ValueError(
            f"{op}: {filters} filters cannot be split into {groups} groups "
            f"(kernel shape {tuple(w.shape)}, inputs shape {in_shape}).")
    if bias is not None:
        bias = core.cast(core.convert_to_tensor(bias), x.dtype)
        if tuple(bias.shape) != (filters,):
            raise ValueError(f"{op}: bias must have shape ({filters},); got {tuple(bias.shape)}.")
    geom = _conv_geometry(op, x.shape, w.shape, strides, padding, dilation, groups)
    relu, after = fused_activation(name, activation)
    y = _conv_channels_last(x, w, geom, bias, relu, name)
    if after is not None:
        y = after(y)
    return _from_channels_last(y, data_format)


@keras_op
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (cross-correlation), as Keras `ops.conv`.

    Grouped convolution follows from the kernel: groups = channels /
    kernel.shape[-2].

    Args:
        inputs: (batch, *spatial, channels) for channels_last, else
            (batch, channels, *spatial); 1, 2 or 3 spatial axes.
        kernel: (*kernel_size, channels / groups, filters).
        strides: int or tuple, one per spatial axis.
        padding: "valid" or "same" (TensorFlow's split: the extra pad goes after).
        data_format: "channels_last" or "channels_first" (None: the config default).
        dilation_rate: int or tuple.

    Returns:
        Tensor of shape (batch, *out_spatial, filters) (or channels_first).

    Example:
        >>> x = np.ones((1, 5, 5, 1), "float32"); k = np.ones((3, 3, 1, 1), "float32")
        >>> ops.conv(x, k).shape
        (1, 3, 3, 1)
    """
    if _runs_tf_nn_convolution(inputs, kernel, data_format):
        refuse_strided_dilation(strides, dilation_rate, len(np.shape(kernel)) - 2)
    return fused_conv(inputs, kernel, None, None, strides, padding, data_format,
                      dilation_rate, name="conv")


def _runs_tf_nn_convolution(inputs, kernel, data_format):
    """Whether Keras's TensorFlow `ops.conv` runs `tf.nn.convolution` here, which refuses
    strides with dilations: not for symbolic inputs (shape inference only) nor for
    grouped convolutions (Keras compiles those with XLA, which takes both)."""
    if inputs.__class__ is KerasTensor:
        return False
    shape = np.shape(inputs)
    channels_last = standardize_data_format(data_format, "ops.conv") == "channels_last"
    return (shape[-1] if channels_last else shape[1]) == np.shape(kernel)[-2]


def refuse_strided_dilation(strides, dilation_rate, rank):
    """TensorFlow's `tf.nn.convolution` (so Keras's `ops.conv`) refuses strides > 1
    together with dilations > 1 (depthwise/separable/transposed ones do not)."""
    strides, dilation = (np.broadcast_to(np.asarray(v), (rank,)) if np.ndim(v) == 0
                         else np.asarray(v) for v in (strides, dilation_rate))
    if (strides > 1).any() and (dilation > 1).any():
        raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={strides} and dilation_rate={dilation}")


@keras_op
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Depthwise convolution: each channel convolved with its own filters.

    Output channel `c * depth_multiplier + m` is channel `c` convolved with
    `kernel[..., c, m]` (Keras's order); computed as a grouped convolution
    with groups == channels.

    Args:
        inputs: (batch, *spatial, channels) or channels_first.
        kernel: (*kernel_size, channels, depth_multiplier).
        strides, padding, data_format, dilation_rate: as in `conv`.

    Returns:
        Tensor with channels * depth_multiplier channels.

    Example:
        >>> ops.depthwise_conv(np.ones((1, 4, 4, 2)), np.ones((3, 3, 2, 1))).shape
        (1, 2, 2, 2)
    """
    op = "ops.depthwise_conv"
    x, w = _float_pair("depthwise_conv", inputs, kernel)
    _check_ranks(op, x, w)
    channels = x.shape[1] if standardize_data_format(data_format, op) == "channels_first" \
        else x.shape[-1]
    if None not in (w.shape[-2], channels) and w.shape[-2] != channels:
        raise ValueError(
            f"{op}: the input channels must match the kernel: the kernel's channel axis ({w.shape[-2]}) must equal the input channels "
            f"({channels}). Received inputs of shape {tuple(x.shape)} and a kernel of shape "
            f"{tuple(w.shape)}.")
    if _taps_in_keras_order(x, w):
        return _depthwise_taps(x, w, strides, padding, data_format, dilation_rate, op)
    w = shape_ops.reshape(w, tuple(w.shape[:-2]) + (1, w.shape[-2] * w.shape[-1]))
    return fused_conv(x, w, None, None, strides, padding, data_format, dilation_rate,
                      name="depthwise_conv")


def _taps_in_keras_order(x, w):
    """Whether to add a depthwise convolution's taps as TensorFlow does (oneDNN's kernel:
    tap by tap, fused multiply-adds): float32 on numpy, on a CPU with FMA (AVX2 and up),
    for calls no tape records (training keeps the grouped-convolution Op, whose GEMM
    sums agree with it for some shapes only, and its gradients)."""
    if recording._active or x.dtype != "float32" or w.dtype != "float32" or \
            KerasTensor in (type(x), type(w)) or x._device.xp is not np:
        return False
    kernel = onednn_math.cpu_kernel()
    return kernel is not None and kernel[1]


def _depthwise_taps(x, w, strides, padding, data_format, dilation_rate, op):
    """Depthwise convolution summed tap by tap in kernel order, each tap a float32 fused
    multiply-add (a float64 multiply-add rounded to float32 gives the same bits): oneDNN's
    depthwise kernel, so the outputs equal TensorFlow's to the bit."""
    data_format = standardize_data_format(data_format, op)
    x = _to_channels_last(x, data_format)
    rank = x.ndim - 2
    strides = standardize_tuple(strides, rank, "strides", op)
    dilation = standardize_tuple(dilation_rate, rank, "dilation_rate", op)
    kernel = tuple(w.shape[:rank])
    reach = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    if standardize_padding(padding, op) == "same":
        pads = [same_padding(x.shape[1 + i], reach[i], strides[i]) for i in range(rank)]
        x = shape_ops.pad(x, [(0, 0)] + pads + [(0, 0)])
    sizes = [(x.shape[1 + i] - reach[i]) // strides[i] + 1 for i in range(rank)]
    wide = core.cast(x, "float64")[..., None]      # (batch, *spatial, channels, 1)
    taps = core.cast(w, "float64")                 # (*kernel, channels, multiplier)
    total = None
    for tap in np.ndindex(*kernel):
        window = (slice(None),) + tuple(
            slice(t * d, t * d + (n - 1) * s + 1, s)
            for t, d, n, s in zip(tap, dilation, sizes, strides)) + (Ellipsis,)
        term = wide[window] * taps[tap]
        total = core.cast(term if total is None else core.cast(total, "float64") + term,
                          "float32")
    total = shape_ops.reshape(total, (total.shape[0], *sizes, w.shape[-2] * w.shape[-1]))
    return _from_channels_last(total, data_format)


@keras_op
def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """Depthwise convolution followed by a 1x1 (pointwise) convolution.

    Args:
        inputs: (batch, *spatial, channels) or channels_first.
        depthwise_kernel: (*kernel_size, channels, depth_multiplier).
        pointwise_kernel: (1, ..., 1, channels * depth_multiplier, filters).
        strides, padding, data_format, dilation_rate: of the depthwise step.

    Returns:
        Tensor with `filters` channels.

    Example:
        >>> ops.separable_conv(np.ones((1, 4, 4, 2)), np.ones((3, 3, 2, 2)),
        ...                    np.ones((1, 1, 4, 5))).shape
        (1, 2, 2, 5)
    """
    y = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(y, pointwise_kernel, 1, "valid", data_format, 1)


@keras_op
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """Transposed convolution (the gradient of `conv` w.r.t. its input), as Keras.

    The output size per axis is `size * stride + max(k - stride, 0)` for
    "valid" and `size * stride` for "same"; with `output_padding` it is
    `(size - 1) * stride + k - 2 * pad + output_padding` (pad = k // 2 for
    "same"), where k is the dilated kernel size.

    Args:
        inputs: (batch, *spatial, in_channels) or channels_first.
        kernel: (*kernel_size, filters, in_channels) (Keras's transpose layout).
        strides, padding, data_format, dilation_rate: as in `conv`.
        output_padding: None, an int or a tuple: extra size on the far side.

    Returns:
        Tensor with `filters` channels.

    Example:
        >>> ops.conv_transpose(np.ones((1, 3, 3, 2)), np.ones((3, 3, 4, 2)), strides=2).shape
        (1, 7, 7, 4)
    """
    op = "ops.conv_transpose"
    x, w = _float_pair("conv_transpose", inputs, kernel)
    _check_ranks(op, x, w)
    rank = x.ndim - 2
    strides = standardize_tuple(strides, rank, "strides", op)
    dilation = standardize_tuple(dilation_rate, rank, "dilation_rate", op)
    padding = standardize_padding(padding, op)
    data_format = standardize_data_format(data_format, op)
    in_shape = tuple(x.shape)
    if output_padding is not None:
        output_padding = (output_padding,) * rank if isinstance(output_padding, int) \
            else tuple(int(p) for p in output_padding)
        if len(output_padding) != rank or any(p < 0 for p in output_padding):
            raise ValueError(f"{op}: `output_padding` must be None or {rank} non-negative "
                             f"ints. Received: output_padding={output_padding}")
    x = _to_channels_last(x, data_format)
    if None not in (x.shape[-1], w.shape[-1]) and x.shape[-1] != w.shape[-1]:
        raise ValueError(
            f"{op}: the input channels must match the kernel: the kernel's last axis ({w.shape[-1]}) must equal the input channels "
            f"({x.shape[-1]}). Received inputs of shape {in_shape} and a kernel "
            f"of shape {tuple(w.shape)}.")
    kernel_size = tuple(w.shape[:-2])
    out_spatial = tuple(
        conv_transpose_output_length(s, k, st, padding, None if output_padding is None
                                     else output_padding[i], d)
        if s is not None else None
        for i, (s, k, st, d) in enumerate(zip(x.shape[1:-1], kernel_size, strides, dilation)))
    if x.__class__ is KerasTensor or w.__class__ is KerasTensor:
        if any(o is not None and o <= 0 for o in out_spatial):
            raise ValueError(f"{op}: the output would have size {out_spatial}. Received "
                             f"inputs of shape {in_shape} and a kernel of shape "
                             f"{tuple(w.shape)}.")
        return _from_channels_last(
            KerasTensor((x.shape[0],) + out_spatial + (w.shape[-2],), x.dtype), data_format)
    if any(o <= 0 for o in out_spatial):
        raise ValueError(f"{op}: the output would have size {out_spatial}. Received inputs "
                         f"of shape {in_shape} and a kernel of shape "
                         f"{tuple(w.shape)}.")
    pads = []
    for s, o, k, st, d in zip(x.shape[1:-1], out_spatial, kernel_size, strides, dilation):
        k_eff = d * (k - 1) + 1
        total = max((s - 1) * st + k_eff - o, 0) if padding == "same" else 0
        pads.append((total // 2, total - total // 2))
    geom = _Geometry(kernel_size, strides, dilation, tuple(pads), 1, out_spatial,
                     tuple(x.shape[1:-1]))
    y_shape = (x.shape[0],) + out_spatial + (w.shape[-2],)
    return _from_channels_last(_conv_input_grad(x, w, geom, y_shape, name="conv_transpose"),
                               data_format)
