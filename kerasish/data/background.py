"""`BackgroundIterator`: runs an iterator on its own thread, buffered.

Closing a pipeline normally joins its threads. Not from a finalizer: an
exception raised inside `__del__` or during garbage collection is printed
and dropped by Python, so a Ctrl-C arriving while a finalizer waited for a
producer thread would be lost. There, closing only tells the (daemon)
producer to stop, and it finishes on its own.
"""
import collections
import contextlib
import gc
import threading

from kerasish.data.autotune import BufferSize

_END = object()
JOIN_TIMEOUT_S = 10.0
_finalizing = threading.local()


def _track_collection(phase, info):
    """gc callback: marks the thread running a cyclic collection (and its finalizers)."""
    _finalizing.gc = phase == "start"


gc.callbacks.append(_track_collection)


@contextlib.contextmanager
def closing_without_waiting():
    """Within it, `BackgroundIterator.close()` does not join its thread (finalizers)."""
    previous = getattr(_finalizing, "explicit", False)
    _finalizing.explicit = True
    try:
        yield
    finally:
        _finalizing.explicit = previous


def may_wait():
    """False inside a finalizer (garbage collection, `closing_without_waiting`)."""
    return not (getattr(_finalizing, "gc", False) or getattr(_finalizing, "explicit", False))


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
        """Stops the producer and joins its thread (bounded wait; no wait in finalizers)."""
        with self._cond:
            self._stopped = True
            self._buffer.clear()
            self._cond.notify_all()
        if self._thread is not threading.current_thread() and may_wait():
            self._thread.join(JOIN_TIMEOUT_S)
