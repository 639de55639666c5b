"""`CacheDataset`: keeps the first complete pass in memory or on disk."""
import os
import threading
import uuid
from contextlib import closing

from kerasish.data import cache_format
from kerasish.data.ops.base import UnaryDataset


class CacheDataset(UnaryDataset):
    """Replays the elements of the first complete iteration.

    A pass that stops early (a `take`, a `break`, an error) caches nothing,
    so a later pass still sees every element. On disk the elements are
    stored at `filename + ".data"` as plain arrays (`cache_format`: `.npy`
    records read with `allow_pickle=False`, so a planted or damaged file can
    never run code), written to a temporary name and renamed once complete.
    Object data other than bytes/str raises a `TypeError` on the first pass.

    Args:
        input_dataset: the upstream dataset.
        filename: "" for memory, otherwise the cache file prefix.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, filename=""):
        super().__init__(input_dataset)
        self._path = os.fspath(filename) + ".data" if filename else None
        self._memory = None
        self._lock = threading.Lock()

    def _iterator(self, ctx):
        if self._path is None:
            return self._from_memory(ctx)
        if os.path.exists(self._path):
            return _read_file(self._path)
        return self._fill_file(ctx)

    def _from_memory(self, ctx):
        if self._memory is not None:
            yield from self._memory
            return
        elements = []
        with closing(self._input._iterator(ctx)) as upstream:
            for element in upstream:
                elements.append(element)
                yield element
        with self._lock:
            if self._memory is None:
                self._memory = elements

    def _fill_file(self, ctx):
        temporary = f"{self._path}.tmp-{os.getpid()}-{uuid.uuid4().hex}"
        complete = False
        try:
            with open(temporary, "wb") as file, \
                    closing(self._input._iterator(ctx)) as upstream:
                cache_format.write_magic(file)
                for element in upstream:
                    cache_format.write_element(file, element)
                    yield element
            complete = True
        finally:
            if complete:
                os.replace(temporary, self._path)
            elif os.path.exists(temporary):
                os.remove(temporary)


def _read_file(path):
    with open(path, "rb") as file:
        yield from cache_format.read_elements(file, path)
