"""`keras.ops.image`: resizing, affine warps, coordinate maps, patches, crops,
pads, colour conversions and blurring with Keras 3's (TensorFlow backend) numbers.

Resizing is a pair of separable weight matrices (one per spatial axis) built
from TensorFlow's kernels (half-pixel nearest/Keys bicubic with its 1024-entry
table, area, and the scale-and-translate kernels for lanczos and
antialiasing), applied with `ops.einsum`, so it is vectorised over the batch
and differentiable; plain bilinear follows ResizeBilinear's own arithmetic
(two horizontal lerps, then a vertical one) and matches it to the bit. Every
dtype is resized in float32, as TensorFlow's kernels do. The other functions
work on the raw arrays of the tensor's device (numpy or cupy) and are not
differentiable.
"""
import math

import numpy as np

from kerasish import ops
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config, dtypes
from kerasish.backend.kernels import onednn_math
from kerasish.ops import core
from kerasish.ops.conv import refuse_strided_dilation
from kerasish.ops.symbolic import keras_op
from kerasish.utils.registry import REGISTRY

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")
AFFINE_INTERPOLATIONS = ("nearest", "bilinear")
AFFINE_FILL_MODES = ("constant", "nearest", "wrap", "reflect")
MAP_COORDINATES_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
_TABLE_SIZE = 1024       # TensorFlow's bicubic coefficient table
_FLT_MIN = np.finfo("float32").tiny


# Shared helpers ------------------------------------------------------------------------
def _data_format(data_format):
    data_format = data_format or config.image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError("The `data_format` argument must be one of 'channels_first', "
                         f"'channels_last'. Received: data_format={data_format!r}")
    return data_format


def _tensor(x):
    return x if isinstance(x, Tensor) else core.convert_to_tensor(x)


def _check_rank(name, images, ranks=(3, 4)):
    """Keras's rank error (the TF backend's words; crop/pad's front-end checks say
    "Received: images.shape=")."""
    if len(images.shape) not in ranks:
        received = ": " if name in ("crop_images", "pad_images") else " input with shape: "
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received{received}images.shape={tuple(images.shape)}")


def _to_channels_last(array, data_format):
    if data_format == "channels_first":
        return array.transpose((0, 2, 3, 1)) if array.ndim == 4 else array.transpose((1, 2, 0))
    return array


def _from_channels_last(array, data_format):
    if data_format == "channels_first":
        return array.transpose((0, 3, 1, 2)) if array.ndim == 4 else array.transpose((2, 0, 1))
    return array


def _result(array, like):
    return Tensor(array, like._device)


# resize --------------------------------------------------------------------------------
@keras_op
def resize(images, size, interpolation="bilinear", antialias=False,
           crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode="constant",
           fill_value=0.0, data_format=None):
    """Resizes images to `size` (height, width) with Keras's (TensorFlow's) numbers.

    Args:
        images: rank 3 (one image) or rank 4 (batch) tensor.
        size: (height, width).
        interpolation: "bilinear", "nearest", "bicubic", "area", "lanczos3" or "lanczos5".
        antialias: widen the kernel when downsampling (bilinear, bicubic, lanczos).
        crop_to_aspect_ratio: first crop the centre to the target aspect ratio.
        pad_to_aspect_ratio: first pad to the target aspect ratio with `fill_value`.
        fill_mode: only "constant".
        fill_value: padding value for `pad_to_aspect_ratio`.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Returns:
        The resized images in the input dtype, as Keras (float16/bfloat16
        computed in float32 and cast back; integers rounded).

    Example:
        >>> keras.ops.image.resize(np.ones((2, 4, 4, 3)), (2, 2)).shape
        (2, 2, 2, 3)
    """
    data_format = _data_format(data_format)
    _check_resize_size(size)
    images = _tensor(images)
    _check_rank("resize", images)
    _check_resize_arguments(interpolation, fill_mode, crop_to_aspect_ratio, pad_to_aspect_ratio)
    target_h, target_w = (int(s) for s in size)
    x = images if data_format == "channels_last" else ops.transpose(
        images, (0, 2, 3, 1) if images.ndim == 4 else (1, 2, 0))
    if crop_to_aspect_ratio:
        x = _crop_to_aspect(x, target_h, target_w)
    elif pad_to_aspect_ratio:
        x = _pad_to_aspect(x, target_h, target_w, fill_value)
    in_h, in_w = x.shape[-3], x.shape[-2]
    if (in_h, in_w) == (target_h, target_w) and interpolation != "area":
        out = x
    else:
        # TensorFlow's resize kernels read every dtype (float64 too) as float32
        xf = ops.cast(x, "float32")
        if interpolation == "bilinear" and not antialias:
            out = _bilinear_lerp(xf, target_h, target_w)
        else:
            rows = _weights(interpolation, antialias, in_h, target_h)
            cols = _weights(interpolation, antialias, in_w, target_w)
            rows = core.convert_to_tensor(rows.astype("float32"))
            cols = core.convert_to_tensor(cols.astype("float32"))
            spec = "oh,bhwc,pw->bopc" if x.ndim == 4 else "oh,hwc,pw->opc"
            out = ops.einsum(spec, rows, xf, cols)
        if x.dtype.startswith(("int", "uint")):
            # As Keras: integer images come back rounded, in their own dtype.
            info = np.iinfo(x.dtype)
            out = ops.cast(ops.clip(ops.round(out), info.min, info.max), x.dtype)
        elif out.dtype != x.dtype:
            out = ops.cast(out, x.dtype)
    if data_format == "channels_first":
        out = ops.transpose(out, (0, 3, 1, 2) if out.ndim == 4 else (2, 0, 1))
    return out


def _check_resize_arguments(interpolation, fill_mode, crop, pad):
    """Keras's checks and texts, in its order (after `size` and the rank)."""
    if crop and pad:
        raise ValueError("Only one of `pad_to_aspect_ratio` & "
                         "`crop_to_aspect_ratio` can be `True`.")
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError("Invalid value for argument `interpolation`. "
                         f"Expected of one {RESIZE_INTERPOLATIONS}. Received: "
                         f"interpolation={interpolation}")
    if fill_mode != "constant":
        raise ValueError("Invalid value for argument `fill_mode`. Only "
                         f"`'constant'` is supported. Received: fill_mode={fill_mode}")


def _check_resize_size(size):
    """Keras's front-end checks of `size` (made before the others)."""
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers. Received: size={size}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"`size` must have positive height and width. Received: size={size}")


def _f32_div_int(numerator, denominator):
    """int(float32(numerator) / denominator), as Keras computes crop/pad sizes."""
    return int(np.float32(numerator) / np.float32(denominator))


def _crop_to_aspect(x, target_h, target_w):
    height, width = x.shape[-3], x.shape[-2]
    crop_h = max(min(height, _f32_div_int(width * target_h, target_w)), 1)
    crop_w = max(min(width, _f32_div_int(height * target_w, target_h)), 1)
    top = _f32_div_int(height - crop_h, 2)
    left = _f32_div_int(width - crop_w, 2)
    return x[..., top:top + crop_h, left:left + crop_w, :]


def _pad_to_aspect(x, target_h, target_w, fill_value):
    # As Keras: the computed margin is added on *both* sides.
    height, width = x.shape[-3], x.shape[-2]
    pad_h = max(height, _f32_div_int(width * target_h, target_w))
    pad_w = max(width, _f32_div_int(height * target_w, target_h))
    top = _f32_div_int(pad_h - height, 2)
    left = _f32_div_int(pad_w - width, 2)
    lead = [(0, 0)] * (x.ndim - 3)
    if top > 0:
        x = ops.pad(x, lead + [(top, top), (0, 0), (0, 0)], constant_values=fill_value)
    if left > 0:
        x = ops.pad(x, lead + [(0, 0), (left, left), (0, 0)], constant_values=fill_value)
    return x


def _weights(interpolation, antialias, in_size, out_size):
    """(out_size, in_size) matrix: output sample i = sum_j W[i, j] * input[j]."""
    kernels = {"lanczos3": (_lanczos(3), 3.0), "lanczos5": (_lanczos(5), 5.0),
               "bilinear": (_triangle, 1.0), "bicubic": (_keys_cubic, 2.0)}
    if interpolation in ("lanczos3", "lanczos5") or (antialias and interpolation in kernels):
        kernel, radius = kernels[interpolation]
        return _scale_and_translate_weights(kernel, radius, in_size, out_size, antialias)
    return {"nearest": _nearest_weights,
            "bicubic": _bicubic_weights, "area": _area_weights}[interpolation](in_size, out_size)


def _half_pixel_lerps(in_size, out_size):
    """TensorFlow's ResizeBilinear sampling: (lower, upper, lerp) per output index."""
    scale = np.float32(in_size) / np.float32(out_size)
    position = (np.arange(out_size, dtype="float32") + np.float32(0.5)) * scale - np.float32(0.5)
    floor = np.floor(position)
    lower = np.maximum(floor.astype("int64"), 0)
    upper = np.minimum(np.ceil(position).astype("int64"), in_size - 1)
    return lower, upper, (position - floor).astype("float32")


def _bilinear_lerp(x, out_h, out_w):
    """Half-pixel bilinear resize of float32 channels-last images in TensorFlow's
    arithmetic (ResizeBilinear's `compute_lerp`: two horizontal lerps, then one
    vertical), so the result matches it to the bit; differentiable."""
    row_axis = x.ndim - 3
    top_rows, bottom_rows, y_lerp = _half_pixel_lerps(x.shape[row_axis], out_h)
    left, right, x_lerp = _half_pixel_lerps(x.shape[row_axis + 1], out_w)
    x_lerp = core.convert_to_tensor(x_lerp.reshape(-1, 1))
    y_lerp = core.convert_to_tensor(y_lerp.reshape(-1, 1, 1))

    def row_lerp(rows):
        picked = ops.take(x, rows, axis=row_axis)
        start = ops.take(picked, left, axis=row_axis + 1)
        return start + (ops.take(picked, right, axis=row_axis + 1) - start) * x_lerp

    top = row_lerp(top_rows)
    return top + (row_lerp(bottom_rows) - top) * y_lerp


def _nearest_weights(in_size, out_size):
    scale = np.float32(in_size) / np.float32(out_size)
    w = np.zeros((out_size, in_size))
    for i in range(out_size):
        index = min(int(math.floor((np.float32(i) + np.float32(0.5)) * scale)), in_size - 1)
        w[i, max(index, 0)] = 1.0
    return w


def _cubic_table():
    a = -0.5
    x = np.arange(_TABLE_SIZE + 1, dtype="float64") / _TABLE_SIZE
    table = np.empty((_TABLE_SIZE + 1, 2), dtype="float32")
    table[:, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1
    table[:, 1] = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return table


def _bicubic_weights(in_size, out_size):
    table = _cubic_table()
    scale = np.float32(in_size) / np.float32(out_size)
    w = np.zeros((out_size, in_size))
    for i in range(out_size):
        position = (np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5)
        base = math.floor(position)
        offset = int(np.rint(np.float32(position - base) * _TABLE_SIZE))
        weights = [table[offset, 1], table[offset, 0], table[_TABLE_SIZE - offset, 0],
                   table[_TABLE_SIZE - offset, 1]]
        indices = [base - 1 + k for k in range(4)]
        weights = [float(wk) if 0 <= idx < in_size else 0.0 for wk, idx in zip(weights, indices)]
        total = sum(weights)
        if abs(total) >= 1000 * _FLT_MIN:
            weights = [wk / total for wk in weights]
        for wk, idx in zip(weights, indices):
            w[i, min(in_size - 1, max(0, idx))] += wk
    return w


def _area_weights(in_size, out_size):
    scale = in_size / out_size
    w = np.zeros((out_size, in_size))
    for i in range(out_size):
        start, end = i * scale, (i + 1) * scale
        for j in range(int(math.floor(start)), int(math.ceil(end))):
            w[i, min(j, in_size - 1)] += (min(j + 1, end) - max(j, start)) / scale
    return w


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x):
    x = np.abs(x)
    return np.where(x >= 2, 0.0, np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0,
                                          (1.5 * x - 2.5) * x * x + 1.0))


def _lanczos(radius):
    def kernel(x):
        x = np.abs(np.asarray(x, dtype="float64"))
        safe = np.where(x <= 1e-3, 1.0, x)
        value = radius * np.sin(np.pi * safe) * np.sin(np.pi * safe / radius) / \
            (np.pi ** 2 * safe ** 2)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, value))
    return kernel


def _scale_and_translate_weights(kernel, radius, in_size, out_size, antialias):
    """TensorFlow's ScaleAndTranslate spans (translation 0)."""
    inv_scale = 1.0 / (np.float32(out_size) / np.float32(in_size))
    kernel_scale = max(inv_scale, 1.0) if antialias else 1.0
    w = np.zeros((out_size, in_size))
    for i in range(out_size):
        sample = (i + 0.5) * inv_scale
        if sample < 0 or sample > in_size:
            continue
        start = int(math.ceil(sample - radius * kernel_scale - 0.5))
        end = int(math.floor(sample + radius * kernel_scale - 0.5))
        start = min(max(start, 0), in_size - 1)
        end = min(max(end, 0), in_size - 1) + 1
        sources = np.arange(start, end)
        weights = kernel(np.abs((sources + 0.5 - sample) / kernel_scale))
        total = weights.sum()
        if abs(total) >= 1000 * _FLT_MIN:
            weights = weights / total
        w[i, start:end] = weights
    return w


# affine_transform ---------------------------------------------------------------------
@keras_op
def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """Warps images by projective transforms `[a0, a1, a2, b0, b1, b2, c0, c1]`.

    Output pixel (x, y) samples the input at
    `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)` with `k = c0 x + c1 y + 1`
    (TensorFlow's ImageProjectiveTransformV3).

    Args:
        images: rank 3 or 4 tensor.
        transform: (8,) or (batch, 8).
        interpolation: "nearest" or "bilinear".
        fill_mode: "constant", "nearest", "wrap" or "reflect".
        fill_value: value outside the image for "constant".
        data_format: "channels_last" or "channels_first".

    Returns:
        Tensor of the input's shape and dtype.
    """
    data_format = _data_format(data_format)
    if interpolation not in AFFINE_INTERPOLATIONS:
        raise ValueError("Invalid value for argument "
                         f"`interpolation`. Expected of one {AFFINE_INTERPOLATIONS}. Received: "
                         f"interpolation={interpolation}")
    if fill_mode not in AFFINE_FILL_MODES:
        raise ValueError("Invalid value for argument `fill_mode`. "
                         f"Expected of one {AFFINE_FILL_MODES}. Received: fill_mode={fill_mode}")
    images = _tensor(images)
    _check_rank("affine_transform", images)
    xp = images._device.xp
    transform = xp.asarray(_tensor(transform)._value, dtype="float32")
    if transform.ndim not in (1, 2):
        raise ValueError("Invalid transform rank: expected rank 1 "
                         "(single transform) or rank 2 (batch of transforms). Received input "
                         f"with shape: transform.shape={tuple(transform.shape)}")
    if transform.ndim == 1:
        transform = transform[None]
    return _warp(images, transform, interpolation, fill_mode, fill_value, data_format)


def _warp(images, transform, interpolation, fill_mode, fill_value, data_format):
    """`_projective` on a Tensor: float images are sampled with `ops.take`, so the warp
    is differentiable in the images (as TensorFlow's); integer images use the array code."""
    xp = images._device.xp
    if not config.is_float_dtype(images.dtype):
        array = images._value
        single = array.ndim == 3
        array = _to_channels_last(array[None] if single else array, data_format)
        out = _projective(xp, array, transform, interpolation, fill_mode, fill_value)
        out = _from_channels_last(out, data_format)
        return _result(out[0] if single else out, images)
    single = len(images.shape) == 3
    batch = ops.expand_dims(images, 0) if single else images
    if data_format == "channels_first":
        batch = ops.transpose(batch, (0, 2, 3, 1))
    n, height, width, channels = batch.shape
    flat = ops.reshape(batch, (-1, channels))
    in_y, in_x, projection = _source_coordinates(xp, batch.shape, transform, fill_mode)
    fill = xp.asarray(fill_value, dtype="float32")

    def read(y, x):  # batch[b, y, x, :] inside the image, else the fill value (as `_read`)
        yi, xi = y.astype("int64"), x.astype("int64")
        inside = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width)
        index = (xp.arange(n)[:, None, None] * height + xp.clip(yi, 0, height - 1)) * width \
            + xp.clip(xi, 0, width - 1)
        values = ops.reshape(ops.take(flat, Tensor(index.reshape(-1), images._device), axis=0),
                             (n, height, width, channels))
        return ops.where(inside[..., None], ops.cast(values, "float32"), fill)

    if interpolation == "nearest":
        out = read(_round_half_away(xp, in_y), _round_half_away(xp, in_x))
    else:
        y0, x0 = xp.floor(in_y), xp.floor(in_x)
        y1, x1 = y0 + 1, x0 + 1
        wx0, wx1 = (x1 - in_x)[..., None], (in_x - x0)[..., None]
        top = ops.add(ops.multiply(read(y0, x0), wx0), ops.multiply(read(y0, x1), wx1))
        bottom = ops.add(ops.multiply(read(y1, x0), wx0), ops.multiply(read(y1, x1), wx1))
        out = ops.add(ops.multiply(top, (y1 - in_y)[..., None]),
                      ops.multiply(bottom, (in_y - y0)[..., None]))
    out = ops.cast(ops.where((projection == 0)[..., None], fill, out), images.dtype)
    if data_format == "channels_first":
        out = ops.transpose(out, (0, 3, 1, 2))
    return ops.squeeze(out, 0) if single else out


def _source_coordinates(xp, shape, transform, fill_mode):
    """Where each output pixel samples the input (y, x), and the projective denominator."""
    batch, height, width, _ = shape
    transform = xp.broadcast_to(transform, (batch, 8)).astype("float32")
    ys, xs = xp.meshgrid(xp.arange(height, dtype="float32"), xp.arange(width, dtype="float32"),
                         indexing="ij")
    t = [transform[:, k][:, None, None] for k in range(8)]
    projection = t[6] * xs + t[7] * ys + 1.0
    safe = xp.where(projection == 0, 1.0, projection)
    in_x = _fill_coordinate(xp, (t[0] * xs + t[1] * ys + t[2]) / safe, width, fill_mode)
    in_y = _fill_coordinate(xp, (t[3] * xs + t[4] * ys + t[5]) / safe, height, fill_mode)
    return in_y, in_x, projection


def _projective(xp, array, transform, interpolation, fill_mode, fill_value):
    batch, height, width, _ = array.shape
    transform = xp.broadcast_to(transform, (batch, 8)).astype("float32")
    ys, xs = xp.meshgrid(xp.arange(height, dtype="float32"), xp.arange(width, dtype="float32"),
                         indexing="ij")
    t = [transform[:, k][:, None, None] for k in range(8)]
    projection = t[6] * xs + t[7] * ys + 1.0
    safe = xp.where(projection == 0, 1.0, projection)
    in_x = _fill_coordinate(xp, (t[0] * xs + t[1] * ys + t[2]) / safe, width, fill_mode)
    in_y = _fill_coordinate(xp, (t[3] * xs + t[4] * ys + t[5]) / safe, height, fill_mode)
    fill = xp.asarray(fill_value, dtype="float32")
    if interpolation == "nearest":
        out = _read(xp, array, _round_half_away(xp, in_y), _round_half_away(xp, in_x), fill)
    else:
        y0, x0 = xp.floor(in_y), xp.floor(in_x)
        y1, x1 = y0 + 1, x0 + 1
        wx0, wx1 = (x1 - in_x)[..., None], (in_x - x0)[..., None]
        top = wx0 * _read(xp, array, y0, x0, fill) + wx1 * _read(xp, array, y0, x1, fill)
        bottom = wx0 * _read(xp, array, y1, x0, fill) + wx1 * _read(xp, array, y1, x1, fill)
        out = (y1 - in_y)[..., None] * top + (in_y - y0)[..., None] * bottom
    out = xp.where((projection == 0)[..., None], fill, out)
    if array.dtype.kind in "iu":
        out = xp.round(out)
    return out.astype(array.dtype)


def _round_half_away(xp, x):
    return xp.sign(x) * xp.floor(xp.abs(x) + 0.5)


def _fill_coordinate(xp, coord, size, fill_mode):
    """TensorFlow's coordinate mapping for each fill mode (float coordinates)."""
    if fill_mode == "constant":
        return coord
    if fill_mode == "nearest" or size <= 1:
        return xp.clip(coord, 0, size - 1) if size > 1 else xp.zeros_like(coord)
    if fill_mode == "reflect":
        size2 = 2.0 * size
        low = coord < 0
        c = xp.where(low & (coord < -size2), size2 * xp.trunc(-coord / size2) + coord, coord)
        c = xp.where(low, xp.where(c < -size, c + size2, -c - 1), c)
        high = coord > size - 1
        h = coord - size2 * xp.trunc(coord / size2)
        h = xp.where(h >= size, size2 - h - 1, h)
        c = xp.where(high, h, c)
        return xp.clip(c, 0, size - 1)
    span = size - 1.0   # wrap
    low = coord < 0
    c = xp.where(low, coord + size * (xp.trunc(-coord / span) + 1), coord)
    high = coord > size - 1
    c = xp.where(high, coord - size * xp.trunc(coord / span), c)
    return xp.clip(c, 0, size - 1)


def _read(xp, array, y, x, fill):
    """array[b, y, x, :] where (y, x) is inside the image, else `fill`."""
    batch, height, width, _ = array.shape
    yi, xi = y.astype("int64"), x.astype("int64")
    inside = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width)
    b = xp.arange(batch)[:, None, None]
    values = array[b, xp.clip(yi, 0, height - 1), xp.clip(xi, 0, width - 1)].astype("float32")
    return xp.where(inside[..., None], values, fill)


# map_coordinates -------------------------------------------------------------------------
@keras_op
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Samples `inputs` at `coordinates` (one array of positions per input axis).

    Args:
        inputs: N-D tensor.
        coordinates: array of shape (N, ...) of positions.
        order: 0 (nearest, half to even as `tf.round`) or 1 (linear).
        fill_mode: "constant", "nearest", "wrap", "mirror" or "reflect".
        fill_value: value outside for "constant".

    Returns:
        Tensor of shape `coordinates.shape[1:]` and the input dtype.
    """
    inputs = _tensor(inputs)
    xp = inputs._device.xp
    array = inputs._value
    coords = xp.asarray(_tensor(coordinates)._value)
    if coords.shape[0] != array.ndim:
        raise ValueError("First dim of `coordinates` must be the "
                         "same as the rank of `inputs`. Received inputs with shape: "
                         f"{tuple(array.shape)} and coordinate leading dim of {coords.shape[0]}")
    if coords.ndim < 2:
        raise ValueError("Invalid coordinates rank: expected at "
                         f"least rank 2. Received input with shape: {tuple(coords.shape)}")
    if fill_mode not in MAP_COORDINATES_FILL_MODES:
        raise ValueError("ops.image.map_coordinates: invalid value for argument `fill_mode`. "
                         f"Expected one of {MAP_COORDINATES_FILL_MODES}. Received: "
                         f"fill_mode={fill_mode}")
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    weight_dtype = coords.dtype if coords.dtype.kind == "f" else np.dtype("float32")
    axes = [_interpolation_nodes(xp, c, order, weight_dtype) for c in coords]
    result = 0
    for combo in _product(axes):
        indices, valid, weight = [], None, 1
        for (index, w), size in zip(combo, array.shape):
            safe, ok = _map_index(xp, index, size, fill_mode)
            indices.append(safe)
            valid = ok if valid is None else (valid & ok)
            weight = weight * w
        gathered = array[tuple(indices)].astype(weight_dtype)
        if fill_mode == "constant":
            gathered = xp.where(valid, gathered, xp.asarray(fill_value, dtype=weight_dtype))
        result = result + weight * gathered
    if array.dtype.kind in "iu":
        result = xp.round(result)
    return _result(xp.asarray(result).astype(array.dtype), inputs)


def _product(axes):
    combos = [[]]
    for nodes in axes:
        combos = [c + [n] for c in combos for n in nodes]
    return combos


def _interpolation_nodes(xp, coordinate, order, dtype):
    if order == 0:
        rounded = coordinate if coordinate.dtype.kind in "iu" else xp.round(coordinate)
        return [(rounded.astype("int64"), xp.asarray(1, dtype=dtype))]
    lower = xp.floor(coordinate)
    upper_weight = (coordinate - lower).astype(dtype)
    index = lower.astype("int64")
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def _map_index(xp, index, size, fill_mode):
    everywhere = xp.ones(index.shape, dtype=bool)
    if fill_mode == "constant":
        return xp.clip(index, 0, size - 1), (index >= 0) & (index < size)
    if fill_mode == "nearest":
        return xp.clip(index, 0, size - 1), everywhere
    if fill_mode == "wrap":
        return xp.mod(index, size), everywhere
    if fill_mode == "mirror":
        # scipy's "mirror" (d c b | a b c d | c b a); Keras's TensorFlow backend fails here.
        if size == 1:
            return xp.zeros_like(index), everywhere
        period = 2 * (size - 1)
        return xp.abs((index + size - 1) % period - (size - 1)), everywhere
    coords = xp.abs(index)     # "reflect", exactly as Keras's TensorFlow backend
    mod = xp.mod(coords, 2 * size)
    under = mod < size
    coords = xp.where(under, mod, 2 * size - mod)
    return xp.clip(xp.where(~under, coords - 1, coords), 0, size - 1), everywhere


# patches, crops and pads ------------------------------------------------------------------
@keras_op
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Extracts patches as the channel axis: output (..., rows, cols, ph * pw * C).

    Args:
        images: rank 3 or 4 tensor (rank 4 or 5 volumes with a 3-element `size`).
        size: int or (height, width) of the patches; (depth, height, width) hands
            over to `extract_patches_3d`, as Keras.
        strides: step between patches (default: `size`).
        dilation_rate: spacing of the pixels inside a patch.
        padding: "valid" or "same".
        data_format: "channels_last" or "channels_first".

    Returns:
        Tensor of patches, each flattened in (row, column, channel) order.
    """
    if not isinstance(size, int) and isinstance(size, (tuple, list)) and \
            len(size) not in (2, 3):
        raise ValueError("Invalid `size` argument. Expected a tuple of length 2 or 3. "
                         f"Received: size={size} with length {len(size)}")
    if isinstance(size, (tuple, list)) and len(size) == 3:
        # as Keras: a 3-element size means volumes
        return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    data_format = _data_format(data_format)
    images = _tensor(images)
    _check_rank("extract_patches", images)
    size = (size, size) if isinstance(size, int) else tuple(size)
    if len(size) != 2:
        raise TypeError("ops.image.extract_patches: invalid `size` argument. Expected an int "
                        f"or a tuple of length 2. Received: size={size}")
    strides = size if strides is None else ((strides, strides) if isinstance(strides, int)
                                            else tuple(strides))
    if padding.lower() not in ("valid", "same"):
        raise ValueError("ops.image.extract_patches: `padding` must be 'valid' or 'same'. "
                         f"Received: padding={padding!r}")
    refuse_strided_dilation(strides, dilation_rate, 2)  # Keras extracts with ops.conv
    xp = images._device.xp
    array = images._value
    single = array.ndim == 3
    array = _to_channels_last(array[None] if single else array, data_format)
    out = _patches(xp, array, size, strides, dilation_rate, padding.lower())
    out = _from_channels_last(out, data_format)
    return _result(out[0] if single else out, images)


def _patches(xp, array, size, strides, dilation, padding):
    _, height, width, channels = array.shape
    eff_h, eff_w = (size[0] - 1) * dilation + 1, (size[1] - 1) * dilation + 1
    if padding == "same":
        out_h, out_w = -(-height // strides[0]), -(-width // strides[1])
        pad_h = max((out_h - 1) * strides[0] + eff_h - height, 0)
        pad_w = max((out_w - 1) * strides[1] + eff_w - width, 0)
        array = xp.pad(array, ((0, 0), (pad_h // 2, pad_h - pad_h // 2),
                               (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
    else:
        out_h = (height - eff_h) // strides[0] + 1
        out_w = (width - eff_w) // strides[1] + 1
    rows = (xp.arange(out_h) * strides[0])[:, None] + xp.arange(size[0]) * dilation
    cols = (xp.arange(out_w) * strides[1])[:, None] + xp.arange(size[1]) * dilation
    patches = array[:, rows[:, None, :, None], cols[None, :, None, :], :]
    return patches.reshape(array.shape[0], out_h, out_w, size[0] * size[1] * channels)


def _check_two_of_three(kind, top, left, bottom, right, target_height, target_width):
    """Keras's `_validate_{pad,crop}_images_args`: exactly two of each triple given,
    none negative (its texts, in its order)."""
    triples = (((f"top_{kind}", top), (f"bottom_{kind}", bottom),
                ("target_height", target_height)),
               ((f"left_{kind}", left), (f"right_{kind}", right),
                ("target_width", target_width)))
    for triple in triples:
        if [value for _, value in triple].count(None) != 1:
            names = ", ".join(name for name, _ in triple)
            given = ", ".join(f"{name}={value}" for name, value in triple)
            raise ValueError(f"Must specify exactly two of {names}. Received: {given}")
    for name, value in triples[0] + triples[1]:
        _check_non_negative(name, value)


def _check_non_negative(name, value):
    if value is not None and value < 0:
        raise ValueError(f"{name} must be >= 0. Received: {name}={value}")


@keras_op
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """Crops images to a box given by offsets and a target size (or both margins).

    Exactly two of (top_cropping, bottom_cropping, target_height) and two of
    (left_cropping, right_cropping, target_width) must be given, as in Keras.

    Returns:
        images[..., top:top + target_height, left:left + target_width, :].
    """
    data_format = _data_format(data_format)
    images = _tensor(images)
    _check_rank("crop_images", images)
    _check_two_of_three("cropping", top_cropping, left_cropping, bottom_cropping,
                        right_cropping, target_height, target_width)
    array = _to_channels_last(images._value, data_format)
    height, width = array.shape[-3], array.shape[-2]
    top = height - target_height - bottom_cropping if top_cropping is None else top_cropping
    out_h = height - bottom_cropping - top if target_height is None else target_height
    left = width - target_width - right_cropping if left_cropping is None else left_cropping
    out_w = width - right_cropping - left if target_width is None else target_width
    for name, value in (("top_cropping", top), ("target_height", out_h),
                        ("left_cropping", left), ("target_width", out_w)):
        _check_non_negative(name, value)
    if top + out_h > height or left + out_w > width:
        raise ValueError(f"ops.image.crop_images: the crop box (top={top}, left={left}, "
                         f"height={out_h}, width={out_w}) does not fit in images of height "
                         f"{height} and width {width}.")
    out = array[..., top:top + out_h, left:left + out_w, :]
    return _result(_from_channels_last(out, data_format), images)


@keras_op
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Zero-pads images to a target size (or by the given margins).

    Exactly two of (top_padding, bottom_padding, target_height) and two of
    (left_padding, right_padding, target_width) must be given, as in Keras.

    Returns:
        images placed at (top_padding, left_padding) in zeros of the target size.
    """
    data_format = _data_format(data_format)
    images = _tensor(images)
    _check_rank("pad_images", images)
    _check_two_of_three("padding", top_padding, left_padding, bottom_padding, right_padding,
                        target_height, target_width)
    xp = images._device.xp
    array = _to_channels_last(images._value, data_format)
    height, width = array.shape[-3], array.shape[-2]
    top = target_height - bottom_padding - height if top_padding is None else top_padding
    bottom = target_height - top - height if bottom_padding is None else bottom_padding
    left = target_width - right_padding - width if left_padding is None else left_padding
    right = target_width - left - width if right_padding is None else right_padding
    for name, value in (("top_padding", top), ("left_padding", left),
                        ("right_padding", right), ("bottom_padding", bottom)):
        _check_non_negative(name, value)
    pads = [(0, 0)] * (array.ndim - 3) + [(int(top), int(bottom)), (int(left), int(right)),
                                          (0, 0)]
    return _result(_from_channels_last(xp.pad(array, pads), data_format), images)


# colour --------------------------------------------------------------------------------------
def _channel_axis(images, data_format):
    return -1 if data_format == "channels_last" else -3


@keras_op
def rgb_to_grayscale(images, data_format=None):
    """Luma `0.2989 R + 0.5870 G + 0.1140 B`, keeping a channel axis of size 1.

    As Keras (TensorFlow backend): computed in `result_type(dtype, float)` (float32
    for integer images, the image's own float dtype otherwise), cast back to the input
    dtype (integer results truncated); a 1-channel image is returned unchanged.
    """
    data_format = _data_format(data_format)
    images = _tensor(images)
    _check_rank("rgb_to_grayscale", images)
    axis = _channel_axis(images, data_format)
    if images.shape[axis] not in (1, 3):
        raise ValueError("Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received "
                         f"input with shape: images.shape={images.shape}")
    if images.shape[axis] == 1:
        return images
    compute = dtypes.result_type(images.dtype, float)
    shape = [1] * images.ndim
    shape[axis] = 3
    weights = ops.convert_to_tensor([0.2989, 0.5870, 0.1140], compute)
    # TensorFlow's tensordot is a matmul: 16-bit floats accumulate in float32
    wide = "float32" if compute in ("float16", "bfloat16") else compute
    weights = ops.reshape(ops.cast(weights, wide), shape)
    gray = ops.sum(ops.cast(ops.cast(images, compute), wide) * weights, axis=axis, keepdims=True)
    return ops.cast(ops.cast(gray, compute), images.dtype)


@keras_op
def rgb_to_hsv(images, data_format=None):
    """RGB in [0, 1] to HSV in [0, 1] (TensorFlow's formulas). Float inputs only."""
    return _convert_colour(images, data_format, _rgb_to_hsv, "rgb_to_hsv")


@keras_op
def hsv_to_rgb(images, data_format=None):
    """HSV in [0, 1] to RGB in [0, 1] (TensorFlow's formulas). Float inputs only."""
    return _convert_colour(images, data_format, _hsv_to_rgb, "hsv_to_rgb")


def _convert_colour(images, data_format, fn, name):
    data_format = _data_format(data_format)
    images = _tensor(images)
    _check_rank(name, images)
    xp = images._device.xp
    array = images._value
    if not config.is_float_dtype(array.dtype):
        raise ValueError(f"Invalid images dtype: expected float dtype. "
                         f"Received: images.dtype={config.standardize_dtype(images.dtype)}")
    axis = _channel_axis(images, data_format)
    if array.shape[axis] != 3:
        raise ValueError(f"ops.image.{name}: expected 3 channels on axis {axis}, received "
                         f"images of shape {tuple(array.shape)}.")
    # bfloat16 is computed in float32 and cast back
    moved = xp.moveaxis(array if array.dtype.kind == "f" else array.astype("float32"), axis, -1)
    out = fn(xp, moved[..., 0], moved[..., 1], moved[..., 2])
    return _result(xp.moveaxis(xp.stack(out, -1).astype(array.dtype), -1, axis), images)


def _rgb_to_hsv(xp, r, g, b):
    """TensorFlow's RGBToHSV functor, operation for operation in the images' dtype."""
    value = xp.maximum(xp.maximum(r, g), b)
    spread = value - xp.minimum(xp.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        saturation = xp.where(value > 0, spread / value, 0)
        norm = (1 / spread) * (1.0 / 6.0)   # range.inverse() * (T(1) / T(6))
        hue = xp.where(r == value, norm * (g - b),
                       xp.where(g == value, norm * (b - r) + 2.0 / 6.0,
                                norm * (r - g) + 4.0 / 6.0))
    hue = xp.where(spread > 0, hue, 0)
    hue = xp.where(hue < 0, hue + 1, hue)
    return hue, saturation.astype(r.dtype), value


def _hsv_to_rgb(xp, h, s, v):
    """TensorFlow's HSVToRGB functor: clipped triangle waves of `6 h` per channel."""
    dh = h * 6
    waves = (xp.abs(dh - 3) - 1, -xp.abs(dh - 2) + 2, -xp.abs(dh - 4) + 2)
    one_s = -s + 1
    return [(one_s + s * xp.minimum(xp.maximum(wave, 0), 1)) * v for wave in waves]


# blur -----------------------------------------------------------------------------------------
@keras_op
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Blurs each channel with a Gaussian kernel ("same" zero padding), as Keras.

    As Keras's TensorFlow backend, the 2-D kernel is `outer(k_y, k_x)` (built from
    `kernel_size[1], sigma[1]` and `kernel_size[0], sigma[0]`) reshaped to
    `kernel_size`; for square kernels that is the usual separable Gaussian.

    Args:
        images: rank 3 or 4 float tensor.
        kernel_size: (height, width) of the kernel.
        sigma: (sigma_x, sigma_y).
        data_format: "channels_last" or "channels_first".
    """
    data_format = _data_format(data_format)
    images = _tensor(images)
    _check_rank("gaussian_blur", images)
    single = len(images.shape) == 3
    batch = ops.expand_dims(images, 0) if single else images
    if data_format == "channels_first":
        batch = ops.transpose(batch, (0, 2, 3, 1))
    # ints give float32; bfloat16 is computed in float32 and returned as bfloat16
    result_dtype = images.dtype if config.is_float_dtype(images.dtype) else "float32"
    dtype = result_dtype if result_dtype != "bfloat16" else "float32"
    kernel = _gaussian_kernel(kernel_size, sigma, dtype)
    kh, kw = kernel.shape
    pad_h, pad_w = kh - 1, kw - 1
    padded = ops.pad(ops.cast(batch, dtype), ((0, 0), (pad_h // 2, pad_h - pad_h // 2),
                                            (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
    height, width = batch.shape[1], batch.shape[2]
    # TensorFlow's float32 depthwise convolution (oneDNN's) adds the taps row by row, with
    # fused multiply-adds where the CPU has them (AVX2 and up): a float64 multiply-add
    # rounded to float32 gives the same bits
    kernel_isa = onednn_math.cpu_kernel()
    fused = dtype == "float32" and kernel_isa is not None and kernel_isa[1]
    wide = "float64" if fused else dtype
    out = None  # written with ops (shifted slices times weights): differentiable, as Keras's
    for i in range(kh):
        for j in range(kw):
            term = ops.multiply(ops.cast(padded[:, i:i + height, j:j + width, :], wide),
                                float(kernel[i, j]))
            out = ops.cast(term if out is None else ops.add(ops.cast(out, wide), term), dtype)
    out = ops.cast(out, result_dtype)
    if data_format == "channels_first":
        out = ops.transpose(out, (0, 3, 1, 2))
    return ops.squeeze(out, 0) if single else out


def _gaussian_kernel(kernel_size, sigma, dtype):
    """Keras's kernel, computed as its TensorFlow backend does, in `dtype`: `outer(k_y,
    k_x)` of normalized `exp(-0.5 * (x / sigma) ** 2)` (TensorFlow's exp)."""
    def one_d(size, s):
        x = ops.subtract(ops.arange(size, dtype=dtype), (size - 1) / 2)
        k = ops.exp(ops.multiply(-0.5, ops.square(ops.divide(x, ops.cast(s, dtype)))))
        return core.convert_to_numpy(ops.divide(k, ops.sum(k)))
    k_x = one_d(kernel_size[0], sigma[0])
    k_y = one_d(kernel_size[1], sigma[1])
    return np.outer(k_y, k_x).reshape(kernel_size[0], kernel_size[1])


def _ssim_kernel(size, sigma, dtype):
    """Keras's ssim window: `outer(g, g)` of normalized `exp(-(x ** 2) / (2 * sigma ** 2))`,
    in `dtype`."""
    x = ops.subtract(ops.arange(size, dtype=dtype), (size - 1) / 2.0)
    gauss = ops.exp(ops.divide(ops.negative(ops.square(x)), 2.0 * sigma ** 2))
    gauss = ops.divide(gauss, ops.sum(gauss))
    return ops.outer(gauss, gauss)


@keras_op
def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """Extracts 3-D patches as the channel axis: output (..., d, h, w, pd * ph * pw * C).

    As Keras 3.15.1: a 3-D convolution with an identity kernel, so the patch
    values come out in (depth, height, width, channel) order.

    Args:
        volumes: rank 4 (one volume) or 5 tensor.
        size: int or (depth, height, width) of the patches.
        strides: step between patches (default: `size`).
        dilation_rate: spacing of the voxels inside a patch.
        padding: "valid" or "same".
        data_format: "channels_last" or "channels_first".

    Example:
        >>> ops.image.extract_patches_3d(ops.ones((1, 4, 4, 4, 2)), 2).shape
        (1, 2, 2, 2, 16)
    """
    size = (size,) * 3 if isinstance(size, int) else tuple(size)
    if len(size) != 3:
        raise TypeError("ops.image.extract_patches_3d: invalid `size` argument. Expected an "
                        f"int or a tuple of length 3. Received: size={size}")
    strides = size if strides is None else strides
    strides = (strides,) * 3 if isinstance(strides, int) else tuple(strides)
    if len(strides) != 3:
        raise ValueError(f"ops.image.extract_patches_3d: invalid `strides` argument. "
                         f"Got: {strides}")
    volumes = _tensor(volumes)
    if len(volumes.shape) not in (4, 5):
        raise ValueError("ops.image.extract_patches_3d: expected a volume of rank 4 or a "
                         f"batch of rank 5. Received volumes.shape={tuple(volumes.shape)}")
    data_format = _data_format(data_format)
    channels = volumes.shape[-1 if data_format == "channels_last" else -4]
    out_dim = size[0] * size[1] * size[2] * channels
    kernel = ops.reshape(ops.eye(out_dim, dtype=volumes.dtype), size + (channels, out_dim))
    single = len(volumes.shape) == 4
    batch = ops.expand_dims(volumes, 0) if single else volumes
    patches = ops.conv(batch, kernel, strides=strides, padding=padding,
                       data_format=data_format, dilation_rate=dilation_rate)
    return ops.squeeze(patches, 0) if single else patches


_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                   [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], dtype="float64")


@keras_op
def sobel_edges(images, data_format=None):
    """Sobel gradients `[dy, dx]` of every channel: output `(..., channels, 2)`.

    As TensorFlow's `tf.image.sobel_edges` (Keras 3.15.1's TensorFlow backend):
    the images are reflect-padded by one pixel and correlated with the 3x3 Sobel
    kernels; channels_first gives `(batch, channels, height, width, 2)`.

    Args:
        images: rank 4 tensor.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> image = np.zeros((1, 4, 4, 1), "float32"); image[0, :, 2:] = 1.0
        >>> ops.image.sobel_edges(image)[0, 1, :, 0, 1]   # dx across the edge
        ... # [0., 4., 4., 0.]
    """
    data_format = _data_format(data_format)
    images = _tensor(images)
    if len(images.shape) != 4:
        raise ValueError("ops.image.sobel_edges: expected a batch of images of rank 4. "
                         f"Received images.shape={tuple(images.shape)}")
    xp = images._device.xp
    array = _to_channels_last(images._value, data_format)
    dtype = array.dtype if array.dtype.kind == "f" else np.dtype("float32")
    padded = xp.pad(array.astype(dtype), ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    height, width = array.shape[1], array.shape[2]
    edges = []
    for kernel in _SOBEL.astype(dtype):
        out = xp.zeros(array.shape, dtype=dtype)
        for i in range(3):
            for j in range(3):
                if kernel[i, j]:
                    out += kernel[i, j] * padded[:, i:i + height, j:j + width, :]
        edges.append(out)
    out = xp.stack(edges, axis=-1)
    if data_format == "channels_first":
        out = xp.transpose(out, (0, 3, 1, 2, 4))
    return _result(out, images)


# ssim -----------------------------------------------------------------------------------------
@keras_op
def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """Structural similarity (SSIM) of two images, one value per image pair.

    As Keras 3.15.1: each channel is filtered with an 11x11 (`filter_size`)
    Gaussian of `filter_sigma` ("valid" convolution), the SSIM map
    `(2 mu1 mu2 + c1)(2 sigma12 + c2) / ((mu1^2 + mu2^2 + c1)(sigma1^2 + sigma2^2 + c2))`
    with `c1 = (k1 max_val)^2`, `c2 = (k2 max_val)^2` is averaged over space,
    then over channels; the result takes `image1`'s dtype. Written with ops,
    so it is differentiable.

    Args:
        image1, image2: rank 3 (one image) or rank 4 (batch) tensors of one shape.
        max_val: the dynamic range of the pixel values (1.0, or 255.0).
        filter_size: size of the Gaussian window.
        filter_sigma: its standard deviation.
        k1, k2: the stabilizing constants.
        data_format: "channels_last" or "channels_first".

    Returns:
        a scalar for one image, else a `(batch,)` tensor.

    Example:
        >>> image = np.random.random((32, 32, 3)).astype("float32")
        >>> float(ops.image.ssim(image, image))   # identical images
        1.0
    """
    data_format = _data_format(data_format)
    for name, image in (("image1", image1), ("image2", image2)):
        if len(image.shape) not in (3, 4):
            raise ValueError(f"ops.image.ssim: invalid {name} rank: expected rank 3 (single "
                             "image) or rank 4 (batch of images). Received input with shape: "
                             f"{name}.shape={tuple(image.shape)}")
    if isinstance(image1, KerasTensor):
        return KerasTensor(() if len(image1.shape) == 3 else (image1.shape[0],), image1.dtype)
    image1, image2 = _tensor(image1), _tensor(image2)
    original_dtype = image1.dtype
    compute_dtype = original_dtype if config.is_float_dtype(original_dtype) else \
        config.floatx()
    x, y = ops.cast(image1, compute_dtype), ops.cast(image2, compute_dtype)
    single = len(x.shape) == 3
    if single:
        x, y = ops.expand_dims(x, 0), ops.expand_dims(y, 0)
    if data_format == "channels_first":
        x, y = ops.moveaxis(x, 1, -1), ops.moveaxis(y, 1, -1)
    batch, height, width, channels = x.shape
    kernel = ops.reshape(_ssim_kernel(filter_size, filter_sigma, compute_dtype),
                         (filter_size, filter_size, 1, 1))

    def blur(z):  # each channel as its own image: (B*C, H', W', 1)
        return ops.conv(z, kernel, strides=1, padding="valid", data_format="channels_last")

    x = ops.reshape(ops.transpose(x, (0, 3, 1, 2)), (-1, height, width, 1))
    y = ops.reshape(ops.transpose(y, (0, 3, 1, 2)), (-1, height, width, 1))
    mu1, mu2 = blur(x), blur(y)
    mu1_sq, mu2_sq, mu1_mu2 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    sigma1_sq = blur(x * x) - mu1_sq
    sigma2_sq = blur(y * y) - mu2_sq
    sigma12 = blur(x * y) - mu1_mu2
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    ssim_map = ((2.0 * mu1_mu2 + c1) * (2.0 * sigma12 + c2)) / \
        ((mu1_sq + mu2_sq + c1) * (sigma1_sq + sigma2_sq + c2))
    per_image = ops.mean(ops.reshape(ops.mean(ssim_map, axis=[1, 2, 3]), (batch, channels)),
                         axis=-1)
    if single:
        per_image = ops.squeeze(per_image, 0)
    return ops.cast(per_image, original_dtype)


# scale_and_translate --------------------------------------------------------------------------
SCALE_AND_TRANSLATE_METHODS = ("linear", "bilinear", "trilinear", "cubic", "bicubic", "tricubic",
                               "lanczos3", "lanczos5")
_SCALE_KERNELS = {"linear": _triangle, "cubic": _keys_cubic, "lanczos3": _lanczos(3.0),
                  "lanczos5": _lanczos(5.0)}


@keras_op
def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """Resamples `images` to `output_shape` with a scale and a translation per spatial axis.

    As Keras 3.15.1 (JAX's `scale_and_translate`): an input location `x` goes
    to `x * scale + translation` in the output (half-centred pixels); output
    pixels that map outside the input are 0. Each spatial axis is a matrix
    product with a weight matrix of the `method`'s kernel (stretched by
    `1 / scale` when downsampling with `antialias`), so it is differentiable
    in `images`. Integer images are rounded and clipped to their input range.

    Args:
        images: N-D tensor.
        output_shape: the output shape, one size per axis of `images`.
        scale: K scales, one per axis in `spatial_dims`.
        translation: K translations.
        spatial_dims: the K axes to resample.
        method: "linear"/"bilinear"/"trilinear", "cubic"/"bicubic"/"tricubic"
            (Keys cubic), "lanczos3" or "lanczos5".
        antialias: widen the kernel when downsampling.

    Returns:
        a tensor of `output_shape`, the dtype of `images`.

    Example:
        >>> images = np.arange(9, dtype="float32").reshape((3, 3))
        >>> ops.image.scale_and_translate(images, (5, 5), np.array([2.0, 2.0]),
        ...                               np.array([-0.5, -0.5]), (0, 1), "linear")[0]
        ... # [0.0, 0.5, 1.0, 1.5, 2.0]
    """
    if method not in SCALE_AND_TRANSLATE_METHODS:
        raise ValueError("ops.image.scale_and_translate: invalid value for argument `method`. "
                         f"Expected of one {set(SCALE_AND_TRANSLATE_METHODS)}. Received: "
                         f"method={method}")
    if isinstance(images, KerasTensor):
        return KerasTensor(tuple(output_shape), images.dtype)
    kernel = _SCALE_KERNELS["linear" if method in ("linear", "bilinear", "trilinear") else
                            "cubic" if method in ("cubic", "bicubic", "tricubic") else method]
    images = _tensor(images)
    scale, translation = np.asarray(_numpy(scale)), np.asarray(_numpy(translation))
    dtype = np.result_type(scale.dtype, translation.dtype)
    dtype = dtype if dtype.kind == "f" else np.dtype("float32")
    scale, translation = scale.astype(dtype).reshape(-1), translation.astype(dtype).reshape(-1)
    is_int = images.dtype in ("uint8", "int8", "uint16", "int16", "int32", "int64", "uint32")
    output = ops.cast(images, "float32") if is_int else images
    for i, axis in enumerate(spatial_dims):
        axis = axis % len(images.shape)
        weights = _scale_translate_matrix(images.shape[axis], output_shape[axis], scale[i],
                                          translation[i], kernel, antialias)
        weights = ops.convert_to_tensor(weights.astype(config.to_numpy_dtype(output.dtype)))
        output = ops.moveaxis(ops.tensordot(output, weights, axes=([axis], [0])), -1, axis)
    if is_int:
        output = ops.cast(ops.clip(ops.round(output), ops.min(images), ops.max(images)),
                          images.dtype)
    return output


def _numpy(x):
    return x._value if isinstance(x, Tensor) else x


def _scale_translate_matrix(in_size, out_size, scale, translation, kernel, antialias):
    """(in_size, out_size) weights of one axis, in the scale's dtype (Keras's TF code)."""
    dtype = scale.dtype
    one = dtype.type(1)
    inv_scale = one / scale
    kernel_scale = max(inv_scale, one) if antialias else one
    sample = (np.arange(out_size, dtype=dtype) + dtype.type(0.5)) * inv_scale \
        - translation * inv_scale - dtype.type(0.5)
    x = np.abs(sample[None, :] - np.arange(in_size, dtype=dtype)[:, None]) / kernel_scale
    weights = kernel(x).astype(dtype)
    total = weights.sum(axis=0, keepdims=True)
    weights = np.where(np.abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
                       weights / np.where(total != 0, total, 1), 0).astype(dtype)
    inside = (sample >= -0.5) & (sample <= dtype.type(in_size) - dtype.type(0.5))
    return np.where(inside[None, :], weights, 0).astype(dtype)


# perspective_transform ------------------------------------------------------------------------
@keras_op
def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """Warps images so that the four `start_points` land on the four `end_points`.

    As Keras 3.15.1's TensorFlow backend: the homography mapping output
    points to input points is solved (float32) from the point pairs and
    applied as `affine_transform`'s projective transform, with a constant fill.

    Args:
        images: rank 3 or 4 tensor.
        start_points: (4, 2) or (batch, 4, 2) `(x, y)` corners in the input.
        end_points: the same shape: where those corners go.
        interpolation: "nearest" or "bilinear".
        fill_value: value of pixels that come from outside the input.
        data_format: "channels_last" or "channels_first".

    Returns:
        a tensor of the input's shape and dtype.

    Example:
        >>> corners = np.array([[0, 0], [7, 0], [0, 7], [7, 7]], "float32")
        >>> same = ops.image.perspective_transform(np.ones((8, 8, 1)), corners, corners)
    """
    data_format = _data_format(data_format)
    if interpolation not in AFFINE_INTERPOLATIONS:
        raise ValueError("Invalid value for argument "
                         f"`interpolation`. Expected of one {AFFINE_INTERPOLATIONS}. Received: "
                         f"interpolation={interpolation}")
    _check_rank("perspective_transform", images)
    for name, points in (("start_points", start_points), ("end_points", end_points)):
        shape = tuple(points.shape) if hasattr(points, "shape") else np.shape(points)
        if len(shape) not in (2, 3) or shape[-2:] != (4, 2):
            raise ValueError(f"Invalid {name} shape: expected "
                             "(4,2) for a single image or (N,4,2) for a batch. Received shape: "
                             f"{shape}")
    if tuple(np.shape(start_points) if not hasattr(start_points, "shape") else
             start_points.shape) != tuple(np.shape(end_points) if not hasattr(end_points, "shape")
                                          else end_points.shape):
        raise ValueError("ops.image.perspective_transform: start_points and end_points must "
                         "have the same shape.")
    if isinstance(images, KerasTensor):
        return KerasTensor(images.shape, images.dtype)
    images = _tensor(images)
    xp = images._device.xp
    start = np.asarray(_numpy(start_points), dtype="float32").reshape(-1, 4, 2)
    end = np.asarray(_numpy(end_points), dtype="float32").reshape(-1, 4, 2)
    transform = xp.asarray(_homography(start, end))
    return _warp(images, transform, interpolation, "constant", fill_value, data_format)


def _homography(start, end):
    """(N, 8) projective transforms taking output (end) points to input (start) points."""
    rows, targets = [], []
    zeros, ones = np.zeros(start.shape[0], "float32"), np.ones(start.shape[0], "float32")
    for k in range(4):
        sx, sy = start[:, k, 0], start[:, k, 1]
        ex, ey = end[:, k, 0], end[:, k, 1]
        rows.append(np.stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], -1))
        rows.append(np.stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], -1))
        targets += [sx, sy]
    matrix = np.stack(rows, axis=1)
    return np.linalg.solve(matrix, np.stack(targets, -1)[..., None])[..., 0].astype("float32")


# elastic_transform ----------------------------------------------------------------------------
@keras_op
def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Displaces every pixel by a smooth random field (elastic deformation).

    As Keras 3.15.1's TensorFlow backend: a standard-normal field of shape
    (batch, height, width) times `sigma` is blurred with a Gaussian of
    `sigma` (kernel size `6 * int(sigma) | 1`) and scaled by `alpha`; the
    image is resampled at `(y + alpha * d, x + alpha * d)` with
    `map_coordinates`. Keras draws the x and y fields from the same seed, so
    they are equal (the displacement is along the diagonal); kerasish keeps
    that. The draws come from kerasish's generators, not TensorFlow's.

    Args:
        images: rank 3 or 4 float tensor.
        alpha: displacement scale.
        sigma: smoothness (standard deviation of the blur).
        interpolation: "nearest" or "bilinear".
        fill_mode: "constant", "nearest", "wrap" or "reflect".
        fill_value: value outside the image for "constant".
        seed: None, an int or a `keras.random.SeedGenerator`.
        data_format: "channels_last" or "channels_first".

    Returns:
        a tensor of the input's shape and dtype.

    Example:
        >>> images = np.random.random((2, 16, 16, 3)).astype("float32")
        >>> ops.image.elastic_transform(images, alpha=5.0, sigma=2.0, seed=1).shape
        (2, 16, 16, 3)
    """
    data_format = _data_format(data_format)
    if interpolation not in AFFINE_INTERPOLATIONS:
        raise ValueError("Invalid value for argument "
                         f"`interpolation`. Expected of one {AFFINE_INTERPOLATIONS}. Received: "
                         f"interpolation={interpolation}")
    if fill_mode not in AFFINE_FILL_MODES:
        raise ValueError("Invalid value for argument `fill_mode`. "
                         f"Expected of one {AFFINE_FILL_MODES}. Received: fill_mode={fill_mode}")
    _check_rank("elastic_transform", images)
    if isinstance(images, KerasTensor):
        return KerasTensor(images.shape, images.dtype)
    images = _tensor(images)
    dtype = images.dtype
    if not config.is_float_dtype(dtype):
        raise ValueError("ops.image.elastic_transform: expected float images (the random "
                         f"field is drawn in the images' dtype). Received dtype={dtype}")
    single = len(images.shape) == 3
    batch = ops.expand_dims(images, 0) if single else images
    array = _to_channels_last(batch._value, data_format)
    xp = images._device.xp
    n, height, width, channels = array.shape
    np_dtype = config.to_numpy_dtype(dtype)
    alpha, sigma = np_dtype.type(alpha), np_dtype.type(sigma)
    size = 6 * int(sigma) | 1
    normal = REGISTRY.lookup_public("random", "normal")
    field = normal((n, height, width, 1), dtype=dtype, seed=seed) * sigma
    field = gaussian_blur(field, kernel_size=(size, size), sigma=(float(sigma), float(sigma)),
                          data_format="channels_last")._value[..., 0]
    ys, xs = xp.meshgrid(xp.arange(height, dtype=np_dtype), xp.arange(width, dtype=np_dtype),
                         indexing="ij")
    order = AFFINE_INTERPOLATIONS.index(interpolation)
    out = xp.empty(array.shape, dtype=array.dtype)
    for b in range(n):  # the same field moves x and y (Keras draws both from one seed)
        coords = xp.stack([ys + alpha * field[b], xs + alpha * field[b]])
        for c in range(channels):
            out[b, ..., c] = map_coordinates(Tensor(array[b, ..., c], images._device),
                                             Tensor(coords, images._device), order,
                                             fill_mode=fill_mode, fill_value=fill_value)._value
    out = _from_channels_last(out, data_format)
    return _result(out[0] if single else out, images)
