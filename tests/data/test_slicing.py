"""take, skip, shard."""
import pytest

from kerasish.data import Dataset


def ints(ds):
    return [int(x) for x in ds]


def test_take():
    assert ints(Dataset.range(10).take(3)) == [0, 1, 2]
    assert ints(Dataset.range(2).take(5)) == [0, 1]
    assert ints(Dataset.range(3).take(-1)) == [0, 1, 2]
    assert ints(Dataset.range(3).take(0)) == []
    assert ints(Dataset.range(3).repeat().take(5)) == [0, 1, 2, 0, 1]


def test_take_zero_does_not_start_the_upstream():
    def gen():
        raise AssertionError("must not be called")
        yield  # pragma: no cover

    assert list(Dataset.from_generator(gen).take(0)) == []


def test_skip():
    assert ints(Dataset.range(5).skip(3)) == [3, 4]
    assert ints(Dataset.range(5).skip(9)) == []
    assert ints(Dataset.range(5).skip(-1)) == []
    assert ints(Dataset.range(5).skip(0)) == [0, 1, 2, 3, 4]


def test_shard():
    assert ints(Dataset.range(10).shard(3, 1)) == [1, 4, 7]
    assert ints(Dataset.range(10).shard(3, 0)) == [0, 3, 6, 9]
    assert sorted(ints(Dataset.range(10).shard(3, 0)) + ints(Dataset.range(10).shard(3, 1))
                  + ints(Dataset.range(10).shard(3, 2))) == list(range(10))
    with pytest.raises(ValueError):
        Dataset.range(3).shard(2, 2)
    with pytest.raises(ValueError):
        Dataset.range(3).shard(0, 0)
