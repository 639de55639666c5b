"""Batching: `BatchDataset`, `PaddedBatchDataset`, `UnbatchDataset`,
`RebatchDataset`."""
import itertools
from contextlib import closing

import numpy as np

from kerasish.data import structure, workers
from kerasish.data.autotune import resolve_parallelism
from kerasish.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.ops.base import UnaryDataset, check_positive
from kerasish.data.tensor_spec import TensorSpec, as_shape


def stack_leaves(leaves, position=0):
    """Stacks one component of a batch (`bytes` leaves give an object array).

    Args:
        leaves: the component's value in each element.
        position: the component's index, for error messages.

    Returns:
        An array with a new leading batch dimension.
    """
    if isinstance(leaves[0], (bytes, str)):
        return np.array(leaves, dtype=object)
    shapes = {np.shape(leaf) for leaf in leaves}
    if len(shapes) > 1:
        raise ValueError(f"Cannot batch tensors with different shapes in component "
                         f"{position}: got shapes {sorted(shapes)}. Use padded_batch "
                         f"or map them to one shape first.")
    return np.stack(leaves)


def stack_elements(elements):
    """Stacks a list of same-structured elements into one batch element."""
    flat = [structure.flatten(e) for e in elements]
    stacked = [stack_leaves(list(column), i) for i, column in enumerate(zip(*flat))]
    return structure.pack_as(elements[0], stacked)


def _batch_cardinality(n, batch_size, drop_remainder):
    if n in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
        return n
    return n // batch_size if drop_remainder else -(-n // batch_size)


def _batched_spec(spec, batch_size, drop_remainder):
    size = batch_size if drop_remainder else None
    return structure.map_structure(lambda s: s.with_batch_dim(size), spec)


class BatchDataset(UnaryDataset):
    """Stacks `batch_size` consecutive elements.

    Args:
        input_dataset: the upstream dataset.
        batch_size: elements per batch.
        drop_remainder: drop a last, smaller batch.
        num_parallel_calls: stack on worker threads (None, int, AUTOTUNE).
    """

    def __init__(self, input_dataset, batch_size, drop_remainder=False,
                 num_parallel_calls=None):
        super().__init__(input_dataset)
        self._batch_size = check_positive(batch_size, "batch_size")
        self._drop_remainder = bool(drop_remainder)
        self._workers = resolve_parallelism(num_parallel_calls)

    def _groups(self, upstream):
        while True:
            group = list(itertools.islice(upstream, self._batch_size))
            if not group or (self._drop_remainder and len(group) < self._batch_size):
                return
            yield group

    def _stack(self, group):
        return stack_elements(group)

    def _iterator(self, ctx):
        with closing(self._input._iterator(ctx)) as upstream:
            groups = self._groups(upstream)
            if self._workers == 1:
                yield from map(self._stack, groups)
                return
            outcomes = workers.parallel_map(groups, self._stack, self._workers,
                                            name="kerasish-data-batch")
            with closing(outcomes):
                for ok, value in outcomes:
                    if not ok:
                        raise value
                    yield value

    def _cardinality(self):
        return _batch_cardinality(self._input.cardinality(), self._batch_size,
                                  self._drop_remainder)

    def _compute_element_spec(self):
        return _batched_spec(self._input.element_spec, self._batch_size,
                             self._drop_remainder)


class PaddedBatchDataset(BatchDataset):
    """Batches elements of different shapes, padding each component.

    Args:
        input_dataset: the upstream dataset.
        batch_size: elements per batch.
        padded_shapes: nested shapes matching the element structure; None
            (or None / -1 dims) pads to the longest in each batch.
        padding_values: nested padding scalars (default 0, b"" for bytes).
        drop_remainder: drop a last, smaller batch.
    """

    def __init__(self, input_dataset, batch_size, padded_shapes=None,
                 padding_values=None, drop_remainder=False):
        super().__init__(input_dataset, batch_size, drop_remainder)
        self._padded_shapes = padded_shapes
        self._padding_values = padding_values

    def _per_component(self, value, template, count):
        if value is None:
            return [None] * count
        if not structure.is_nested(template):
            return [value]
        return structure.flatten_up_to(template, value)

    def _stack(self, group):
        flat = [structure.flatten(e) for e in group]
        count = len(flat[0])
        shapes = self._per_component(self._padded_shapes, group[0], count)
        values = self._per_component(self._padding_values, group[0], count)
        columns = [_pad_and_stack(list(col), shape, value, i)
                   for i, (col, shape, value) in enumerate(zip(zip(*flat), shapes, values))]
        return structure.pack_as(group[0], columns)

    def _compute_element_spec(self):
        spec = self._input.element_spec
        flat = structure.flatten(spec)
        shapes = self._per_component(self._padded_shapes, spec, len(flat))
        size = self._batch_size if self._drop_remainder else None
        padded = [TensorSpec((size,) + _padded_spec_shape(s, p), s.dtype)
                  for s, p in zip(flat, shapes)]
        return structure.pack_as(spec, padded)


def _padded_spec_shape(spec, padded_shape):
    if padded_shape is None:
        return tuple(None for _ in spec.shape or ())
    return as_shape(padded_shape)


def _pad_and_stack(leaves, padded_shape, padding_value, position):
    if isinstance(leaves[0], (bytes, str)):
        return stack_leaves(leaves, position)
    arrays = [np.asarray(leaf) for leaf in leaves]
    ranks = {a.ndim for a in arrays}
    if len(ranks) > 1:
        raise ValueError(f"padded_batch: component {position} has elements of "
                         f"different ranks {sorted(ranks)}.")
    longest = np.max([a.shape for a in arrays], axis=0) if arrays[0].ndim else ()
    target = _target_shape(longest, padded_shape, arrays[0].ndim, position)
    fill = _padding_fill(arrays[0].dtype, padding_value)
    out = np.full((len(arrays),) + target, fill, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, d) for d in a.shape)] = a
    return out


def _target_shape(longest, padded_shape, rank, position):
    wanted = as_shape(padded_shape) if padded_shape is not None else (None,) * rank
    if len(wanted) != rank:
        raise ValueError(f"padded_batch: padded shape {wanted} of component {position} "
                         f"does not have the elements' rank {rank}.")
    target = []
    for dim, (want, have) in enumerate(zip(wanted, longest)):
        if want is not None and have > want:
            raise ValueError(f"padded_batch: component {position} has size {have} in "
                             f"dimension {dim}, larger than the padded size {want}.")
        target.append(int(have) if want is None else want)
    return tuple(target)


def _padding_fill(dtype, padding_value):
    if padding_value is None:
        return b"" if dtype.kind == "O" else 0
    return np.asarray(padding_value).item()


class UnbatchDataset(UnaryDataset):
    """Splits every element along its first dimension.

    Args:
        input_dataset: a dataset whose components share a first dimension.
    """

    def _iterator(self, ctx):
        with closing(self._input._iterator(ctx)) as upstream:
            for element in upstream:
                leaves = structure.flatten(element)
                sizes = {len(leaf) for leaf in leaves}
                if len(sizes) != 1:
                    raise ValueError(f"unbatch: components have different first "
                                     f"dimensions {sorted(sizes)}.")
                for i in range(sizes.pop()):
                    yield structure.pack_as(element, [leaf[i] for leaf in leaves])

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _compute_element_spec(self):
        return structure.map_structure(
            lambda s: TensorSpec(None if s.shape is None else s.shape[1:], s.dtype),
            self._input.element_spec)


class RebatchDataset(UnaryDataset):
    """`unbatch().batch(n)` without building single elements in between.

    Args:
        input_dataset: a batched dataset.
        batch_size: an int, or a list of sizes used round-robin.
        drop_remainder: drop a last batch smaller than its size.
    """

    def __init__(self, input_dataset, batch_size, drop_remainder=False):
        super().__init__(input_dataset)
        sizes = [batch_size] if np.ndim(batch_size) == 0 else list(batch_size)
        self._sizes = [check_positive(s, "batch_size") for s in sizes]
        self._drop_remainder = bool(drop_remainder)

    def _iterator(self, ctx):
        pending, have = [], 0
        sizes = itertools.cycle(self._sizes)
        want = next(sizes)
        with closing(self._input._iterator(ctx)) as upstream:
            for batch in upstream:
                pending.append(batch)
                have += len(structure.flatten(batch)[0])
                while have >= want:
                    out, pending = _split(_concat(pending), want)
                    have -= want
                    yield out
                    want = next(sizes)
        if have and not self._drop_remainder:
            yield _concat(pending)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _compute_element_spec(self):
        size = self._sizes[0] if self._drop_remainder and len(set(self._sizes)) == 1 \
            else None
        return structure.map_structure(
            lambda s: TensorSpec((size,) + (s.shape or (None,))[1:], s.dtype),
            self._input.element_spec)


def _concat(batches):
    if len(batches) == 1:
        return batches[0]
    return structure.map_structure(lambda *parts: np.concatenate(parts), *batches)


def _split(batch, size):
    head = structure.map_structure(lambda a: a[:size], batch)
    rest = structure.map_structure(lambda a: a[size:], batch)
    return head, [rest]
