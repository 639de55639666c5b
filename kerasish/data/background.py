"""`BackgroundIterator`: runs an iterator on its own thread, buffered."""
import collections
import threading

from kerasish.data.autotune import BufferSize

_END = object()
JOIN_TIMEOUT_S = 10.0


class BackgroundIterator:
    """Produces elements on a daemon thread while the consumer uses them.

    The upstream iterator is created, advanced and closed on the producer
    thread only (a generator may not be touched by two threads). Errors are
    handed to the consumer and re-raised there with their original
    traceback.

    Args:
        make_iterator: zero-argument callable returning the upstream iterator.
        buffer_size: a positive int or AUTOTUNE (see `autotune.BufferSize`).
        name: thread name, shown in `threading.enumerate()`.

    Example:
        >>> it = BackgroundIterator(lambda: iter(range(3)), 2)
        >>> list(it)
        [0, 1, 2]
    """

    def __init__(self, make_iterator, buffer_size, name="kerasish-data-prefetch"):
        self._buffer = collections.deque()
        self._size = BufferSize(buffer_size)
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._produce, args=(make_iterator,),
                                        name=name, daemon=True)
        self._thread.start()

    def _produce(self, make_iterator):
        iterator = None
        try:
            iterator = make_iterator()
            for item in iterator:
                if not self._put((True, item)):
                    return
            self._put((True, _END))
        except BaseException as error:  # handed to the consumer, not lost
            self._put((False, error))
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    def _put(self, entry):
        with self._cond:
            while len(self._buffer) >= self._size.limit and not self._stopped:
                self._cond.wait()
            if self._stopped:
                return False
            self._buffer.append(entry)
            self._cond.notify_all()
            return True

    def __iter__(self):
        return self

    def __next__(self):
        with self._cond:
            if not self._buffer:
                self._size.on_consumer_wait()
                self._cond.notify_all()  # a grown limit may unblock the producer
            while not self._buffer:
                if self._stopped:
                    raise StopIteration
                self._cond.wait()
            ok, item = self._buffer[0]
            if item is not _END and ok:
                self._buffer.popleft()
                self._cond.notify_all()
        if not ok:
            raise item
        if item is _END:
            raise StopIteration
        return item

    @property
    def buffer_limit(self):
        """The current buffer limit (grows under AUTOTUNE)."""
        return self._size.limit

    def close(self):
        """Stops the producer and joins its thread (bounded wait)."""
        with self._cond:
            self._stopped = True
            self._buffer.clear()
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(JOIN_TIMEOUT_S)
