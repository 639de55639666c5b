"""fit/evaluate/predict over kerasish.data.Dataset, PyDataset and generators."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.data import Dataset


def data(n=64):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-1.0], [2.0]], dtype="float32")).astype("float32")
    return x, y


def model():
    m = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return m


def test_fit_and_evaluate_from_a_dataset_match_arrays():
    x, y = data()
    ds = Dataset.from_tensor_slices((x, y)).batch(16)
    a, b = model(), model()
    b.set_weights(a.get_weights())
    hist_ds = a.fit(ds, epochs=3, verbose=0, validation_data=ds)
    hist_arr = b.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False,
                     validation_data=(x, y))
    np.testing.assert_allclose(hist_ds.history["loss"], hist_arr.history["loss"], rtol=1e-5)
    np.testing.assert_allclose(hist_ds.history["val_loss"], hist_arr.history["val_loss"], rtol=1e-5)
    assert hist_ds.params["steps"] == 4
    np.testing.assert_allclose(a.evaluate(ds, verbose=0), b.evaluate(x, y, verbose=0), rtol=1e-5)
    assert a.predict(ds, verbose=0).shape == (64, 1)


def test_infinite_dataset_needs_steps_per_epoch():
    x, y = data()
    ds = Dataset.from_tensor_slices((x, y)).repeat().batch(16)
    history = model().fit(ds, epochs=2, steps_per_epoch=3, verbose=0)
    assert len(history.history["loss"]) == 2


def test_dataset_with_y_argument_is_refused():
    x, y = data()
    with pytest.raises(ValueError, match="`y` argument is not supported"):
        model().fit(Dataset.from_tensor_slices((x, y)).batch(8), y, verbose=0)


def test_py_dataset_batches_and_epoch_end():
    x, y = data(32)
    ends = []

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return x[i * 8:(i + 1) * 8], y[i * 8:(i + 1) * 8]

        def on_epoch_end(self):
            ends.append(1)

    history = model().fit(Batches(), epochs=2, verbose=0)
    # Keras 3.15.1 also calls it once before the first epoch (EpochIterator.reset).
    assert history.params["steps"] == 4 and len(ends) == 3


def test_py_dataset_epoch_hooks_in_keras_order():
    # The begin/end sequence Keras 3.15.1 printed (leaving out the batches it
    # peeks at for TensorFlow specs): fit and evaluate first end an epoch.
    log = []
    x, y = data(12)

    class Tagged(keras.utils.PyDataset):
        def __init__(self, tag, n=3):
            super().__init__()
            self.tag, self.n = tag, n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return x[i * 4:(i + 1) * 4], y[i * 4:(i + 1) * 4]

        def on_epoch_begin(self):
            log.append(self.tag + ".begin")

        def on_epoch_end(self):
            log.append(self.tag + ".end")

    m = model()
    m.fit(Tagged("t"), validation_data=Tagged("v"), epochs=2, verbose=0)
    assert log == ["t.end"] + ["t.begin", "t.end", "v.end", "v.begin", "v.end"] * 2
    log.clear()
    m.predict(Tagged("p"), verbose=0)
    assert log == ["p.begin", "p.end"]
    log.clear()

    class Stop(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 1:
                self.model.stop_training = True

    m.fit(Tagged("x"), epochs=3, verbose=0, callbacks=[Stop()])
    assert log == ["x.end", "x.begin"]  # an epoch left early is not ended


def test_fit_from_tfrecord_files(tmp_path):
    from kerasish.data import (FixedLenFeature, TFRecordDataset, TFRecordWriter, make_example,
                               parse_single_example)
    x, y = data(48)
    paths = [tmp_path / f"train-{i}.tfrecord" for i in range(2)]
    for shard, path in enumerate(paths):
        with TFRecordWriter(path) as writer:
            for i in range(shard * 24, (shard + 1) * 24):
                writer.write(make_example({"x": x[i], "y": y[i]}))
    spec = {"x": FixedLenFeature([3], "float32"), "y": FixedLenFeature([1], "float32")}

    def parse(record):
        example = parse_single_example(record, spec)
        return example["x"], example["y"]

    ds = TFRecordDataset([str(p) for p in paths]).map(parse).batch(16)
    a, b = model(), model()
    b.set_weights(a.get_weights())
    from_records = a.fit(ds, epochs=2, verbose=0).history["loss"]
    from_arrays = b.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False).history["loss"]
    np.testing.assert_allclose(from_records, from_arrays, rtol=1e-5)


def test_generator_validation_replays_its_first_batches_as_keras():
    # Keras 3.15.1 reads a generator's first two batches up front and yields them
    # again on every new pass: with validation_steps=1 each epoch validates on
    # the first batch (printed val_loss [1.0303, 1.0291], not a later batch).
    x, y = data(30)
    seen = []

    def gen():
        i = 0
        while True:
            seen.append(i % 3)
            yield x[(i % 3) * 10:(i % 3 + 1) * 10], y[(i % 3) * 10:(i % 3 + 1) * 10]
            i += 1

    m = model()
    val = []
    cb = keras.callbacks.LambdaCallback(on_test_batch_begin=lambda b, logs: val.append(b))
    m.fit(x, y, batch_size=10, epochs=3, shuffle=False, verbose=0,
          validation_data=gen(), validation_steps=1, callbacks=[cb])
    assert seen == [0, 1]  # only the two peeked batches were ever drawn
    first = m.evaluate(x[:10], y[:10], verbose=0)
    again = m.evaluate(gen(), steps=1, verbose=0)
    assert abs(first - again) < 1e-6


def test_finite_generator_epochs_after_the_first_replay_two_batches():
    # Keras 3.15.1: a finite generator without steps_per_epoch gives all its
    # batches in epoch 1, then only the two batches it peeked at.
    x, y = data(40)
    counts = []
    cb = keras.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: counts.append(0),
                                        on_train_batch_end=lambda b, logs: counts.__setitem__(-1, counts[-1] + 1))
    model().fit((b for b in [(x[i:i + 10], y[i:i + 10]) for i in range(0, 40, 10)]),
                epochs=3, verbose=0, callbacks=[cb])
    assert counts == [4, 2, 2]


def test_train_on_batch_dict_has_sorted_keys_as_keras():
    # Keras 3.15.1 printed {'acc': 0.375, 'loss': 1.10...} (pythonified logs are sorted).
    x, y = data(8)
    m = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    m.compile("sgd", "mse", metrics=["mae"])
    assert list(m.train_on_batch(x, y, return_dict=True)) == ["loss", "mae"]
    m.compile("sgd", "mse", metrics=["acc"])
    assert list(m.train_on_batch(x, y, return_dict=True)) == ["acc", "loss"]
    assert list(m.test_on_batch(x, y, return_dict=True)) == ["acc", "loss"]


def test_sample_weight_as_a_dict_per_output():
    # Keras 3.15.1 printed these histories for the same program (it failed with an
    # IndexError before: the dict was turned into one 0-d object array).
    x = np.arange(12, dtype="float32").reshape(6, 2) / 12
    y = np.linspace(0, 1, 6).astype("float32")[:, None]
    i = keras.Input((2,), name="a")
    model = keras.Model(i, {
        "out": keras.layers.Dense(1, kernel_initializer="ones", name="out")(i),
        "aux": keras.layers.Dense(1, kernel_initializer="zeros", name="aux")(i)})
    model.compile(keras.optimizers.SGD(0.1), loss={"out": "mse", "aux": "mae"})
    history = model.fit(x, {"out": y, "aux": y},
                        sample_weight={"out": np.array([1, 0, 1, 0, 1, 0.5]), "aux": np.ones(6)},
                        epochs=2, batch_size=3, shuffle=False, verbose=0).history
    expected = {"aux_loss": [0.452778, 0.32365], "loss": [0.5709, 0.385451],
                "out_loss": [0.118123, 0.061801]}
    assert sorted(history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(history[key], values, atol=2e-6)


def test_ran_out_of_data_warning_text_matches_keras():
    # Keras 3.15.1's warning, printed by real Keras for 3 batches and
    # steps_per_epoch=2, epochs=4:
    text = ("Your input ran out of data; interrupting training. Make sure that your dataset "
            "or generator can generate at least `steps_per_epoch * epochs` batches. You may "
            "need to use the `.repeat()` function when building your dataset.")
    model = keras.Sequential([layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.warns(UserWarning) as record:
        model.fit(np.ones((40, 2)), np.ones((40, 1)), batch_size=16, steps_per_epoch=2,
                  epochs=4, verbose=0)
    assert text in [str(w.message) for w in record]


def test_generator_end_warns_ran_out_like_keras():
    # Keras 3.15.1 warns "Your input ran out of data" whenever a source of
    # unknown size ends, once per pass: fit/evaluate/predict on a generator
    # each warn once, fit with a validation generator twice.
    import warnings as _w
    x, y = np.ones((48, 3)), np.ones((48, 1))

    def gen():
        for i in range(3):
            yield x[i * 16:(i + 1) * 16], y[i * 16:(i + 1) * 16]

    model = keras.Sequential([layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    counts = []
    for run in (lambda: model.fit(gen(), verbose=0, shuffle=False),
                lambda: model.evaluate(gen(), verbose=0),
                lambda: model.predict(gen(), verbose=0),
                lambda: model.fit(gen(), verbose=0, shuffle=False, validation_data=gen())):
        with _w.catch_warnings(record=True) as record:
            _w.simplefilter("always")
            run()
        counts.append(sum("ran out of data" in str(w.message) for w in record))
    assert counts == [1, 1, 1, 2]


def test_class_weight_with_several_outputs_is_keras_error():
    inputs = keras.Input((4,))
    model = keras.Model(inputs, [keras.layers.Dense(1)(inputs), keras.layers.Dense(2)(inputs)])
    model.compile("sgd", ["mse", "mse"])
    x = np.ones((4, 4), "float32")
    with pytest.raises(ValueError) as info:
        model.fit(x, [np.ones((4, 1)), np.ones((4, 2))], class_weight={0: 1.0}, verbose=0)
    # Keras 3.15.1's words (array_data_adapter.py)
    assert str(info.value) == "`class_weight` is only supported for Models with a single output."
