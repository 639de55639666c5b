"""Patch rearrangements: unfold (im2col), fold (col2im), depth_to_space, space_to_depth.

All are compositions of differentiable slicing, stacking, reshaping and
segment sums, so their gradients (and second order) come from those ops.
"""
import numpy as np

from kerasish.ops import core, layout, manipulation as shape_ops
from kerasish.ops.segment import segment_sum
from kerasish.ops.symbolic import keras_op


def _pair(name, arg, value):
    pair = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(pair) != 2 or any(not isinstance(v, (int, np.integer)) for v in pair):
        raise ValueError(f"ops.{name}: `{arg}` must be an int or a pair of ints. "
                         f"Received: {arg}={value!r}")
    return tuple(int(v) for v in pair)


def _geometry(name, spatial, kernel_size, dilation, padding, stride):
    """Kernel, dilation, padding, stride pairs and the (rows, cols) of patch positions."""
    k = _pair(name, "kernel_size", kernel_size)
    d = _pair(name, "dilation", dilation)
    p = _pair(name, "padding", padding)
    s = _pair(name, "stride", stride)
    out = tuple((spatial[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2))
    if min(out) < 1:
        raise ValueError(f"ops.{name}: the kernel {k} (dilation {d}) does not fit the padded "
                         f"input of spatial shape {tuple(spatial)} with padding {p}.")
    return k, d, p, s, out


@keras_op
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding patches of a `(N, C, H, W)` tensor as columns (im2col, torch's `unfold`).

    Args:
        x: tensor `(N, C, H, W)`.
        kernel_size: int or (kh, kw).
        dilation: int or pair, spacing of kernel taps.
        padding: int or pair of zeros added on both sides.
        stride: int or pair.

    Returns:
        Tensor `(N, C * kh * kw, L)`: row `c * kh * kw + i * kw + j` holds tap
        (i, j) of channel c for each of the L patch positions (row-major).

    Example:
        >>> ops.unfold(ops.reshape(ops.arange(8.0), (1, 1, 2, 4)), 2).shape
        (1, 4, 3)
    """
    x = core.convert_to_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"ops.unfold: expects a 4D input (N, C, H, W). "
                         f"Received: x.shape = {tuple(x.shape)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw), (oh, ow) = _geometry(
        "unfold", x.shape[2:], kernel_size, dilation, padding, stride)
    if ph or pw:
        x = layout.pad(x, [(0, 0), (0, 0), (ph, ph), (pw, pw)])
    taps = [x[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
            for i in range(kh) for j in range(kw)]
    cols = shape_ops.stack(taps, axis=2)
    return shape_ops.reshape(cols, (x.shape[0], x.shape[1] * kh * kw, oh * ow))


@keras_op
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns of patches back into an image (col2im, torch's `fold`; adjoint of `unfold`).

    Args:
        x: tensor `(N, C * kh * kw, L)` as `unfold` returns.
        output_size: (H, W) of the image.
        kernel_size, dilation, padding, stride: as in `unfold`.

    Returns:
        Tensor `(N, C, H, W)`; overlapping taps add up.

    Example:
        >>> patches = ops.unfold(ops.ones((1, 1, 4, 4)), 2, stride=2)
        >>> ops.fold(patches, (4, 4), 2, stride=2).shape
        (1, 1, 4, 4)
    """
    x = core.convert_to_tensor(x)
    height, width = _pair("fold", "output_size", output_size)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw), (oh, ow) = _geometry(
        "fold", (height, width), kernel_size, dilation, padding, stride)
    if x.ndim != 3 or x.shape[1] % (kh * kw) or x.shape[2] != oh * ow:
        raise ValueError(f"ops.fold: expects a 3D input (N, C * {kh * kw}, {oh * ow}) for kernel "
                         f"{(kh, kw)} and output_size {(height, width)}. "
                         f"Received: x.shape = {tuple(x.shape)}")
    batch, channels = x.shape[0], x.shape[1] // (kh * kw)
    hp, wp = height + 2 * ph, width + 2 * pw
    i, j, r, c = np.meshgrid(np.arange(kh), np.arange(kw), np.arange(oh), np.arange(ow),
                             indexing="ij")
    target = ((i * dh + r * sh) * wp + (j * dw + c * sw)).reshape(-1)
    rows = shape_ops.reshape(x, (batch * channels, kh * kw * oh * ow))
    summed = segment_sum(shape_ops.transpose(rows), target.astype("int32"), hp * wp)
    image = shape_ops.reshape(shape_ops.transpose(summed), (batch, channels, hp, wp))
    return image[:, :, ph:ph + height, pw:pw + width]


def _check_block(name, block_size, data_format):
    if not isinstance(block_size, (int, np.integer)) or block_size < 2:
        raise ValueError(f"ops.{name}: `block_size` must be at least 2. "
                         f"Received: block_size={block_size}")
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"ops.{name}: `data_format` must be 'channels_last' or "
                         f"'channels_first'. Received: data_format={data_format!r}")


@keras_op
def depth_to_space(x, block_size, data_format="channels_last"):
    """Moves channel blocks into `block_size x block_size` spatial tiles (TF's DCR order).

    Args:
        x: 4-D tensor; channels divisible by `block_size ** 2`.
        block_size: the tile size (>= 2).
        data_format: "channels_last" (N, H, W, C) or "channels_first" (N, C, H, W).

    Returns:
        Tensor with H and W multiplied and C divided by `block_size ** 2`.

    Example:
        >>> ops.depth_to_space(ops.ones((1, 2, 2, 12)), 2).shape
        (1, 4, 4, 3)
    """
    _check_block("depth_to_space", block_size, data_format)
    x = core.convert_to_tensor(x)
    b = int(block_size)
    channel_axis = 3 if data_format == "channels_last" else 1
    if x.ndim != 4 or x.shape[channel_axis] % (b * b):
        raise ValueError(f"ops.depth_to_space: expects a 4-D input whose channels divide by "
                         f"block_size**2={b * b}. Received: x.shape = {tuple(x.shape)}")
    if data_format == "channels_last":
        n, h, w, c = x.shape
        x = shape_ops.reshape(x, (n, h, w, b, b, c // (b * b)))
        x = shape_ops.transpose(x, (0, 1, 3, 2, 4, 5))
        return shape_ops.reshape(x, (n, h * b, w * b, c // (b * b)))
    n, c, h, w = x.shape
    x = shape_ops.reshape(x, (n, b, b, c // (b * b), h, w))
    x = shape_ops.transpose(x, (0, 3, 4, 1, 5, 2))
    return shape_ops.reshape(x, (n, c // (b * b), h * b, w * b))


@keras_op
def space_to_depth(x, block_size, data_format="channels_last"):
    """Moves `block_size x block_size` spatial tiles into channels (inverse of `depth_to_space`).

    Args:
        x: 4-D tensor; H and W divisible by `block_size`.
        block_size: the tile size (>= 2).
        data_format: "channels_last" (N, H, W, C) or "channels_first" (N, C, H, W).

    Returns:
        Tensor with H and W divided and C multiplied by `block_size ** 2`.

    Example:
        >>> ops.space_to_depth(ops.ones((1, 4, 4, 3)), 2).shape
        (1, 2, 2, 12)
    """
    _check_block("space_to_depth", block_size, data_format)
    x = core.convert_to_tensor(x)
    b = int(block_size)
    spatial = x.shape[1:3] if data_format == "channels_last" else x.shape[2:4]
    if x.ndim != 4 or spatial[0] % b or spatial[1] % b:
        raise ValueError(f"ops.space_to_depth: expects a 4-D input whose height and width divide "
                         f"by block_size={b}. Received: x.shape = {tuple(x.shape)}")
    if data_format == "channels_last":
        n, h, w, c = x.shape
        x = shape_ops.reshape(x, (n, h // b, b, w // b, b, c))
        x = shape_ops.transpose(x, (0, 1, 3, 2, 4, 5))
        return shape_ops.reshape(x, (n, h // b, w // b, b * b * c))
    n, c, h, w = x.shape
    x = shape_ops.reshape(x, (n, c, h // b, b, w // b, b))
    x = shape_ops.transpose(x, (0, 3, 5, 1, 2, 4))
    return shape_ops.reshape(x, (n, b * b * c, h // b, w // b))
