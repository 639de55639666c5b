"""`PyDataset`: Keras 3's index-based dataset, with a parallel iterator."""
import collections
import concurrent.futures as cf
import multiprocessing

from kerasish.data import structure

_worker_dataset = None  # the PyDataset inside a worker process


class PyDataset:
    """Base class for datasets that produce batch `i` on request (Keras 3).

    Subclass it, call `super().__init__(**kwargs)`, and implement
    `__len__` (number of batches) and `__getitem__(index)` (one batch, for
    example `(x, y)` or `(x, y, sample_weight)`). Iterating the object
    fetches batches in order, `workers` at a time, keeping at most
    `max_queue_size` batches ready.

    Args:
        workers: number of threads (or processes) fetching batches.
        use_multiprocessing: fetch in spawned processes, for `__getitem__`s
            that hold the GIL; the object must then be picklable.
        max_queue_size: batches fetched ahead of the consumer.

    Example:
        >>> class Squares(PyDataset):
        ...     def __init__(self, n, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.n = n
        ...     def __len__(self):
        ...         return self.n
        ...     def __getitem__(self, i):
        ...         return np.array([i]), np.array([i * i])
        >>> [int(y[0]) for x, y in Squares(4, workers=2)]
        [0, 1, 4, 9]
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = int(workers)
        self._use_multiprocessing = bool(use_multiprocessing)
        self._max_queue_size = int(max_queue_size)
        if self._workers < 1 or self._max_queue_size < 1:
            raise ValueError("workers and max_queue_size must be positive.")

    @property
    def workers(self):
        """Number of parallel fetchers."""
        return self._workers

    @workers.setter
    def workers(self, value):
        self._workers = int(value)

    @property
    def use_multiprocessing(self):
        """Whether batches are fetched in processes."""
        return self._use_multiprocessing

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = bool(value)

    @property
    def max_queue_size(self):
        """Batches kept ready ahead of the consumer."""
        return self._max_queue_size

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = int(value)

    def __getitem__(self, index):
        """Returns batch `index`."""
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__.")

    def __len__(self):
        """Number of batches per epoch (a subclass may define `num_batches` instead)."""
        if type(self).num_batches is not PyDataset.num_batches:
            count = self.num_batches
            if count is not None:
                return count
            raise TypeError(f"{type(self).__name__} is infinite (num_batches is None): it has "
                            "no len().")
        raise NotImplementedError(f"{type(self).__name__} must implement __len__ "
                                  "or the `num_batches` property.")

    @property
    def num_batches(self):
        """Batches per epoch: `len(self)`, or None when unknown (infinite); subclasses
        may override this property instead of `__len__`, as in Keras."""
        try:
            return len(self)
        except NotImplementedError:
            return None

    def on_epoch_begin(self):
        """Called by the training loop at the start of each epoch."""

    def on_epoch_end(self):
        """Called by the training loop at the end of each epoch (e.g. to
        reshuffle the order of the samples)."""

    def __iter__(self):
        """Yields the batches of one epoch, in order (forever when
        `num_batches` is None), fetched by the workers."""
        indices = _indices(self.num_batches)
        if self._workers == 1 and not self._use_multiprocessing:
            return (_normalize(self[i]) for i in indices)
        return self._parallel(indices)

    def _parallel(self, indices):
        executor = self._executor()
        fetch = _fetch_in_process if self._use_multiprocessing else self._fetch
        pending = collections.deque()
        try:
            for index in indices:
                pending.append(executor.submit(fetch, index))
                if len(pending) >= self._max_queue_size:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
            executor.shutdown(wait=True, cancel_futures=True)

    def _fetch(self, index):
        return _normalize(self[index])

    def _executor(self):
        if self._use_multiprocessing:
            return cf.ProcessPoolExecutor(
                self._workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_set_worker_dataset, initargs=(self,))
        return cf.ThreadPoolExecutor(self._workers, thread_name_prefix="kerasish-pydataset")


def _indices(num_batches):
    if num_batches is None:
        index = 0
        while True:
            yield index
            index += 1
    yield from range(num_batches)


def _normalize(batch):
    return structure.normalize_output(batch)


def _set_worker_dataset(dataset):
    global _worker_dataset
    _worker_dataset = dataset


def _fetch_in_process(index):
    return _normalize(_worker_dataset[index])
