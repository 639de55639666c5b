"""interleave and flat_map, with tf.data's documented outputs."""
import threading

import pytest

from kerasish.data import Dataset


def ints(ds):
    return [int(x) for x in ds]


def test_interleave_doc_example():
    ds = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(6),
                                        cycle_length=2, block_length=4)
    assert ints(ds) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
                        3, 3, 4, 4, 5, 5, 5, 5, 5, 5]


def test_interleave_default_block_and_uneven_lengths():
    ds = Dataset.range(1, 4).interleave(lambda x: Dataset.range(x * 10, x * 10 + 3),
                                        cycle_length=2)
    assert ints(ds) == [10, 20, 11, 21, 12, 22, 30, 31, 32]
    empty_inner = Dataset.range(0, 4).interleave(Dataset.range, cycle_length=2)
    assert ints(empty_inner) == [0, 0, 1, 0, 1, 2]


def test_interleave_cycle_longer_than_input():
    ds = Dataset.range(2).interleave(lambda x: Dataset.from_tensors(x).repeat(2),
                                     cycle_length=8)
    assert ints(ds) == [0, 1, 0, 1]
    assert ints(Dataset.range(0).interleave(Dataset.range, cycle_length=2)) == []


def test_parallel_interleave_same_order_on_threads(no_leaked_threads):
    threads = set()

    def make(x):
        def gen():
            threads.add(threading.current_thread().name)
            yield from range(int(x) * 10, int(x) * 10 + 4)
        return Dataset.from_generator(gen)

    sequential = Dataset.range(5).interleave(make, cycle_length=3, block_length=2)
    parallel = Dataset.range(5).interleave(make, cycle_length=3, block_length=2,
                                           num_parallel_calls=3)
    assert ints(parallel) == ints(sequential)
    assert "kerasish-data-interleave" in threads


def test_parallel_interleave_shuts_down_on_break(no_leaked_threads):
    ds = Dataset.range(100).interleave(lambda x: Dataset.range(10**6), cycle_length=4,
                                       num_parallel_calls=4)
    for i, _ in enumerate(ds):
        if i == 20:
            break


def test_interleave_function_must_return_dataset():
    with pytest.raises(TypeError, match="must return a Dataset"):
        list(Dataset.range(3).interleave(lambda x: [x], cycle_length=1))


def test_interleave_tuple_elements_are_unpacked():
    ds = Dataset.from_tensor_slices(([1, 2], [10, 20])).interleave(
        lambda a, b: Dataset.from_tensors(a + b), cycle_length=2)
    assert ints(ds) == [11, 22]


def test_flat_map():
    assert ints(Dataset.range(4).flat_map(Dataset.range)) == [0, 0, 1, 0, 1, 2]
    nested = Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(
        Dataset.from_tensor_slices)
    assert ints(nested) == [1, 2, 3, 4]
    assert nested.element_spec.shape == ()
