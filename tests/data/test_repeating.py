"""repeat and enumerate."""
from kerasish.data import Dataset


def ints(ds):
    return [int(x) for x in ds]


def test_repeat_counts():
    assert ints(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert ints(Dataset.range(3).repeat(0)) == []
    assert ints(Dataset.range(2).repeat().take(5)) == [0, 1, 0, 1, 0]
    assert ints(Dataset.range(2).repeat(-1).take(3)) == [0, 1, 0]


def test_infinite_repeat_of_empty_dataset_ends():
    assert ints(Dataset.range(0).repeat()) == []
    assert ints(Dataset.range(5).filter(lambda x: x > 9).repeat()) == []


def test_repeat_reinvokes_generators():
    calls = []

    def gen():
        calls.append(1)
        yield from (1, 2)

    assert ints(Dataset.from_generator(gen).repeat(3)) == [1, 2] * 3
    assert len(calls) == 3


def test_enumerate():
    pairs = [(int(i), int(x)) for i, x in Dataset.range(5, 8).enumerate(start=10)]
    assert pairs == [(10, 5), (11, 6), (12, 7)]
    assert Dataset.range(3).repeat().enumerate().cardinality() == -1
    nested = next(iter(Dataset.from_tensor_slices({"a": [4]}).enumerate()))
    assert int(nested[0]) == 0 and int(nested[1]["a"]) == 4
