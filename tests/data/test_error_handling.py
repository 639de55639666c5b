"""ignore_errors."""
import logging

import numpy as np
import pytest

from kerasish.data import Dataset


def fragile(x):
    if x % 3 == 0:
        raise ValueError(f"bad {int(x)}")
    return x


def test_ignore_errors_skips_failing_map_elements():
    ds = Dataset.range(7).map(fragile).ignore_errors()
    assert [int(x) for x in ds] == [1, 2, 4, 5]


def test_ignore_errors_with_parallel_map_and_batch(no_leaked_threads):
    ds = Dataset.range(7).map(fragile, num_parallel_calls=3).batch(2).ignore_errors()
    assert [b.tolist() for b in ds] == [[1, 2], [4, 5]]


def test_ignore_errors_only_covers_upstream():
    ds = Dataset.range(4).ignore_errors().map(fragile)
    with pytest.raises(ValueError):
        list(ds)


def test_ignore_errors_in_filter_and_interleave():
    def bad_predicate(x):
        if x == 1:
            raise RuntimeError("nope")
        return x > 0

    assert [int(x) for x in Dataset.range(4).filter(bad_predicate).ignore_errors()] == [2, 3]

    def make(x):
        if x == 1:
            raise RuntimeError("no dataset")
        return Dataset.from_tensors(x)

    assert [int(x) for x in Dataset.range(3).flat_map(make).ignore_errors()] == [0, 2]


def test_ignore_errors_ends_a_failed_generator():
    def gen():
        yield 1
        raise OSError("stream lost")

    assert [int(x) for x in Dataset.from_generator(gen).ignore_errors()] == [1]


def test_ignore_errors_logs_when_asked(caplog):
    with caplog.at_level(logging.WARNING, logger="kerasish.data"):
        list(Dataset.range(4).map(fragile).ignore_errors(log_warning=True))
    assert "bad 0" in caplog.text and "bad 3" in caplog.text


def test_keyboard_interrupt_is_never_ignored():
    def interrupt(x):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        list(Dataset.range(2).map(interrupt).ignore_errors())


def test_zero_division_in_numpy_element_skipped():
    ds = Dataset.from_tensor_slices(np.array([1.0, 0.0, 2.0])).map(
        lambda x: 1 / x if x else 1 // 0).ignore_errors()
    assert [float(x) for x in ds] == [1.0, 0.5]
