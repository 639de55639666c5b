"""`WindowDataset`: elements are windows, each a dataset."""
import collections
import itertools
from contextlib import closing

from kerasish.data import structure
from kerasish.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.ops.batching import stack_leaves
from kerasish.data.ops.base import UnaryDataset, check_positive
from kerasish.data.ops.sources import TensorSliceDataset
from kerasish.data.tensor_spec import DatasetSpec


class WindowDataset(UnaryDataset):
    """Sliding windows over the input, as in tf.data.

    A window holds the elements at `start + j * stride` for `j < size`;
    successive windows start `shift` elements apart. Without
    `drop_remainder`, the windows that would run past the end are emitted
    shortened. Each component of the element becomes its own dataset.

    Args:
        input_dataset: the upstream dataset.
        size: elements per window.
        shift: distance between window starts (default `size`).
        stride: step inside a window.
        drop_remainder: drop incomplete windows.
    """

    def __init__(self, input_dataset, size, shift=None, stride=1, drop_remainder=False):
        super().__init__(input_dataset)
        self._size = check_positive(size, "size")
        self._shift = self._size if shift is None else check_positive(shift, "shift")
        self._stride = check_positive(stride, "stride")
        self._drop_remainder = bool(drop_remainder)

    @property
    def _span(self):
        return (self._size - 1) * self._stride + 1

    def _iterator(self, ctx):
        buffer = collections.deque()
        with closing(self._input._iterator(ctx)) as upstream:
            while True:
                buffer.extend(itertools.islice(upstream, self._span - len(buffer)))
                if not buffer or (self._drop_remainder and len(buffer) < self._span):
                    return
                yield _window_datasets(list(buffer)[::self._stride][:self._size])
                dropped = min(self._shift, len(buffer))
                for _ in range(dropped):
                    buffer.popleft()
                for _ in itertools.islice(upstream, self._shift - dropped):
                    pass  # shift > window span: skip the gap between windows

    def _cardinality(self):
        n = self._input.cardinality()
        if n in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return n
        if self._drop_remainder:
            return max(0, (n - self._span) // self._shift + 1)
        return -(-n // self._shift)

    def _compute_element_spec(self):
        return structure.map_structure(DatasetSpec, self._input.element_spec)


def _window_datasets(elements):
    columns = zip(*(structure.flatten(e) for e in elements))
    datasets = [TensorSliceDataset(stack_leaves(list(c))) for c in columns]
    return structure.pack_as(elements[0], datasets)
