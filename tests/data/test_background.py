"""BackgroundIterator, the producer thread behind prefetch."""
import threading
import time

import pytest

from kerasish.data.background import BackgroundIterator


def test_yields_everything_then_stops(no_leaked_threads):
    it = BackgroundIterator(lambda: iter(range(5)), 2)
    assert list(it) == [0, 1, 2, 3, 4]
    with pytest.raises(StopIteration):
        next(it)
    it.close()


def test_upstream_generator_is_closed_on_the_producer_thread(no_leaked_threads):
    closed_on = []

    def gen():
        try:
            for i in range(10**6):
                yield i
        finally:
            closed_on.append(threading.current_thread().name)

    it = BackgroundIterator(gen, 1, name="producer-x")
    assert next(it) == 0
    it.close()
    deadline = time.monotonic() + 5
    while not closed_on and time.monotonic() < deadline:
        time.sleep(0.01)
    assert closed_on == ["producer-x"]


def test_error_while_creating_upstream_reaches_consumer(no_leaked_threads):
    def make():
        raise OSError("cannot open")

    it = BackgroundIterator(make, 1)
    with pytest.raises(OSError, match="cannot open"):
        next(it)
    it.close()
