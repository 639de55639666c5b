"""prefetch: overlap, buffer limits, errors and shutdown."""
import threading
import time

import pytest

from kerasish.data import AUTOTUNE, Dataset


def ints(ds):
    return [int(x) for x in ds]


def test_prefetch_preserves_elements(no_leaked_threads):
    for size in (0, 1, 3, AUTOTUNE):
        assert ints(Dataset.range(20).prefetch(size)) == list(range(20))
    assert ints(Dataset.range(0).prefetch(2)) == []


def test_prefetch_produces_on_another_thread(no_leaked_threads):
    producers = set()

    def record(x):
        producers.add(threading.current_thread().name)
        return x

    assert ints(Dataset.range(3).map(record).prefetch(2)) == [0, 1, 2]
    assert producers == {"kerasish-data-prefetch"}


def test_prefetch_overlaps_production_with_consumption(no_leaked_threads):
    def slow(x):
        time.sleep(0.02)
        return x

    def run(ds):
        start = time.perf_counter()
        for _ in ds:
            time.sleep(0.02)  # the "training step"
        return time.perf_counter() - start

    serial = run(Dataset.range(10).map(slow))
    overlapped = run(Dataset.range(10).map(slow).prefetch(2))
    assert overlapped < serial * 0.8


def test_prefetch_buffer_is_bounded(no_leaked_threads):
    produced = []
    ds = Dataset.range(100).map(lambda x: produced.append(int(x)) or x).prefetch(3)
    it = iter(ds)
    next(it)
    time.sleep(0.05)
    # one consumed + 3 buffered + at most one waiting to be put
    assert len(produced) <= 5
    it.close()


def test_autotune_buffer_grows_when_consumer_waits(no_leaked_threads):
    from kerasish.data.background import BackgroundIterator

    def slow():
        for i in range(6):
            time.sleep(0.005)
            yield i

    background = BackgroundIterator(slow, AUTOTUNE)
    assert list(background) == list(range(6))
    assert background.buffer_limit > 1
    background.close()


def test_prefetch_error_is_reraised_in_consumer(no_leaked_threads):
    def explode(x):
        if x == 3:
            raise ZeroDivisionError("bad element")
        return x

    seen = []
    with pytest.raises(ZeroDivisionError, match="bad element") as info:
        for x in Dataset.range(10).map(explode).prefetch(2):
            seen.append(int(x))
    assert seen == [0, 1, 2]
    assert any(entry.name == "explode" for entry in info.traceback)


def test_break_and_del_stop_the_prefetch_thread(no_leaked_threads):
    ds = Dataset.range(10**9).prefetch(AUTOTUNE)
    it = iter(ds)
    assert int(next(it)) == 0
    del it
    for x in Dataset.range(10**9).map(lambda x: x, num_parallel_calls=2).prefetch(2):
        if x == 10:
            break


def test_nested_prefetches_shut_down(no_leaked_threads):
    ds = Dataset.range(10**6).prefetch(2).map(lambda x: x * 2).prefetch(2)
    with iter(ds) as it:
        assert [int(next(it)) for _ in range(3)] == [0, 2, 4]


def test_ctrl_c_while_waiting_for_a_slow_producer(no_leaked_threads):
    import _thread

    def slow(x):
        time.sleep(0.2)
        return x

    timer = threading.Timer(0.05, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in Dataset.range(100).map(slow, num_parallel_calls=2).prefetch(2):
                pass
    finally:
        timer.cancel()
        timer.join()
