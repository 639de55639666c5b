import re

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops


def regression_data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32") + 0.3).astype("float32")
    return x, y


def small_model(**compile_kwargs):
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", **compile_kwargs)
    return model


def test_fit_before_compile_is_a_clear_error():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    with pytest.raises(ValueError, match="compile"):
        model.fit(np.ones((2, 3)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="compile"):
        model.evaluate(np.ones((2, 3)), np.ones((2, 1)))


def test_fit_learns_a_linear_map_and_returns_history():
    x, y = regression_data()
    model = small_model(metrics=["mae"])
    history = model.fit(x, y, epochs=30, batch_size=16, verbose=0)
    assert history is model.history
    assert list(history.history) == ["loss", "mae"]
    assert history.epoch == list(range(30))
    assert history.params == {"verbose": 0, "epochs": 30, "steps": 4}
    assert history.history["loss"][-1] < 1e-3 < history.history["loss"][0]
    np.testing.assert_allclose(model.layers[0].kernel.numpy().ravel(), [1, -2, 0.5], atol=0.02)


def test_validation_split_uses_the_tail_before_shuffling():
    x, y = regression_data(50)
    model = small_model()
    history = model.fit(x, y, epochs=2, batch_size=8, validation_split=0.2, verbose=0)
    assert sorted(history.history) == ["loss", "val_loss"]
    tail_loss = model.evaluate(x[40:], y[40:], verbose=0)
    np.testing.assert_allclose(history.history["val_loss"][-1], tail_loss, rtol=1e-5)


def test_evaluate_returns_scalar_list_or_dict():
    x, y = regression_data(20)
    model = small_model(metrics=["mae", "mse"])
    results = model.evaluate(x, y, verbose=0)
    assert isinstance(results, list) and len(results) == 3
    manual = np.mean((model.predict(x, verbose=0) - y) ** 2)
    np.testing.assert_allclose(results[0], manual, rtol=1e-5)
    as_dict = model.evaluate(x, y, verbose=0, return_dict=True)
    assert set(as_dict) == {"loss", "mae", "mse"}
    assert isinstance(small_model().evaluate(x, y, verbose=0), float)


def test_predict_concatenates_batches_as_numpy():
    x, _ = regression_data(37)
    model = small_model()
    out = model.predict(x, batch_size=8, verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (37, 1)
    np.testing.assert_allclose(out, model(x).numpy(), rtol=1e-6)


def test_mismatched_lengths_and_empty_data():
    model = small_model()
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit(np.ones((4, 3)), np.ones((5, 1)), verbose=0)
    with pytest.raises(ValueError, match="non-empty"):
        model.fit(np.ones((0, 3)), np.ones((0, 1)), verbose=0)


def test_nan_loss_is_applied_and_training_goes_on(capsys):
    # Keras 3.15.1 (tests/fixtures/callbacks/terminate_on_nan.json): no check of its own
    x, y = regression_data(16)
    y[8:] = np.nan
    model = small_model()
    history = model.fit(x, y, epochs=3, batch_size=8, shuffle=False, verbose=0)
    assert capsys.readouterr().out == ""
    assert len(history.epoch) == 3 and np.isnan(history.history["loss"]).all()
    assert all(np.isnan(w).all() for w in model.get_weights())


def test_sample_weight_and_class_weight():
    x = np.array([[1.0], [2.0]], dtype="float32")
    y = np.array([[0.0], [0.0]], dtype="float32")
    model = keras.Sequential([keras.Input((1,)), layers.Dense(1, use_bias=False,
                                                               kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss="mse")
    weighted = model.evaluate(x, y, sample_weight=np.array([1.0, 0.0]), verbose=0)
    assert weighted == pytest.approx(0.5)  # sum_over_batch_size: (1*1 + 0*4) / 2
    clf = keras.Sequential([keras.Input((2,)), layers.Dense(2, activation="softmax")])
    clf.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    clf.fit(np.ones((4, 2)), np.array([0, 0, 1, 1]), class_weight={0: 1.0, 1: 3.0}, verbose=0)
    # Keras 3.15.1 refuses both at once (its ArrayDataAdapter's and train_on_batch's words)
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight` at "
                                         "the same time"):
        clf.fit(np.ones((4, 2)), np.array([0, 0, 1, 1]), class_weight={0: 1.0, 1: 3.0},
                sample_weight=np.ones(4), verbose=0)
    with pytest.raises(ValueError, match="`sample_weight` and `class_weight` cannot be "
                                         "specified at the same time"):
        clf.train_on_batch(np.ones((4, 2)), np.array([0, 0, 1, 1]), class_weight={0: 1.0},
                           sample_weight=np.ones(4))


def test_multi_output_losses_weights_and_log_names():
    inp = keras.Input((3,))
    cls = layers.Dense(2, activation="softmax", name="cls")(inp)
    reg = layers.Dense(1, name="reg")(inp)
    model = keras.Model(inp, [cls, reg])
    model.compile(optimizer="adam", loss={"cls": "sparse_categorical_crossentropy", "reg": "mse"},
                  loss_weights={"cls": 1.0, "reg": 0.5}, metrics={"cls": ["accuracy"], "reg": ["mae"]})
    x = np.random.randn(10, 3).astype("float32")
    y = [np.random.randint(0, 2, 10), np.random.randn(10, 1).astype("float32")]
    history = model.fit(x, y, epochs=1, verbose=0)
    assert sorted(history.history) == ["cls_accuracy", "cls_loss", "loss", "reg_loss", "reg_mae"]
    results = model.evaluate(x, y, verbose=0)
    assert len(results) == 5
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["loss"], logs["cls_loss"] + 0.5 * logs["reg_loss"], rtol=1e-5)


def test_generator_input_with_steps_per_epoch():
    x, y = regression_data(32)

    def batches():
        while True:
            for i in range(0, 32, 8):
                yield x[i:i + 8], y[i:i + 8]

    model = small_model()
    history = model.fit(batches(), steps_per_epoch=4, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3


def test_custom_train_step_override():
    calls = []

    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            calls.append(1)
            x, y = data
            with keras.GradientTape() as tape:
                loss = ops.mean(ops.square(self(x, training=True) - y))
            grads = tape.gradient(loss, self.trainable_weights)
            self.optimizer.apply(grads, self.trainable_weights)
            return {"my_loss": loss}

    model = Custom()
    model.compile(optimizer="sgd")
    x, y = regression_data(16)
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    assert len(calls) == 4 and list(history.history) == ["my_loss"]


def test_on_batch_methods():
    x, y = regression_data(8)
    model = small_model(metrics=["mae"])
    loss, mae = model.train_on_batch(x, y)
    assert loss > 0 and mae > 0
    assert set(model.test_on_batch(x, y, return_dict=True)) == {"loss", "mae"}
    assert model.predict_on_batch(x).shape == (8, 1)


def test_verbose_2_prints_one_line_per_epoch(capsys):
    x, y = regression_data(24)
    small_model(metrics=["mae"]).fit(x, y, batch_size=8, epochs=2, verbose=2)
    lines = [l for l in capsys.readouterr().out.splitlines() if l.strip()]
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    assert re.fullmatch(r"3/3 - \d+s - \d+(ms|us|s)/step - loss: \d\.\d{4} - mae: \d\.\d{4}", lines[1])


def test_single_epoch_prints_no_epoch_header(capsys):
    x, y = regression_data(8)
    small_model().fit(x, y, epochs=1, verbose=2)
    assert "Epoch" not in capsys.readouterr().out


class _SubclassedNet(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(3)
        self.norm = keras.layers.BatchNormalization()
        self.head = keras.layers.Dense(1)

    def call(self, x, training=False):
        return self.head(self.norm(self.hidden(x), training=training))


def _summary_shapes(model):
    lines = []
    model.summary(print_fn=lambda s, **k: lines.append(s))
    return [row.split("│")[2].strip() for row in "".join(lines).splitlines()
            if row.startswith("│") and "(" in row.split("│")[1]]


@pytest.mark.parametrize("how, expected", [
    ("fit", "(None, 3)"), ("evaluate", "(None, 3)"), ("predict", "(6, 3)"), ("call", "(6, 3)")])
def test_layers_built_by_fit_record_an_unknown_batch_as_keras(how, expected):
    # Keras 3.15.1 (TF) printed these summary shapes: fit/evaluate build the model
    # in a step traced with an unknown batch size; predict and eager calls do not.
    x, y = np.ones((6, 4), "float32"), np.zeros((6, 1), "float32")
    model = _SubclassedNet()
    model.compile("sgd", "mse")
    {"fit": lambda: model.fit(x, y, batch_size=4, verbose=0),
     "evaluate": lambda: model.evaluate(x, y, verbose=0),
     "predict": lambda: model.predict(x, verbose=0),
     "call": lambda: model(x)}[how]()
    assert _summary_shapes(model)[0] == expected


@pytest.mark.parametrize("how, expected", [
    ("fit 64/16", "(16, 3)"), ("fit 60/16", "(None, 3)"), ("fit 64/16 split", "(16, 3)"),
    ("fit 64/64", "(64, 3)"), ("fit 64/100", "(None, 3)"), ("fit class_weight", "(16, 3)"),
    ("evaluate 64/16", "(16, 3)"), ("evaluate 60/16", "(None, 3)"),
    ("fit dataset", "(None, 3)")])
def test_fit_traces_a_static_batch_when_every_batch_has_the_same_size(how, expected):
    # Summary shapes printed by Keras 3.15.1 (TF): arrays are sliced into a dataset
    # whose batch dimension is static when no partial batch is left over (kerasish
    # printed "(None, 3)" for every fit/evaluate: the keras-io NER model's summary).
    from kerasish.data import Dataset
    rs = np.random.RandomState(0)
    x, y = rs.rand(64, 4).astype("float32"), (rs.rand(64, 1) > 0.5).astype("float32")
    model = _SubclassedNet()
    model.compile("sgd", "mse")
    {"fit 64/16": lambda: model.fit(x, y, batch_size=16, verbose=0),
     "fit 60/16": lambda: model.fit(x[:60], y[:60], batch_size=16, verbose=0),
     "fit 64/16 split": lambda: model.fit(x, y, batch_size=16, validation_split=0.25, verbose=0),
     "fit 64/64": lambda: model.fit(x, y, batch_size=64, verbose=0),
     "fit 64/100": lambda: model.fit(x, y, batch_size=100, verbose=0),
     "fit class_weight": lambda: model.fit(x, y, batch_size=16, class_weight={0: 1.0, 1: 2.0},
                                           verbose=0),
     "evaluate 64/16": lambda: model.evaluate(x, y, batch_size=16, verbose=0),
     "evaluate 60/16": lambda: model.evaluate(x[:60], y[:60], batch_size=16, verbose=0),
     "fit dataset": lambda: model.fit(Dataset.from_tensor_slices((x, y)).batch(16), verbose=0),
     }[how]()
    assert _summary_shapes(model)[0] == expected


def test_untraceable_subclassed_model_still_builds_on_the_real_batch():
    class HostMath(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            scale = float(np.asarray(keras.ops.convert_to_numpy(x)).std() + 1.0)  # needs values
            return self.dense(x) * scale

    model = HostMath()
    model.compile("sgd", "mse")
    history = model.fit(np.ones((6, 4), "float32"), np.zeros((6, 1), "float32"), verbose=0)
    assert np.isfinite(history.history["loss"][0]) and model.dense.built


def test_symbolic_build_builds_metrics_and_losses_without_changing_state():
    # as Keras 3.15.1's trainer_test.test_symbolic_build (which passes on real Keras)
    seen = []

    class TwoOutputs(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(3)
            self.bn = layers.BatchNormalization()

        def call(self, x, training=None):
            out = self.bn(self.dense(x), training=training)
            return [out, out]

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
            seen.append((keras.backend.in_symbolic_scope(), training))
            return super().compute_loss(x, y, y_pred, sample_weight, training)

    model = TwoOutputs()
    model.compile(optimizer="sgd", loss=["mse", "mse"], metrics=["mse", "mse"])
    x, y = np.ones((4, 4), "float32"), np.zeros((4, 3), "float32")
    model(x)
    weights = model.get_weights()
    assert not model._compile_metrics.built and not model._compile_loss.built
    assert len(model.metrics) == 2
    model._symbolic_build(data_batch=(x, (y, y)))
    for a, b in zip(weights, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert model._compile_metrics.built and model._compile_loss.built and model.optimizer.built
    assert len(model._compile_metrics.metrics) == 2 and len(model._compile_loss.metrics) == 2
    assert len(model.metrics) == 4
    assert all(not v.numpy().any() for v in model._compile_metrics.variables)
    assert all(not v.numpy().any() for v in model._compile_loss.variables)
    assert seen == [(True, False)]


def test_the_unknown_batch_build_assigns_no_variable():
    """Keras 3.15.1 (callbacks_callback_test): a counter Variable assigned in `call`
    equals the batch count at each batch end; the build trace must not assign it."""
    class Counting(keras.Model):
        def __init__(self):
            super().__init__()
            self.calls = self.add_variable(shape=(), initializer="zeros", trainable=False)

        def call(self, inputs):
            self.calls.assign(self.calls + 1)
            return inputs

    seen = []

    class Record(keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            seen.append((int(self.model.calls.numpy()), batch + 1))

    model = Counting()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((8, 1), "float32"), np.ones((8, 1), "float32"), batch_size=2,
              callbacks=[Record()], verbose=0)
    assert seen == [(1, 1), (2, 2), (3, 3), (4, 4)]


class _SeenSamples(keras.metrics.Metric):
    """Counts the samples seen; `result()` hands back its own variable (keras-io style)."""

    def __init__(self, name="seen", **kwargs):
        super().__init__(name=name, **kwargs)
        self.n = self.add_variable(shape=(), initializer="zeros", name="n")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.n.assign_add(keras.ops.cast(keras.ops.shape(y_true)[0], "float32"))

    def result(self):
        return self.n


class _CountOnes(keras.metrics.Sum):
    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(keras.ops.sum(keras.ops.ones_like(y_true)))


def test_epoch_logs_read_metric_results_after_validation_as_keras():
    # Keras's fit keeps the training metrics' result() objects and reads them only in
    # on_epoch_end, after validation reset and refilled the metrics: a result that is the
    # metric's own variable (or Keras's convert_to_tensor of it, as FalsePositives with
    # several thresholds) shows the validation value; Sum's result (a cast, i.e. a read)
    # does not. Expected: Keras 3.15.1 / TF 2.21 on this program
    # (/tmp/probe5/t/epoch_read.py in the probe5 session).
    x = np.arange(24, dtype="float32").reshape(12, 2) / 24
    y = np.ones((12, 1), "float32")
    model = keras.Sequential([keras.Input((2,)),
                              keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile("sgd", "mse", metrics=[
        _SeenSamples(), _CountOnes(name="ones"),
        keras.metrics.FalsePositives(thresholds=[0.2, 0.9])])
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0,
                        validation_data=(x[:3], 0 * y[:3]))
    got = {k: np.asarray(v).tolist() for k, v in history.history.items()
           if k not in ("loss", "val_loss")}
    assert got == {"false_positives": [[2.0, 0.0], [2.0, 0.0]], "ones": [12.0, 12.0],
                   "seen": [3.0, 3.0], "val_false_positives": [[2.0, 0.0], [2.0, 0.0]],
                   "val_ones": [3.0, 3.0], "val_seen": [3.0, 3.0]}


def test_custom_step_logs_are_flattened_once_in_keras_order():
    """Keras's `pythonify_logs` sorts the step's own keys and expands a nested dict
    (`compile_metrics`) at its key's place, once. Real Keras 3.15.1 (TensorFlow):
    history keys ['mae', 'loss', 'val_loss', 'val_mae'], evaluate(return_dict=True)
    keys ['mae', 'mse', 'loss'] for the steps below."""
    class Custom(keras.Model):
        def train_step(self, data):
            x, y = data
            with keras.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            self.compute_loss(y=y, y_pred=y_pred)
            for metric in self.metrics:
                if metric.name != "loss":
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input((4,))
    model = Custom(inputs, keras.layers.Dense(1)(inputs))
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x, y = np.ones((8, 4), "float32"), np.ones((8, 1), "float32")
    history = model.fit(x, y, epochs=1, verbose=0, validation_data=(x, y))
    assert list(history.history) == ["mae", "loss", "val_loss", "val_mae"]
    model.compile(optimizer="adam", loss="mse", metrics=["mae", "mse"])
    assert list(model.evaluate(x, y, verbose=0, return_dict=True)) == ["mae", "mse", "loss"]


class _DictResult(keras.metrics.Metric):
    def __init__(self, name="stats", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total.assign_add(keras.ops.sum(keras.ops.abs(y_true - y_pred)))

    def result(self):
        return {"mean_err": self.total * 1.0, "max_err": self.total * 2.0}


def test_a_dict_metric_result_is_flattened_where_its_name_sorts_as_keras():
    # Keras's pythonify_logs sorts the top-level names and flattens a dict result in
    # place ("stats" sorts after "mean_absolute_error"). Key orders printed by Keras
    # 3.15.1 for this setup (probe /tmp/probe5/cmetric3.py, probe5 session).
    x = np.ones((8, 3), "float32")
    y = np.zeros((8, 1), "float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=[_DictResult(), keras.metrics.MeanAbsoluteError()])
    history = model.fit(x, y, epochs=1, batch_size=4, verbose=0, validation_split=0.25)
    assert list(history.history) == [
        "loss", "mean_absolute_error", "max_err", "mean_err",
        "val_loss", "val_max_err", "val_mean_absolute_error", "val_mean_err"]
    result = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(result) == ["loss", "mean_absolute_error", "max_err", "mean_err"]


def test_fit_without_trainable_weights_warns_like_keras():
    # Keras 3.15.1 warns "The model does not have any trainable weights." and
    # leaves the optimizer unbuilt (iterations 0).
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, trainable=False)])
    model.compile("adam", "mse")
    with pytest.warns(UserWarning, match="The model does not have any trainable weights."):
        model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0)
    assert int(model.optimizer.iterations) == 0
