"""map (inline, threads, processes) and filter."""
import threading
import time

import numpy as np
import pytest

import datahelpers
from kerasish.data import AUTOTUNE, Dataset


def ints(ds):
    return [int(x) for x in ds]


def test_map_unpacks_tuples_but_not_dicts():
    pairs = Dataset.from_tensor_slices(([1, 2], [10, 20]))
    assert ints(pairs.map(lambda x, y: x + y)) == [11, 22]
    dicts = Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    assert ints(dicts.map(lambda d: d["a"] * d["b"])) == [3, 8]


def test_map_normalises_outputs():
    out = next(iter(Dataset.range(1).map(lambda x: [x, 1.5, "s"])))
    assert isinstance(out, tuple)
    assert out[1].dtype == np.float32 and out[2] == b"s"


@pytest.mark.parametrize("calls", [None, 1, 3, AUTOTUNE])
def test_parallel_map_keeps_order(calls, no_leaked_threads):
    def slow_square(x):
        time.sleep(0.001 * (int(x) % 3))
        return x * x

    ds = Dataset.range(30).map(slow_square, num_parallel_calls=calls)
    assert ints(ds) == [i * i for i in range(30)]


def test_parallel_map_runs_concurrently(no_leaked_threads):
    active, peak, lock = [0], [0], threading.Lock()

    def tracked(x):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.02)
        with lock:
            active[0] -= 1
        return x

    assert ints(Dataset.range(8).map(tracked, num_parallel_calls=4)) == list(range(8))
    assert peak[0] >= 2


def test_nondeterministic_map_yields_every_element(no_leaked_threads):
    def slow_first(x):
        time.sleep(0.05 if x == 0 else 0)
        return x

    ds = Dataset.range(6).map(slow_first, num_parallel_calls=3, deterministic=False)
    values = ints(ds)
    assert sorted(values) == list(range(6))
    assert values[0] != 0  # the slow element was overtaken


def test_map_error_is_reraised_with_original_traceback(no_leaked_threads):
    def explode(x):
        if x == 2:
            raise KeyError("boom")
        return x

    for calls in (None, 2):
        with pytest.raises(KeyError, match="boom") as info:
            list(Dataset.range(5).map(explode, num_parallel_calls=calls))
        assert any(entry.name == "explode" for entry in info.traceback)


def test_breaking_out_of_a_parallel_map_stops_workers(no_leaked_threads):
    ds = Dataset.range(1000).map(lambda x: x + 1, num_parallel_calls=4)
    for value in ds:
        if value == 5:
            break


def test_keyboard_interrupt_in_consumer_leaves_no_threads(no_leaked_threads):
    ds = Dataset.range(10**6).map(lambda x: x, num_parallel_calls=3).prefetch(4)
    with pytest.raises(KeyboardInterrupt):
        for value in ds:
            if value == 3:
                raise KeyboardInterrupt


def test_keyboard_interrupt_in_map_function_propagates(no_leaked_threads):
    def interrupt(x):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        list(Dataset.range(4).map(interrupt, num_parallel_calls=2))


def test_process_map_for_gil_bound_functions():
    ds = Dataset.range(6).map(datahelpers.python_loop_sum, num_parallel_calls=2,
                              use_processes=True)
    assert ints(ds) == [sum(range(i)) for i in range(6)]


def test_process_map_error_is_reraised():
    ds = Dataset.range(5).map(datahelpers.fail_on_three, num_parallel_calls=1,
                              use_processes=True)
    with pytest.raises(ValueError, match="three") as info:
        list(ds)
    assert "fail_on_three" in str(info.value.__cause__)  # the worker's traceback


def test_process_map_needs_picklable_function():
    with pytest.raises(TypeError, match="picklable"):
        Dataset.range(3).map(lambda x: x, use_processes=True)


def test_map_rejects_bad_arguments():
    with pytest.raises(TypeError):
        Dataset.range(3).map(5)
    with pytest.raises(ValueError):
        Dataset.range(3).map(lambda x: x, num_parallel_calls=0)


def test_filter_keeps_matching_elements():
    ds = Dataset.from_tensor_slices(([1, 2, 3, 4], [5, 6, 7, 8]))
    kept = ds.filter(lambda x, y: x % 2 == 0)
    assert [(int(x), int(y)) for x, y in kept] == [(2, 6), (4, 8)]
    assert list(Dataset.range(5).filter(lambda x: x > 10)) == []


def test_filter_predicate_must_return_scalar_bool():
    with pytest.raises(ValueError, match="scalar bool"):
        list(Dataset.range(3).filter(lambda x: x))
    with pytest.raises(ValueError, match="scalar bool"):
        list(Dataset.range(3).filter(lambda x: np.array([True, False])))
