"""`TakeDataset`, `SkipDataset` and `ShardDataset`."""
import itertools
from contextlib import closing

from kerasish.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.ops.base import UnaryDataset, check_positive

_UNSIZED = (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY)


class TakeDataset(UnaryDataset):
    """The first `count` elements; a negative count takes them all.

    Args:
        input_dataset: the upstream dataset.
        count: number of elements.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = int(count)

    def _iterator(self, ctx):
        if self._count == 0:
            return  # do not even start the upstream pipeline
        stop = None if self._count < 0 else self._count
        with closing(self._input._iterator(ctx)) as upstream:
            yield from itertools.islice(upstream, stop)

    def _cardinality(self):
        n = self._input.cardinality()
        if n == UNKNOWN_CARDINALITY or self._count < 0:
            return n
        if n == INFINITE_CARDINALITY:
            return self._count
        return min(n, self._count)


class SkipDataset(UnaryDataset):
    """All but the first `count` elements; a negative count skips them all.

    Args:
        input_dataset: the upstream dataset.
        count: number of elements to drop.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = int(count)

    def _iterator(self, ctx):
        with closing(self._input._iterator(ctx)) as upstream:
            if self._count < 0:
                for _ in upstream:
                    pass
                return
            yield from itertools.islice(upstream, self._count, None)

    def _cardinality(self):
        n = self._input.cardinality()
        if n in _UNSIZED:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)


class ShardDataset(UnaryDataset):
    """Elements `index, index + num_shards, index + 2 * num_shards, ...`.

    Args:
        input_dataset: the upstream dataset.
        num_shards: number of shards.
        index: this shard, in `[0, num_shards)`.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        self._num_shards = check_positive(num_shards, "num_shards")
        if not 0 <= int(index) < self._num_shards:
            raise ValueError(f"index must be in [0, {num_shards}), got {index}.")
        self._index = int(index)

    def _iterator(self, ctx):
        with closing(self._input._iterator(ctx)) as upstream:
            yield from itertools.islice(upstream, self._index, None, self._num_shards)

    def _cardinality(self):
        n = self._input.cardinality()
        if n in _UNSIZED:
            return n
        return n // self._num_shards + (1 if self._index < n % self._num_shards else 0)
