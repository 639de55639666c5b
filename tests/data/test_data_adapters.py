"""kerasish.data.data_adapters: the sample order of fit's shuffles (Keras's semantics).

(Keras-on-TF's seeded orders themselves are checked against fixtures in
tests/random/test_keras_streams.py.)
"""
import numpy as np
import pytest

from kerasish.backend import devices, philox
from kerasish.data.data_adapters import ArrayAdapter, get_adapter


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


def test_fit_shuffles_pydataset_batches_with_python_random_as_keras():
    """Keras's PyDatasetAdapter shuffles the batch indices with `random.shuffle`
    each epoch, so a seeded fit on a PyDataset is Keras's. Expected values: the
    same program run under Keras 3.15.1 (TF backend, CPU), printed with
    np.round(., 5) (probe pyds3.py, probe3 session)."""
    import random

    import kerasish as keras

    class Batches(keras.utils.PyDataset):
        def __init__(self, x, y, size):
            super().__init__()
            self.x, self.y, self.size = x, y, size

        def __len__(self):
            return int(np.ceil(len(self.x) / self.size))

        def __getitem__(self, i):
            return self.x[i * self.size:(i + 1) * self.size], self.y[i * self.size:(i + 1) * self.size]

    keras.utils.set_random_seed(2)
    x = np.random.rand(50, 4).astype("float32")
    y = np.random.rand(50, 1).astype("float32")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8),
                              keras.layers.Dropout(0.3), keras.layers.Dense(1)])
    model.compile("adam", "mse")
    history = model.fit(Batches(x, y, 8), epochs=3, verbose=0,
                        validation_data=Batches(x[:10], y[:10], 4)).history
    np.testing.assert_allclose(history["loss"], [0.47044, 0.4924, 0.4214], atol=1e-5)
    np.testing.assert_allclose(history["val_loss"], [0.30432, 0.24752, 0.20261], atol=1e-5)
    # one random.shuffle of 7 batch indices per epoch, none for validation
    assert abs(random.random() - 0.5020672922450359) < 1e-15


def test_fit_evaluate_predict_draw_a_shuffled_datasets_seeds_twice_per_pass_as_keras():
    """Keras on TensorFlow iterates datasets through a distributed iterator,
    which draws a reshuffling shuffle's iteration seeds twice per pass. Expected
    values: this program run under Keras 3.15.1 (TF backend, CPU), rounded to 6
    decimals (probe tsfit.py, probe3 session)."""
    import kerasish as keras

    def make():
        return keras.utils.timeseries_dataset_from_array(
            np.arange(40, dtype="float32")[:, None] / 40, np.arange(40, dtype="float32") / 40,
            sequence_length=3, batch_size=4, shuffle=True, seed=9)

    def first_targets(ds):
        return [int(round(v * 40)) for v in np.asarray(next(iter(ds))[1]).tolist()]

    keras.utils.set_random_seed(4)
    model = keras.Sequential([keras.Input((3, 1)), keras.layers.Flatten(), keras.layers.Dense(1)])
    model.compile("adam", "mse")
    train, val = make(), make()
    history = model.fit(train, epochs=2, verbose=0, validation_data=val).history
    np.testing.assert_allclose(history["loss"], [0.000202, 0.000126], atol=1e-6)
    # two passes of two draws each: the next plain iteration is the fifth
    assert first_targets(train) == [3, 35, 13, 0] and first_targets(val) == [3, 35, 13, 0]
    test = make()
    np.testing.assert_allclose(model.evaluate(test, verbose=0), 9.6e-05, atol=1e-6)
    assert first_targets(test) == [31, 20, 30, 15]
    test = make()
    np.testing.assert_allclose(model.predict(test, verbose=0)[:3].ravel(),
                               [0.766675, 0.718402, 0.790811], atol=1e-6)
    assert first_targets(test) == [31, 20, 30, 15]


def test_mismatched_lengths_message_is_keras_text():
    # Text printed by Keras 3.15.1 for fit(x[20], y[20], sample_weight=w[5]).
    with pytest.raises(ValueError) as info:
        ArrayAdapter(np.ones((20, 4)), np.ones((20, 1)), sample_weight=np.ones(5))
    assert str(info.value) == (
        "Data cardinality is ambiguous. Make sure all arrays contain the same number of "
        "samples.'x' sizes: 20\n'y' sizes: 20\n'sample_weight' sizes: 5\n")
    with pytest.raises(ValueError, match=r"samples\.'x' sizes: 20, 15\n$"):
        ArrayAdapter([np.ones((20, 4)), np.ones((15, 4))])


def test_generator_must_yield_tuples_as_keras():
    # Keras 3.15.1: predict(a generator yielding bare arrays) raises this ValueError.
    def arrays():
        for _ in range(2):
            yield np.ones((2, 3), "float32")

    with pytest.raises(ValueError, match=r"the generator must return a tuple, either \(input,\) "
                                         r"or \(inputs, targets\) or \(inputs, targets, "
                                         r"sample_weights\). Received: \[\[1. 1. 1.\]"):
        get_adapter(arrays())
    assert get_adapter((np.ones((2, 3)),) for _ in range(2)) is not None


@pytest.mark.parametrize("x, y", [
    (np.ones((2, 3)), [1.0, 2.0]),
    (np.ones((2, 3)), [[1.0], [2.0]]),
    ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], np.ones((2, 1)))])
def test_python_number_lists_are_not_arrays_as_keras(x, y):
    # Keras 3.15.1's message (it names x even when y is the list); it was an IndexError.
    with pytest.raises(ValueError, match=r"^Unrecognized data type: x=\[\[1\.? 1\.? 1\.?\]|"
                                         r"^Unrecognized data type: x=\[\[1\.0, 2\.0"):
        ArrayAdapter(x, y)


def test_py_dataset_reads_as_keras_on_tensorflow():
    # The order of __getitem__ and hook calls Keras 3.15.1 (TF) prints for fit(epochs=2,
    # steps_per_epoch=3) on an infinite PyDataset: two batches read up front for their
    # specs, then each batch read once the previous one is taken (one ahead).
    import kerasish as keras

    calls = []

    class Infinite(keras.utils.PyDataset):
        @property
        def num_batches(self):
            return None

        def __getitem__(self, index):
            calls.append(f"get {index}")
            return np.ones((5, 4)), np.zeros((5, 3))

        def on_epoch_begin(self):
            calls.append("begin")

        def on_epoch_end(self):
            calls.append("end")

    class Steps(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            calls.append(f"step {batch}")

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile("sgd", "mse")
    model.fit(Infinite(), epochs=2, steps_per_epoch=3, verbose=0, callbacks=[Steps()])
    assert calls == ["get 0", "get 1", "end", "begin",
                     "step 0", "get 0", "get 1", "step 1", "get 2", "step 2", "get 3", "end",
                     "begin", "step 0", "get 4", "step 1", "get 5", "step 2", "get 6", "end"]


def test_generator_is_read_one_ahead_as_keras_on_tensorflow():
    # Keras 3.15.1 (TF), fit(generator, epochs=2, steps_per_epoch=3): the two spec batches
    # are replayed, then the generator is read one batch ahead of the steps.
    import kerasish as keras

    calls = []

    def batches():
        index = 0
        while True:
            calls.append(f"gen {index}")
            index += 1
            yield np.ones((5, 4)), np.zeros((5, 3))

    class Steps(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            calls.append(f"step {batch}")

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile("sgd", "mse")
    model.fit(batches(), epochs=2, steps_per_epoch=3, verbose=0, callbacks=[Steps()])
    assert calls == ["gen 0", "gen 1", "step 0", "step 1", "gen 2", "step 2", "gen 3",
                     "step 0", "gen 4", "step 1", "gen 5", "step 2", "gen 6"]


def test_shuffle_ignored_warnings_match_keras():
    # Keras 3.15.1's texts (printed by real Keras for fit(generator) and
    # fit(tf.data.Dataset) with the default shuffle=True).
    import warnings as _w
    gen_text = ("`shuffle=True` was passed, but will be ignored since the data `x` was "
                "provided as a generator. The generator is expected to yield already-shuffled "
                "data.")
    ds_text = ("`shuffle=True` was passed, but will be ignored since the data `x` was provided "
               "as a tf.data.Dataset. The Dataset is expected to already be shuffled (via "
               "`.shuffle(buffer_size)`).")
    from kerasish.data import Dataset
    from kerasish.data import data_adapters as _da
    with _w.catch_warnings(record=True) as record:
        _w.simplefilter("always")
        _da.get_adapter((b for b in [(np.ones((2, 2)),)]), shuffle=True)
        _da.get_adapter(Dataset.from_tensor_slices(np.ones((4, 2))).batch(2), shuffle=True)
        _da.get_adapter(Dataset.from_tensor_slices(np.ones((4, 2))).batch(2), shuffle=False)
    assert [str(w.message) for w in record] == [gen_text, ds_text]
