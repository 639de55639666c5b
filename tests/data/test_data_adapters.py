"""kerasish.data.data_adapters: the sample order of fit's shuffles (Keras's semantics).

(Keras-on-TF's seeded orders themselves are checked against fixtures in
tests/random/test_keras_streams.py.)
"""
import numpy as np

from kerasish.backend import devices, philox
from kerasish.data.data_adapters import ArrayAdapter


def _epoch(adapter):
    return [batch[0][:, 0].tolist() for batch in adapter.batches()]


def _adapter(n, batch_size, shuffle):
    x = np.arange(n, dtype="float32")[:, None]
    return ArrayAdapter(x, np.zeros((n, 1), "float32"), batch_size=batch_size, shuffle=shuffle)


def test_shuffle_batch_keeps_batches_in_order_and_shuffles_within(monkeypatch):
    monkeypatch.setattr(devices, "_global_seed", [None])
    np.random.seed(0)
    epoch = _epoch(_adapter(23, 5, "batch"))
    assert [sorted(b) for b in epoch] == [list(range(s, min(s + 5, 23))) for s in range(0, 23, 5)]
    assert any(b != sorted(b) for b in epoch)


def test_unseeded_shuffle_draws_a_new_order_each_epoch(monkeypatch):
    monkeypatch.setattr(devices, "_global_seed", [None])
    np.random.seed(1)
    adapter = _adapter(30, 7, True)
    first, second = _epoch(adapter), _epoch(adapter)
    assert sorted(sum(first, [])) == list(range(30)) and first != second


def test_seeded_shuffle_is_tensorflows_order_every_epoch(monkeypatch):
    monkeypatch.setattr(devices, "_global_seed", [11])
    for mode, per_batch in ((True, None), ("batch", 7)):
        adapter = _adapter(30, 7, mode)
        expected = philox.tf_global_shuffle(11, 30, per_batch).tolist()
        for _ in range(2):
            assert sum(_epoch(adapter), []) == expected
