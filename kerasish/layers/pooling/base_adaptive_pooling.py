"""Adaptive pooling: pools to a fixed output size, with Keras 3.15's (TensorFlow) windows."""
import math

import numpy as np

from kerasish import config, ops
from kerasish.layers.layer import Layer


def adaptive_windows(length, output_size):
    """(start, size) of each output's window along an axis of `length`, as Keras's TF backend.

    Keras pools every position with two window sizes, `small = ceil(length /
    output_size)` and `small + 1`, and picks per output i (bin start
    `floor(i * length / output_size)`, bin end `ceil((i + 1) * length /
    output_size)`) the big window when the bin is that long, else the small
    window at the bin start; a small window that would run past the end is
    read from the big windows' part instead (the same index, shifted).

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
    matrix = ops.convert_to_tensor(weights.astype(x.dtype))
    moved = ops.moveaxis(x, axis, -1)
    pooled = ops.matmul(moved, ops.transpose(matrix))
    return ops.moveaxis(pooled, -1, axis)


def _max_along(x, axis, windows, length):
    index = [slice(None)] * x.ndim
    parts = []
    for start, size in windows:
        index[axis] = slice(start, start + size)
        parts.append(ops.max(x[tuple(index)], axis=axis))
    return ops.stack(parts, axis=axis)


class BaseAdaptivePooling(Layer):
    """Pools each spatial axis to `output_size` (average or max); subclasses set `rank`, `mode`."""

    rank = None
    mode = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        if isinstance(output_size, int):
            output_size = (output_size,) * self.rank
        output_size = tuple(output_size)
        if len(output_size) != self.rank or not all(
                isinstance(n, int) and n > 0 for n in output_size):
            raise ValueError(f"{name}: `output_size` must be a positive int or a tuple of "
                             f"{self.rank} positive ints. Received: output_size={output_size}")
        self.output_size = output_size
        self.data_format = data_format or config.image_data_format()
        if self.data_format not in {"channels_first", "channels_last"}:
            raise ValueError(f"{name}: invalid data_format: {self.data_format}. Expected "
                             "'channels_first' or 'channels_last'.")
        self.built = True

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        if x.ndim != self.rank + 2:
            raise ValueError(f"{type(self).__name__} expects {self.rank + 2}-D inputs; received "
                             f"shape {x.shape}.")
        first = 1 if self.data_format == "channels_last" else 2
        along = _average_along if self.mode == "average" else _max_along
        for i, size in enumerate(self.output_size):
            axis = first + i
            x = along(x, axis, adaptive_windows(x.shape[axis], size), x.shape[axis])
        return x

    def compute_output_shape(self, input_shape):
        if self.data_format == "channels_last":
            return (input_shape[0], *self.output_size, input_shape[-1])
        return (input_shape[0], input_shape[1], *self.output_size)

    def get_config(self):
        config_dict = super().get_config()
        config_dict.update({"output_size": self.output_size, "data_format": self.data_format})
        return config_dict
