"""`PrefetchDataset`: production on a background thread."""
from kerasish.data.background import BackgroundIterator
from kerasish.data.ops.base import UnaryDataset


class PrefetchDataset(UnaryDataset):
    """Runs the upstream pipeline on a thread, `buffer_size` elements ahead.

    Args:
        input_dataset: the upstream dataset.
        buffer_size: a positive int, AUTOTUNE, or 0 (no prefetching).
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        if int(buffer_size) < -1:
            raise ValueError(f"buffer_size must be >= 0 or AUTOTUNE, got {buffer_size}.")
        self._buffer_size = int(buffer_size)

    def _iterator(self, ctx):
        if self._buffer_size == 0:
            return self._input._iterator(ctx)
        return self._prefetch(ctx)

    def _prefetch(self, ctx):
        background = BackgroundIterator(lambda: self._input._iterator(ctx),
                                        self._buffer_size)
        try:
            yield from background
        finally:
            background.close()
