"""PyDataset: Keras 3's API, threaded and multiprocess iteration."""
import time

import numpy as np
import pytest

from kerasish.data import PyDataset


class Squares(PyDataset):
    def __init__(self, n, delay=0.0, **kwargs):
        super().__init__(**kwargs)
        self.n, self.delay = n, delay
        self.epochs_ended = 0

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if index >= self.n:
            raise IndexError(index)
        time.sleep(self.delay)
        return np.array([index]), np.array([index * index])

    def on_epoch_end(self):
        self.epochs_ended += 1


class Endless(PyDataset):
    def __getitem__(self, index):
        return np.full(2, index)


class Broken(Squares):
    def __getitem__(self, index):
        if index == 2:
            raise RuntimeError("cannot load batch 2")
        return super().__getitem__(index)


def test_constructor_and_properties():
    ds = Squares(3, workers=4, use_multiprocessing=False, max_queue_size=5)
    assert (ds.workers, ds.use_multiprocessing, ds.max_queue_size) == (4, False, 5)
    assert ds.num_batches == 3 and len(ds) == 3
    assert Endless().num_batches is None
    with pytest.raises(ValueError):
        Squares(3, workers=0)


def test_sequential_iteration_in_order():
    ds = Squares(4)
    assert [int(y[0]) for _, y in ds] == [0, 1, 4, 9]
    assert [int(y[0]) for _, y in ds] == [0, 1, 4, 9]  # another epoch


class Rendezvous(Squares):
    """Batches 0 and 1 each wait until the other is being loaded: only parallel loading ends."""

    def __init__(self, n, **kwargs):
        super().__init__(n, **kwargs)
        import threading
        self.barrier = threading.Barrier(2, timeout=30)

    def __getitem__(self, index):
        if index < 2:
            self.barrier.wait()  # BrokenBarrierError when loaded one at a time
        return super().__getitem__(index)


def test_threaded_iteration_in_order_and_parallel(no_leaked_threads):
    ds = Rendezvous(8, workers=4)
    assert [int(x[0]) for x, _ in ds] == list(range(8))


def test_break_stops_workers(no_leaked_threads):
    for x, _ in Squares(100, delay=0.001, workers=3):
        if x[0] == 4:
            break


def test_error_in_getitem_is_reraised(no_leaked_threads):
    with pytest.raises(RuntimeError, match="batch 2"):
        list(Broken(5, workers=2))


def test_infinite_dataset_iterates_until_stopped(no_leaked_threads):
    values = []
    for batch in Endless(workers=2):
        values.append(int(batch[0]))
        if len(values) == 5:
            break
    assert values == [0, 1, 2, 3, 4]


def test_multiprocessing_workers():
    ds = Squares(5, workers=2, use_multiprocessing=True)
    assert [int(y[0]) for _, y in ds] == [0, 1, 4, 9, 16]


def test_base_class_requires_getitem_and_hooks_exist():
    with pytest.raises(NotImplementedError):
        PyDataset()[0]
    ds = Squares(2)
    ds.on_epoch_begin()
    ds.on_epoch_end()
    assert ds.epochs_ended == 1
