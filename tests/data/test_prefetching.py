"""prefetch: overlap, buffer limits, errors and shutdown."""
import threading
import time

import pytest

from kerasish.data import AUTOTUNE, Dataset



@pytest.fixture(autouse=True)
def python_sigint_handler():
    """These tests press Ctrl-C with `_thread.interrupt_main()`, which does nothing
    unless SIGINT has a Python handler: give it Python's default one for the test
    (another test or library in the same worker process may have replaced it)."""
    import signal
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("Ctrl-C (interrupt_main) reaches only the main thread; this test runs "
                    "on another one")
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield previous
    signal.signal(signal.SIGINT, previous)

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
    """While the consumer holds element 0, the producer makes element 1 (no timing)."""
    produced_1 = threading.Event()

    def produce(x):
        if int(x) == 1:
            produced_1.set()
        return x

    for x in Dataset.range(3).map(produce).prefetch(2):
        if int(x) == 0:  # the "training step" on element 0
            assert produced_1.wait(timeout=30), "element 1 was not produced in the background"
    with_no_prefetch = Dataset.range(3).map(produce)
    produced_1.clear()
    for x in with_no_prefetch:
        if int(x) == 0:
            assert not produced_1.is_set()  # the reference: nothing runs ahead


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
    """The interrupt is raised by the producer while the consumer waits for element 3.

    (It used to come from a 0.05 s timer; under load a garbage collection that
    finalized an earlier pipeline could be running at that moment, and the
    interrupt was lost inside the finalizer: see the tests below.)
    """
    import _thread

    def slow(x):
        time.sleep(0.05)
        if x == 3:
            _thread.interrupt_main()
        return x

    seen = []
    with pytest.raises(KeyboardInterrupt):
        for x in Dataset.range(100).map(slow, num_parallel_calls=2).prefetch(2):
            seen.append(int(x))
    assert len(seen) < 100


def _abandoned_pipeline(parallel):
    """An iterator kept only by a reference cycle, whose worker is busy computing element 1.

    The worker presses Ctrl-C (interrupts the main thread) when it finishes
    element 1, three seconds from now: long enough for the collection that
    finalizes the pipeline to end first even in a big, loaded CI worker (a
    full collection there took over a second, and a Ctrl-C landing in another
    object's finalizer is lost too).
    """
    import _thread
    import threading

    entered = threading.Event()

    def slow(x):
        if x == 1:
            entered.set()
            time.sleep(3.0)
            _thread.interrupt_main()
        return x

    ds = Dataset.range(100).map(slow, num_parallel_calls=2 if parallel else None)
    it = iter(ds if parallel else ds.prefetch(1))
    next(it)
    cycle = [it]
    cycle.append(cycle)
    assert entered.wait(30)  # the worker is inside slow(1) now (even on a loaded machine)


@pytest.mark.parametrize("parallel", [False, True])
def test_ctrl_c_during_garbage_collection_of_a_pipeline_is_not_lost(no_leaked_threads,
                                                                    parallel):
    """Finalizers drop exceptions: closing there must not wait for the workers.

    The old code waited in the finalizer until the worker finished element 1,
    so the Ctrl-C it pressed landed inside the finalizer and was lost.
    """
    import gc

    gc.collect()
    gc.disable()  # only the collection below may finalize the pipeline
    try:
        _abandoned_pipeline(parallel)
        with pytest.raises(KeyboardInterrupt):
            gc.collect()
            time.sleep(10)
    finally:
        gc.enable()


def test_ctrl_c_during_del_of_an_iterator_is_not_lost(no_leaked_threads):
    import _thread

    from kerasish.data.iterator import DatasetIterator

    class SlowToClose:
        def close(self):
            _thread.interrupt_main()  # Ctrl-C arrives while the iterator is closed
            time.sleep(0.05)

    iterator = DatasetIterator(SlowToClose())
    with pytest.raises(KeyboardInterrupt):
        del iterator
        time.sleep(2)
