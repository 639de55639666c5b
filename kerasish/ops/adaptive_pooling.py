"""segment_prod and adaptive pooling (`keras.ops.segment_prod`, `keras.ops.nn.adaptive_*_pool`).

Adaptive pooling reproduces Keras 3.15's TensorFlow windows (see
`adaptive_windows`); both poolings are built from differentiable ops.
"""
import math

import numpy as np

from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.ops import core, elementwise as ew, linalg, reduction, manipulation as shape_ops
from kerasish.ops import creation
from kerasish.ops.conv import standardize_data_format
from kerasish.ops.indexing import take
from kerasish.ops.segment import _prepare, _symbolic_segment, segment_sum
from kerasish.ops.symbolic import keras_op


# ----------------------------------------------------------------------------- segment_prod

@keras_op
def segment_prod(data, segment_ids, num_segments=None, sorted=False):
    """Multiplies the rows of `data` that share a segment id (empty segments hold 1).

    The gradient is TensorFlow's: exact also when a segment holds zeros.

    Args:
        data: tensor (n, ...).
        segment_ids: int ids (n,); negative ids drop their row.
        num_segments: number of output rows (max id + 1 if None).
        sorted: accepted for Keras compatibility (ids need not be sorted).

    Returns:
        Tensor (num_segments, ...) of `data`'s dtype.

    Example:
        >>> ops.segment_prod(ops.convert_to_tensor([1.0, 2.0, 3.0]), [0, 0, 1])   # [2., 3.]
    """
    if data.__class__ is KerasTensor or segment_ids.__class__ is KerasTensor:
        return _symbolic_segment("segment_prod", core.convert_to_tensor(data),
                                 core.convert_to_tensor(segment_ids), num_segments)
    data, ids, keep, n = _prepare("segment_prod", data, segment_ids, num_segments)
    return SegmentProd(ids, n)(data)


class SegmentProd(Op):
    """Segment product; gradient `g[id] * prod / x` (zeros handled as TensorFlow does)."""

    name = "segment_prod"

    def __init__(self, ids, num_segments):
        self.ids = ids
        self.num_segments = num_segments

    def forward(self, device, data):
        xp = device.xp
        out = xp.ones((self.num_segments,) + data.shape[1:], dtype=data.dtype)
        for segment in np.unique(self.ids[self.ids >= 0]):
            rows = xp.asarray(np.nonzero(self.ids == segment)[0])
            out[int(segment)] = xp.prod(data[rows], axis=0)
        return out

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        data, out = saved
        kept = self.ids >= 0
        rows = np.where(kept, self.ids, 0)
        mask = kept.reshape((-1,) + (1,) * (data.ndim - 1)).astype(data.dtype)
        is_zero = ew.equal(data, 0)
        zeros = segment_sum(core.cast(is_zero, data.dtype), self.ids, self.num_segments)
        nonzero = ew.where(is_zero, creation.ones_like(data), data)
        nonzero_prod = segment_prod(nonzero, self.ids, self.num_segments)

        def per_row(t):
            return take(t, rows, axis=0)

        when_nonzero = ew.divide(per_row(out), nonzero)
        when_zero = ew.where(ew.equal(per_row(zeros), 1), per_row(nonzero_prod),
                             creation.zeros_like(data))
        local = ew.where(is_zero, when_zero, when_nonzero)
        return (ew.multiply(ew.multiply(per_row(g), local), mask),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        return ((self.num_segments,) + tuple(shape[1:]), dtype)


# ----------------------------------------------------------------------------- adaptive pooling

def adaptive_windows(length, output_size):
    """(start, size) of each output's window along an axis of `length`, as Keras's TF backend.

    Keras pools every position with two window sizes, `small = ceil(length /
    output_size)` and `small + 1`, and picks per output i (bin start
    `floor(i * length / output_size)`, bin end `ceil((i + 1) * length /
    output_size)`) the big window when the bin is that long, else the small
    window at the bin start; a small window that would run past the end is
    read from the big windows' part instead (the same index, shifted).

    Args:
        length: the input axis length.
        output_size: the number of outputs along the axis.

    Returns:
        list of (start, size) pairs, one per output.

    Example:
        >>> adaptive_windows(5, 3)
        [(0, 2), (1, 2), (3, 2)]
    """
    small = math.ceil(length / output_size)
    big = small + 1
    small_count = max(1, length - small + 1)
    windows = []
    for i in range(output_size):
        start = min(int(np.floor(np.float32(i) * np.float32(length) / np.float32(output_size))),
                    length - 1)
        end = min(int(np.ceil(np.float32(i + 1) * np.float32(length) / np.float32(output_size))),
                  length)
        index = start + small_count if end - start == big else start
        if index < small_count:
            windows.append((index, small))
        else:
            windows.append((index - small_count, big))
    for start, size in windows:
        if start + size > length:
            raise ValueError(f"Adaptive pooling: cannot pool an axis of length {length} to "
                             f"{output_size} outputs.")
    return windows


def _average_along(x, axis, windows, length):
    weights = np.zeros((len(windows), length), dtype=np.float64)
    for i, (start, size) in enumerate(windows):
        weights[i, start:start + size] = 1.0 / size
    matrix = core.convert_to_tensor(weights.astype(x.dtype))
    moved = shape_ops.moveaxis(x, axis, -1)
    pooled = linalg.matmul(moved, shape_ops.transpose(matrix))
    return shape_ops.moveaxis(pooled, -1, axis)


def _max_along(x, axis, windows, length):
    index = [slice(None)] * x.ndim
    parts = []
    for start, size in windows:
        index[axis] = slice(start, start + size)
        parts.append(reduction.max(x[tuple(index)], axis=axis))
    return shape_ops.stack(parts, axis=axis)


def _adaptive_pool(name, along, inputs, output_size, data_format):
    x = core.convert_to_tensor(inputs)
    data_format = standardize_data_format(data_format, f"ops.{name}")
    rank = x.ndim - 2
    if rank not in (1, 2, 3):
        raise ValueError(f"ops.{name}: expects 3-D, 4-D or 5-D inputs (batch, spatial..., "
                         f"channels); got {core.describe(x)}.")
    sizes = (output_size,) * rank if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != rank or not all(isinstance(s, (int, np.integer)) and s > 0 for s in sizes):
        raise ValueError(f"ops.{name}: `output_size` must be a positive int or a tuple of "
                         f"{rank} positive ints for {x.ndim}-D inputs; got "
                         f"output_size={output_size!r}.")
    first = 1 if data_format == "channels_last" else 2
    for i, size in enumerate(sizes):
        axis = first + i
        x = along(x, axis, adaptive_windows(x.shape[axis], int(size)), x.shape[axis])
    return x


@keras_op
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to a fixed spatial `output_size` (Keras 3.15's TF windows).

    Args:
        inputs: tensor (batch, spatial..., channels) (or channels first), 1-3 spatial axes.
        output_size: int or tuple with one int per spatial axis.
        data_format: "channels_last" or "channels_first" (None: the configured one).

    Returns:
        Tensor with the spatial axes of sizes `output_size`.

    Example:
        >>> ops.adaptive_average_pool(ops.ones((2, 10, 9, 3)), 4).shape
        (2, 4, 4, 3)
    """
    return _adaptive_pool("adaptive_average_pool", _average_along, inputs, output_size,
                          data_format)


@keras_op
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to a fixed spatial `output_size` (Keras 3.15's TF windows).

    Args:
        inputs: tensor (batch, spatial..., channels) (or channels first), 1-3 spatial axes.
        output_size: int or tuple with one int per spatial axis.
        data_format: "channels_last" or "channels_first" (None: the configured one).

    Returns:
        Tensor with the spatial axes of sizes `output_size`.

    Example:
        >>> ops.adaptive_max_pool(ops.ones((2, 10, 3)), 4).shape
        (2, 4, 3)
    """
    return _adaptive_pool("adaptive_max_pool", _max_along, inputs, output_size, data_format)
