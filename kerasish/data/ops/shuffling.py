"""`ShuffleDataset`: tf.data's buffer shuffle."""
import itertools
import threading
from contextlib import closing

import numpy as np

from kerasish.data.ops.base import UnaryDataset, check_positive


class ShuffleDataset(UnaryDataset):
    """Draws each output uniformly from a buffer of upcoming elements.

    The order differs from tf.data's for the same seed (tf uses its own
    random generator); it is reproducible for a given seed here.

    Args:
        input_dataset: the upstream dataset.
        buffer_size: buffer capacity.
        seed: int seed, or None for a random one drawn at construction.
        reshuffle_each_iteration: use a new order on every iteration.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, buffer_size, seed=None,
                 reshuffle_each_iteration=True):
        super().__init__(input_dataset)
        self._buffer_size = check_positive(buffer_size, "buffer_size")
        self._seed = int(seed) if seed is not None else int(
            np.random.SeedSequence().entropy % 2**63)
        self._reshuffle = reshuffle_each_iteration is None or bool(reshuffle_each_iteration)
        self._epochs = itertools.count()
        self._lock = threading.Lock()

    def _rng(self):
        with self._lock:
            epoch = next(self._epochs) if self._reshuffle else 0
        return np.random.default_rng([self._seed, epoch])

    def _iterator(self, ctx):
        rng = self._rng()
        with closing(self._input._iterator(ctx)) as upstream:
            buffer = list(itertools.islice(upstream, self._buffer_size))
            while buffer:
                index = int(rng.integers(len(buffer)))
                element = buffer[index]
                refill = next(upstream, _EMPTY)
                if refill is _EMPTY:
                    buffer[index] = buffer[-1]
                    buffer.pop()
                else:
                    buffer[index] = refill
                yield element


_EMPTY = object()
