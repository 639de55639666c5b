"""Pooling ops: max_pool and average_pool (1, 2 or 3 spatial axes).

Both run in channels_last layout (channels_first is transposed in and out)
and loop only over the pool offsets: for a 2x2 pool that is four strided
views of the input combined with `maximum` (or summed), never a loop over
pixels or batch items. Padding "same" follows TensorFlow: max pooling
ignores the padded positions and average pooling divides by the number of
real (unpadded) elements in each window.

Backward passes are written as pairs of adjoint linear maps (max pooling:
route the gradient to each window's first maximum / gather it back;
average pooling: spread / sum), each an Op with the other as its
backward, so second-order gradients work. Without an outer tape they run on
raw arrays and record nothing.
"""
import itertools
import math

import numpy as np

from kerasish.autodiff.capture import derive
from kerasish.autodiff.op import Op
from kerasish.backend.config import is_float
from kerasish.ops import core
from kerasish.ops.conv import (_from_channels_last, _to_channels_last, same_padding,
                               standardize_data_format, standardize_padding,
                               standardize_tuple)
from kerasish.ops.symbolic import keras_op


class _PoolGeometry:
    """Sizes of one channels_last pooling: x (N, *in, C) -> (N, *out, C)."""

    __slots__ = ("pool", "strides", "pads", "in_spatial", "out_spatial", "overlapping")

    def __init__(self, pool, strides, pads, in_spatial, out_spatial):
        self.pool, self.strides, self.pads = pool, strides, pads
        self.in_spatial, self.out_spatial = in_spatial, out_spatial
        self.overlapping = any(s < k for s, k in zip(strides, pool))

    @property
    def padded(self):
        return any(lo or hi for lo, hi in self.pads)

    def windows(self):
        """One strided slice of the padded input per pool offset."""
        for offsets in itertools.product(*(range(k) for k in self.pool)):
            yield (slice(None),) + tuple(
                slice(k, k + s * (o - 1) + 1, s)
                for k, s, o in zip(offsets, self.strides, self.out_spatial)) + (slice(None),)

    def pad(self, xp, x, value):
        if not self.padded:
            return x
        return xp.pad(x, ((0, 0),) + self.pads + ((0, 0),), constant_values=value)

    def padded_zeros(self, xp, shape, dtype):
        return xp.zeros((shape[0],) + tuple(s + lo + hi for s, (lo, hi) in
                                           zip(self.in_spatial, self.pads)) + (shape[-1],),
                        dtype=dtype)

    def crop(self, x):
        if not self.padded:
            return x
        return x[(slice(None),) + tuple(slice(lo, lo + s) for s, (lo, _) in
                                        zip(self.in_spatial, self.pads)) + (slice(None),)]


def _geometry(op, x_shape, pool_size, strides, padding):
    rank = len(x_shape) - 2
    pool = standardize_tuple(pool_size, rank, "pool_size", op)
    strides = pool if strides is None else standardize_tuple(strides, rank, "strides", op)
    in_spatial = tuple(x_shape[1:-1])
    if None in in_spatial:  # symbolic: unknown sizes stay unknown (never computed on)
        out = tuple(None if n is None else -(-n // st) if padding == "same" else
                    (n - k) // st + 1 for n, k, st in zip(in_spatial, pool, strides))
        if any(o is not None and o <= 0 for o in out):
            raise ValueError(f"{op}: the pool size {pool} is larger than the input (shape "
                             f"{tuple(x_shape)}, channels_last).")
        return _PoolGeometry(pool, strides, tuple((0, 0) for _ in in_spatial), in_spatial, out)
    if padding == "same":
        pads = tuple(same_padding(s, k, st) for s, k, st in zip(in_spatial, pool, strides))
    else:
        pads = tuple((0, 0) for _ in in_spatial)
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(in_spatial, pads))
    if any(p < k for p, k in zip(padded, pool)):
        raise ValueError(
            f"{op}: the pool size {pool} is larger than the padded input (spatial size "
            f"{padded}). Received inputs of shape {tuple(x_shape)} (channels_last) with "
            f"padding={padding!r}.")
    out = tuple((p - k) // s + 1 for p, k, s in zip(padded, pool, strides))
    return _PoolGeometry(pool, strides, pads, in_spatial, out)


def _prepare(op, inputs, pool_size, strides, padding, data_format):
    x = core.convert_to_tensor(inputs)
    if x.ndim not in (3, 4, 5):
        raise ValueError(f"{op}: expected inputs of rank 3, 4 or 5 (batch, spatial..., "
                         f"channels). Received inputs of shape {tuple(x.shape)}.")
    padding = standardize_padding(padding, op)
    data_format = standardize_data_format(data_format, op)
    x = _to_channels_last(x, data_format)
    return x, _geometry(op, x.shape, pool_size, strides, padding), data_format


def _in_chunks(dev, run, n, per_item_bytes):
    """`run(b0, b1)` over the device's batch chunks (on CPU: cache-sized, threaded).

    Every kernel below works on batch items independently, so each chunk
    runs the same float operations as the whole array would."""
    dev.kernel("run_batch_chunks")(run, dev.kernel("batch_chunks")(n, per_item_bytes))


def _combine(dev, ufunc, xpad, geom):
    """`ufunc` (maximum or add) folded over the windows of every pool offset."""
    windows = list(geom.windows())
    if len(windows) == 1:
        return xpad[windows[0]].copy()
    out = dev.xp.empty(xpad.shape[:1] + geom.out_spatial + xpad.shape[-1:], dtype=xpad.dtype)

    def run(b0, b1):
        part, chunk = out[b0:b1], xpad[b0:b1]
        ufunc(chunk[windows[0]], chunk[windows[1]], out=part)
        for window in windows[2:]:
            ufunc(part, chunk[window], out=part)

    _in_chunks(dev, run, out.shape[0], xpad[:1].nbytes + out[:1].nbytes)
    return out


# Max pooling ---------------------------------------------------------------------
def _lowest(dtype):
    return -np.inf if is_float(np.dtype(dtype)) else np.iinfo(dtype).min


def _max_routes(dev, xpad, out, geom):
    """One boolean mask per pool offset marking, per window, its first maximum."""
    xp = dev.xp
    windows = list(geom.windows())
    masks = [xp.empty(out.shape, dtype=bool) for _ in windows]

    def run(b0, b1):
        taken = None
        for window, mask in zip(windows, masks):
            hit = xp.equal(xpad[b0:b1][window], out[b0:b1], out=mask[b0:b1])
            if taken is None:
                taken = hit.copy()
            else:
                hit &= ~taken
                taken |= hit

    _in_chunks(dev, run, out.shape[0], xpad[:1].nbytes + out[:1].nbytes * (len(masks) + 1))
    return masks


def _route_raw(dev, g, masks, geom, x_shape):
    xp = dev.xp
    gpad = xp.empty((x_shape[0],) + tuple(s + lo + hi for s, (lo, hi) in
                                          zip(geom.in_spatial, geom.pads)) + (x_shape[-1],),
                    dtype=g.dtype)

    tiled = not geom.padded and all(  # the windows cover every input position once
        s == k and o * s == n for k, s, o, n in
        zip(geom.pool, geom.strides, geom.out_spatial, geom.in_spatial))

    def run(b0, b1):
        part, gc = gpad[b0:b1], g[b0:b1]
        if not tiled:
            part.fill(0)
        for window, mask in zip(geom.windows(), masks):
            if geom.overlapping:
                part[window] += gc * mask[b0:b1]
            else:  # each input position belongs to one window: write in place
                xp.multiply(gc, mask[b0:b1], out=part[window])

    _in_chunks(dev, run, g.shape[0], gpad[:1].nbytes + g[:1].nbytes * (len(masks) + 1))
    return geom.crop(gpad)


def _gather_raw(xp, gx, masks, geom):
    gpad = geom.pad(xp, gx, 0)
    total = None
    for window, mask in zip(geom.windows(), masks):
        part = gpad[window] * mask
        total = part if total is None else xp.add(total, part, out=total)
    return total


class MaxPool(Op):
    """Max over windows (channels_last). The padded input is kept (on the
    instance, one per call) to find each window's first maximum in backward."""

    name = "max_pool"

    def __init__(self, geom):
        self.geom = geom
        self._xpad = None

    def forward(self, device, x):
        xp = device.xp
        self._xpad = xpad = self.geom.pad(xp, x, _lowest(x.dtype))
        return _combine(device, xp.maximum, xpad, self.geom)

    def save(self, inputs, outputs):
        xpad, self._xpad = self._xpad, None
        return inputs[0].shape, xpad, outputs[0]._value

    def backward(self, saved, needs, g):
        x_shape, xpad, out = saved
        dev, geom = g._device, self.geom
        masks = derive(lambda xpad, out: _max_routes(dev, xpad, out, geom), xpad, out)
        return (MaxPoolRoute(masks, self.geom, x_shape)(g),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        return (shape[0],) + self.geom.out_spatial + (shape[-1],), dtype


class MaxPoolRoute(Op):
    """Sends each window's gradient to its maximum (the max-pool backward); its
    adjoint is `MaxPoolGather`."""

    name = "max_pool_grad"

    def __init__(self, masks, geom, x_shape):
        self.masks, self.geom, self.x_shape = masks, geom, x_shape

    def forward(self, device, g):
        return _route_raw(device, g, self.masks, self.geom, self.x_shape)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, gg):
        return (MaxPoolGather(self.masks, self.geom, saved[0])(gg),)


class MaxPoolGather(Op):
    """Reads each window's maximum position (the adjoint of `MaxPoolRoute`)."""

    name = "max_pool_gather"

    def __init__(self, masks, geom, g_shape):
        self.masks, self.geom, self.g_shape = masks, geom, g_shape

    def forward(self, device, gx):
        return _gather_raw(device.xp, gx, self.masks, self.geom)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, gg):
        return (MaxPoolRoute(self.masks, self.geom, saved[0])(gg),)


@keras_op
def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling over 1, 2 or 3 spatial axes, as Keras `ops.max_pool`.

    The gradient goes to the first maximum of each window (row-major order),
    as in TensorFlow.

    Args:
        inputs: (batch, *spatial, channels) or channels_first.
        pool_size: int or tuple, one per spatial axis.
        strides: int or tuple; None means `pool_size`.
        padding: "valid" or "same".
        data_format: "channels_last" or "channels_first" (None: the config default).

    Returns:
        Tensor.

    Example:
        >>> ops.max_pool(np.arange(16.0).reshape(1, 4, 4, 1), 2)[0, :, :, 0]   # [[5, 7], [13, 15]]
    """
    x, geom, data_format = _prepare("ops.max_pool", inputs, pool_size, strides, padding,
                                    data_format)
    return _from_channels_last(MaxPool(geom)(x), data_format)


# Average pooling -------------------------------------------------------------------
def _window_counts(xp, geom, dtype):
    """Real (unpadded) elements per window: a scalar, or (1, *out, 1) with padding."""
    if not geom.padded:
        return float(math.prod(geom.pool))
    counts = None
    for axis, (k, s, o, size, (lo, _)) in enumerate(
            zip(geom.pool, geom.strides, geom.out_spatial, geom.in_spatial, geom.pads)):
        start = np.arange(o) * s - lo
        per_axis = np.minimum(start + k, size) - np.maximum(start, 0)
        shape = [1] * len(geom.pool)
        shape[axis] = o
        per_axis = per_axis.reshape(shape)
        counts = per_axis if counts is None else counts * per_axis
    return xp.asarray(counts.reshape((1,) + counts.shape + (1,)).astype(dtype))


def _avg_raw(device, x, geom):
    xp = device.xp
    total = _combine(device, xp.add, geom.pad(xp, x, 0), geom)
    total /= _window_counts(xp, geom, total.dtype)
    return total


def _spread_raw(xp, g, geom, x_shape):
    share = g / _window_counts(xp, geom, g.dtype)
    gpad = geom.padded_zeros(xp, x_shape, share.dtype)
    for window in geom.windows():
        if geom.overlapping:
            gpad[window] += share
        else:
            gpad[window] = share
    return geom.crop(gpad)


class AveragePool(Op):
    """Average over windows (channels_last); backward `AveragePoolSpread`."""

    name = "average_pool"

    def __init__(self, geom):
        self.geom = geom

    def forward(self, device, x):
        return _avg_raw(device, x, self.geom)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        return (AveragePoolSpread(self.geom, saved[0])(g),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        return (shape[0],) + self.geom.out_spatial + (shape[-1],), dtype


class AveragePoolSpread(Op):
    """Each window's gradient shared by its elements (the adjoint of `AveragePool`)."""

    name = "average_pool_grad"

    def __init__(self, geom, x_shape):
        self.geom, self.x_shape = geom, x_shape

    def forward(self, device, g):
        return _spread_raw(device.xp, g, self.geom, self.x_shape)

    def backward(self, saved, needs, gg):
        return (AveragePool(self.geom)(gg),)


@keras_op
def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling over 1, 2 or 3 spatial axes, as Keras `ops.average_pool`.

    With padding "same" each window is divided by its number of real
    (unpadded) elements, as TensorFlow does.

    Args:
        inputs: (batch, *spatial, channels) or channels_first.
        pool_size: int or tuple, one per spatial axis.
        strides: int or tuple; None means `pool_size`.
        padding: "valid" or "same".
        data_format: "channels_last" or "channels_first" (None: the config default).

    Returns:
        Tensor.

    Example:
        >>> ops.average_pool(np.ones((1, 4, 4, 1)), 2).shape
        (1, 2, 2, 1)
    """
    x, geom, data_format = _prepare("ops.average_pool", inputs, pool_size, strides, padding,
                                    data_format)
    x = core.float_operand(x)
    return _from_channels_last(AveragePool(geom)(x), data_format)
