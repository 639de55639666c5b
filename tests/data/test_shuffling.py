"""shuffle: buffer semantics, seeds and per-epoch reshuffling."""
import numpy as np
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


def test_inferring_element_spec_draws_no_reshuffle():
    # tf.data knows a mapped dataset's element_spec without iterating; peeking an
    # element for it must not advance the reshuffle (a seeded text pipeline then
    # trained in another order than Keras's).
    def make():
        return Dataset.range(20).shuffle(20, seed=5).batch(4).map(lambda x: x * 2)

    plain, peeked = make(), make()
    peeked.element_spec
    assert [ints(b) for b in plain] == [ints(b) for b in peeked]
    assert [ints(b) for b in plain] == [ints(b) for b in peeked]


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


def _tf_fixture():
    import json
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "random",
                        "dataset_shuffle.json")
    with open(path) as f:
        return json.load(f)


def test_seeded_orders_are_tensorflows(monkeypatch):
    """Orders from tf.data's shuffle in Keras 3.15.1's TF (make_dataset_shuffle_fixture.py):
    with and without a global seed, reshuffled per iteration or fixed, buffers
    smaller and larger than the dataset."""
    import kerasish as keras
    from kerasish.backend import devices
    for case in _tf_fixture()["shuffle"]:
        global_seed, n, buffer_size, seed = case["case"]
        if global_seed is None:
            monkeypatch.setattr(devices, "_global_seed", [None])
        else:
            keras.utils.set_random_seed(global_seed)
        ds = Dataset.range(n).shuffle(buffer_size, seed=seed)
        fixed = Dataset.range(n).shuffle(buffer_size, seed=seed, reshuffle_each_iteration=False)
        assert [ints(ds) for _ in range(3)] == case["reshuffled"], case["case"]
        assert [ints(fixed) for _ in range(2)] == case["fixed"], case["case"]


def test_seeded_timeseries_batches_are_keras():
    import kerasish as keras
    keras.utils.set_random_seed(13)
    ts = keras.utils.timeseries_dataset_from_array(
        np.arange(30, dtype="float32"), np.arange(30), sequence_length=3, sequence_stride=2,
        batch_size=4, shuffle=True, seed=7)
    got = [[np.asarray(t).tolist() for _, t in ts] for _ in range(2)]
    assert got == _tf_fixture()["timeseries"]
