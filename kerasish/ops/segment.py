"""Segment reductions: segment_sum, segment_max, segment_min (Keras `ops.segment_*`).

Rows of `data` whose segment id is negative are dropped; empty segments
hold 0 (sum) or, as TensorFlow's unsorted segment max/min, the dtype's lowest
or highest finite value (max/min); with `sorted=True` (TensorFlow's sorted
kernels) they hold 0.
"""
import numpy as np

from kerasish.backend.config import finfo, is_float
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.indexing import _index_add, check_indices
from kerasish.ops.symbolic import keras_op


def _check_shapes(name, data_shape, ids_shape):
    """Keras's checks (and wording): 1-D ids, one per row of `data` (None: unknown)."""
    if len(ids_shape) != 1:
        raise ValueError(f"ops.{name}: Argument `segment_ids` should be an 1-D vector, got "
                         f"shape: {tuple(ids_shape)}.")
    if len(data_shape) and None not in (data_shape[0], ids_shape[0]) and \
            data_shape[0] != ids_shape[0]:
        raise ValueError(f"ops.{name}: Argument `segment_ids` and `data` should have same "
                         f"leading dimension. Got {tuple(ids_shape)} v.s. {tuple(data_shape)}.")


def _symbolic_segment(name, data, ids, num_segments):
    """The spec of a segment reduction on KerasTensors (Keras's checks and rule: the
    number of segments is unknown unless `num_segments` is given)."""
    _check_shapes(name, data.shape, ids.shape)
    n = None if num_segments is None else int(num_segments)
    return KerasTensor((n,) + tuple(data.shape[1:]), data.dtype)


def _prepare(name, data, segment_ids, num_segments):
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids)
    core.check_finite_input(name, ids._value)
    check_indices(name, ids._value)
    ids = core.convert_to_numpy(ids).astype(np.int64)
    if ids.ndim != 1:
        raise ValueError(f"ops.{name}: Argument `segment_ids` should be an 1-D vector, got "
                         f"shape: {ids.shape}. Consider flattening the input with "
                         "segment_ids.reshape((-1,)) and data.reshape((-1,) + "
                         "data.shape[segment_ids.ndim:]).")
    if ids.shape[0] != data.shape[0]:
        raise ValueError(f"ops.{name}: Argument `segment_ids` and `data` should have same "
                         f"leading dimension. Got {ids.shape} v.s. {tuple(data.shape)}.")
    if num_segments is None:
        num_segments = int(ids.max()) + 1 if ids.size else 0
    num_segments = int(num_segments)
    if ids.size and ids.max() >= num_segments:
        raise ValueError(f"ops.{name}: segment id {int(ids.max())} is out of range for "
                         f"num_segments={num_segments}.")
    keep = np.nonzero(ids >= 0)[0]
    return data, ids, keep, num_segments


@keras_op
def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    """Sums the rows of `data` that share a segment id.

    Args:
        data: tensor (n, ...).
        segment_ids: int ids (n,); negative ids drop their row.
        num_segments: number of output rows (max id + 1 if None).
        sorted: accepted for Keras compatibility (ids need not be sorted).

    Returns:
        Tensor (num_segments, ...).

    Example:
        >>> ops.segment_sum(ops.convert_to_tensor([1.0, 2.0, 3.0]), [0, 0, 1])   # [3., 3.]
    """
    if data.__class__ is KerasTensor or segment_ids.__class__ is KerasTensor:
        return _symbolic_segment("segment_sum", convert_to_tensor(data),
                                 convert_to_tensor(segment_ids), num_segments)
    data, ids, keep, n = _prepare("segment_sum", data, segment_ids, num_segments)
    rows = shape_ops.take(data, keep, axis=0) if keep.size != ids.size else data
    return _index_add(rows, (ids[keep],), (n,) + data.shape[1:])


def _segment_extreme(name, data, segment_ids, num_segments, largest, sorted_ids=False):
    if data.__class__ is KerasTensor or segment_ids.__class__ is KerasTensor:
        return _symbolic_segment(name, convert_to_tensor(data), convert_to_tensor(segment_ids),
                                 num_segments)
    data, ids, keep, n = _prepare(name, data, segment_ids, num_segments)
    dt = data._value.dtype
    if is_float(dt):  # TensorFlow fills with the lowest/highest finite value, not -inf/+inf
        info = finfo(dt)
        fill = info.min if largest else info.max
    else:
        info = np.iinfo(dt) if dt.kind in "iu" else None
        fill = (info.min if largest else info.max) if info else (not largest)
    return SegmentExtreme(name, largest, ids, keep, n, fill, bool(sorted_ids))(data)


class SegmentExtreme(Op):
    """Max or min per segment (raw int ids); ties share the gradient equally (TF's rule)."""

    def __init__(self, name, largest, ids, keep, n, fill, zero_empty=False):
        self.name, self.largest, self.ids, self.keep, self.n, self.fill = \
            name, largest, ids, keep, n, fill
        self.zero_empty = zero_empty  # TensorFlow's sorted kernels leave empty segments 0

    def forward(self, device, data):
        xp = device.xp
        value = xp.full((self.n,) + data.shape[1:], self.fill, dtype=data.dtype)
        ufunc = xp.maximum if self.largest else xp.minimum
        ufunc.at(value, xp.asarray(self.ids[self.keep]), data[xp.asarray(self.keep)])
        if self.zero_empty:
            empty = np.bincount(self.ids[self.keep], minlength=self.n)[:self.n] == 0
            value[xp.asarray(empty)] = 0
        return value

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        data, out = saved
        ids, xp = self.ids, data._device.xp
        safe_ids = np.where(ids >= 0, ids, 0)
        valid = Tensor(xp.asarray((ids >= 0).reshape((-1,) + (1,) * (data.ndim - 1))),
                       data._device)
        picked = ew.logical_and(ew.equal(data, shape_ops.take(out, safe_ids, axis=0)), valid)
        hits = core.cast(picked, g.dtype)
        count = segment_sum(hits, ids, self.n)
        share = ew.divide(g, ew.maximum(count, 1.0))
        return (ew.multiply(shape_ops.take(share, safe_ids, axis=0), hits),)


@keras_op
def segment_max(data, segment_ids, num_segments=None, sorted=False):
    """Maximum over the rows of `data` that share a segment id.

    Args:
        data: tensor (n, ...).
        segment_ids: int ids (n,); negative ids drop their row.
        num_segments: number of output rows (max id + 1 if None).
        sorted: as Keras on TensorFlow: True takes the sorted kernel, whose empty
            segments hold 0.

    Returns:
        Tensor (num_segments, ...); empty segments hold the dtype's lowest value
        (0 with `sorted=True`).

    Example:
        >>> ops.segment_max(ops.convert_to_tensor([1.0, 5.0, 3.0]), [0, 0, 1])   # [5., 3.]
    """
    return _segment_extreme("segment_max", data, segment_ids, num_segments, True, sorted)


@keras_op
def segment_min(data, segment_ids, num_segments=None, sorted=False):
    """Minimum over the rows of `data` that share a segment id (empty: the dtype's
    highest value; 0 with `sorted=True`, as TensorFlow).

    Example:
        >>> ops.segment_min(ops.convert_to_tensor([1.0, 5.0, 3.0]), [0, 0, 1])   # [1., 3.]
    """
    return _segment_extreme("segment_min", data, segment_ids, num_segments, False, sorted)
