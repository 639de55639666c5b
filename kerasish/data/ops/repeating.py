"""`RepeatDataset`."""
import itertools
from contextlib import closing

from kerasish.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.ops.base import UnaryDataset


class RepeatDataset(UnaryDataset):
    """Iterates the input `count` times (forever for None or negative).

    An input that turns out empty ends an infinite repeat instead of looping
    forever, as in tf.data.

    Args:
        input_dataset: the upstream dataset.
        count: repetitions; None or -1 for infinitely many.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, count=None):
        super().__init__(input_dataset)
        self._count = -1 if count is None else int(count)

    def _iterator(self, ctx):
        passes = itertools.count() if self._count < 0 else range(self._count)
        for _ in passes:
            produced = False
            with closing(self._input._iterator(ctx)) as upstream:
                for element in upstream:
                    produced = True
                    yield element
            if not produced:
                return

    def _cardinality(self):
        n = self._input.cardinality()
        if self._count < 0:
            return 0 if n == 0 else INFINITE_CARDINALITY
        if self._count == 0 or n == 0:
            return 0
        if n in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return n
        return n * self._count
