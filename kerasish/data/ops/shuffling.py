"""`ShuffleDataset`: tf.data's buffer shuffle, with TensorFlow's random stream."""
import itertools
import threading
from contextlib import closing

import numpy as np

from kerasish.backend import devices, philox
from kerasish.data.ops.base import UnaryDataset, check_positive

_DEFAULT_GRAPH_SEED = 87654321
_MAX_INT32 = 2**31 - 1
_MASK = 0xFFFFFFFF


def tf_op_seeds(seed):
    """TensorFlow's `(seed, seed2)` of a dataset op given `seed` (`random_seed.get_seed`).

    With `keras.utils.set_random_seed(g)` it is `(g, seed)`, without it
    `(87654321, seed)`; `(0, 0)` becomes `(0, 2**31 - 1)`. Returns None for
    `seed=None` (TF then counts ops in the program; not reproduced).
    """
    if seed is None:
        return None
    global_seed = devices.global_seed()
    first = _DEFAULT_GRAPH_SEED if global_seed is None else int(global_seed) % _MAX_INT32
    pair = (first, int(seed) % _MAX_INT32)
    return (0, _MAX_INT32) if pair == (0, 0) else pair


def philox_words(seed, seed2):
    """The uint32 words TF's `SingleSampleAdapter<PhiloxRandom(seed, seed2)>`
    returns one by one: key = seed, counter = [0, 0, seed2], 4 words a block."""
    key_counter = ((seed & _MASK, seed >> 32), (0, 0, seed2 & _MASK, seed2 >> 32))
    blocks = 16
    done = 0
    while True:  # recompute from the start with twice the blocks: linear overall
        words = philox.random_words(np, key_counter, 1, blocks=blocks).reshape(-1)
        yield from words[done:].tolist()
        done, blocks = len(words), blocks * 2


class ShuffleDataset(UnaryDataset):
    """Draws each output uniformly from a buffer of upcoming elements.

    With a seed the orders are TensorFlow's (`tf.data.Dataset.shuffle`): the
    op's seed pair `tf_op_seeds(seed)` (so it depends on
    `keras.utils.set_random_seed`) seeds a Philox generator that gives each
    iteration two words, the seed pair of that iteration's Philox stream (with
    `reshuffle_each_iteration=False` every iteration uses the op's pair); each
    output takes `word % n` among the `n` buffered elements, in TF's ring
    buffer. Without a seed the pair is random.

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
        pair = tf_op_seeds(seed)
        if pair is None:
            entropy = np.random.SeedSequence().entropy
            pair = (int(entropy % 2**63), int((entropy >> 64) % 2**63))
        self._seeds = pair
        self._reshuffle = reshuffle_each_iteration is None or bool(reshuffle_each_iteration)
        self._epoch = 0  # iterations drawn so far
        self._lock = threading.Lock()

    def _words(self, seed_draws=1):
        """This iteration's stream of Philox words (TF's RandomSeedGenerator);
        the iteration counts `seed_draws` (see `IterationContext`)."""
        with self._lock:
            epoch = None
            if self._reshuffle:  # seed_draws=0 (an element_spec peek) draws nothing
                epoch = self._epoch
                self._epoch += seed_draws
        if epoch is None:
            return philox_words(*self._seeds)
        seeds = philox_words(*self._seeds)
        for _ in range(2 * epoch):
            next(seeds)
        return philox_words(next(seeds), next(seeds))

    def _iterator(self, ctx):
        words = self._words(ctx.seed_draws)
        size = self._buffer_size
        buffer = [None] * min(size, 1 << 16)
        start = end = 0  # buffered elements are buffer[start % size .. end % size)
        with closing(self._input._iterator(ctx)) as upstream:
            for element in itertools.islice(upstream, size):
                self._put(buffer, end % size, element)
                end += 1
            while end > start:
                index = (start + next(words) % (end - start)) % size
                element = buffer[index]
                buffer[index] = buffer[start % size]
                start += 1
                refill = next(upstream, _EMPTY)
                if refill is not _EMPTY:
                    self._put(buffer, end % size, refill)
                    end += 1
                yield element

    @staticmethod
    def _put(buffer, index, element):
        if index >= len(buffer):  # a huge buffer_size grows as it fills
            buffer.extend([None] * (index + 1 - len(buffer)))
        buffer[index] = element


_EMPTY = object()
