"""shuffle: buffer semantics, seeds and per-epoch reshuffling."""
import pytest

from kerasish.data import Dataset


def ints(ds):
    return [int(x) for x in ds]


def test_shuffle_is_a_permutation_and_changes_order():
    out = ints(Dataset.range(100).shuffle(100, seed=1))
    assert sorted(out) == list(range(100)) and out != list(range(100))


def test_same_seed_same_order_across_datasets():
    a = ints(Dataset.range(50).shuffle(10, seed=7))
    b = ints(Dataset.range(50).shuffle(10, seed=7))
    c = ints(Dataset.range(50).shuffle(10, seed=8))
    assert a == b and a != c


def test_reshuffle_each_iteration():
    ds = Dataset.range(50).shuffle(50, seed=3)
    first, second = ints(ds), ints(ds)
    assert first != second and sorted(first) == sorted(second)
    fixed = Dataset.range(50).shuffle(50, seed=3, reshuffle_each_iteration=False)
    assert ints(fixed) == ints(fixed)
    unseeded = Dataset.range(50).shuffle(50, reshuffle_each_iteration=False)
    assert ints(unseeded) == ints(unseeded)


def test_repeat_after_shuffle_reshuffles_each_epoch():
    out = ints(Dataset.range(20).shuffle(20, seed=0).repeat(2))
    assert sorted(out[:20]) == sorted(out[20:]) == list(range(20))
    assert out[:20] != out[20:]


def test_small_buffer_limits_displacement():
    # With buffer size k, element i can only be emitted once the input has
    # reached at most i + k - 1; so output position p holds a value < p + k.
    k = 4
    out = ints(Dataset.range(200).shuffle(k, seed=5))
    assert all(value < position + k for position, value in enumerate(out))


def test_buffer_of_one_keeps_order_and_bad_sizes_fail():
    assert ints(Dataset.range(5).shuffle(1)) == [0, 1, 2, 3, 4]
    assert ints(Dataset.range(0).shuffle(3)) == []
    with pytest.raises(ValueError):
        Dataset.range(3).shuffle(0)
