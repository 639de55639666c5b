"""`compile(jit_compile=True)`: the captured step gives the eager step's numbers bit for bit."""
import warnings

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers as L
from kerasish import ops

STEPS, BATCH = 5, 16


def _family(name):
    if name == "dense":
        return keras.Sequential([keras.Input((6,)), L.Dense(8, activation="relu"),
                                 L.Dense(3, activation="softmax")]), (6,)
    if name == "dense_logits":
        return keras.Sequential([keras.Input((6,)), L.Dense(8, activation="tanh"),
                                 L.Dense(3)]), (6,)
    if name == "conv":
        return keras.Sequential([keras.Input((6, 6, 2)), L.Conv2D(3, 3, activation="relu"),
                                 L.MaxPooling2D(), L.Flatten(),
                                 L.Dense(3, activation="softmax")]), (6, 6, 2)
    if name == "batchnorm":
        return keras.Sequential([keras.Input((6,)), L.Dense(8), L.BatchNormalization(),
                                 L.Activation("relu"), L.Dense(3, activation="softmax")]), (6,)
    if name == "dropout":
        return keras.Sequential([keras.Input((6,)), L.Dense(8, activation="relu"),
                                 L.Dropout(0.4), L.Dense(3, activation="softmax")]), (6,)
    if name == "dropout_seeded":
        return keras.Sequential([keras.Input((6,)), L.Dense(8, activation="relu"),
                                 L.Dropout(0.4, seed=3), L.Dense(3, activation="softmax")]), (6,)
    if name == "embedding":
        return keras.Sequential([keras.Input((4,), dtype="int32"), L.Embedding(12, 4),
                                 L.GlobalAveragePooling1D(),
                                 L.Dense(3, activation="softmax")]), (4,)
    if name == "lstm_dropout":
        return keras.Sequential([keras.Input((4, 5)), L.LSTM(4, dropout=0.2,
                                                               recurrent_dropout=0.2),
                                 L.Dense(3, activation="softmax")]), (4, 5)
    if name == "gru":
        return keras.Sequential([keras.Input((4, 5)), L.GRU(4),
                                 L.Dense(3, activation="softmax")]), (4, 5)
    if name == "masking_bidirectional":
        return keras.Sequential([keras.Input((4, 5)), L.Masking(0.0),
                                 L.Bidirectional(L.LSTM(3, return_sequences=True)),
                                 L.SimpleRNN(3), L.Dense(3, activation="softmax")]), (4, 5)
    if name == "noise_layernorm":
        return keras.Sequential([keras.Input((6,)), L.Dense(8), L.GaussianNoise(0.1),
                                 L.GaussianDropout(0.2), L.LayerNormalization(),
                                 L.Dense(3, activation="softmax")]), (6,)
    if name == "separable_conv1d":
        return keras.Sequential([keras.Input((6, 6, 2)), L.SeparableConv2D(4, 3),
                                 L.Reshape((4, 16)), L.Conv1D(3, 2, padding="same"),
                                 L.GlobalMaxPooling1D(), L.Dense(3, activation="softmax")]), \
            (6, 6, 2)
    if name == "attention":
        inputs = keras.Input((4, 6))
        hidden = L.MultiHeadAttention(2, 3, dropout=0.2)(inputs, inputs)
        hidden = L.GlobalAveragePooling1D()(L.LayerNormalization()(hidden))
        return keras.Model(inputs, L.Dense(3, activation="softmax")(hidden)), (4, 6)
    raise KeyError(name)


def _train(name, jit_compile, epochs=2):
    keras.utils.set_random_seed(11)
    model, shape = _family(name)
    model.compile(optimizer="adam", metrics=["accuracy"], jit_compile=jit_compile,
                  loss=keras.losses.SparseCategoricalCrossentropy(
                      from_logits=name == "dense_logits"))
    rng = np.random.default_rng(0)
    if name == "embedding":
        x = rng.integers(0, 12, (BATCH * STEPS,) + shape).astype("int32")
    else:
        x = rng.standard_normal((BATCH * STEPS,) + shape).astype("float32")
    y = rng.integers(0, 3, BATCH * STEPS)
    history = model.fit(x, y, batch_size=BATCH, epochs=epochs, verbose=0)
    return model, history.history


@pytest.mark.parametrize("name", ["dense", "dense_logits", "conv", "batchnorm", "dropout",
                                  "dropout_seeded", "embedding", "lstm_dropout", "gru",
                                  "attention", "masking_bidirectional", "noise_layernorm",
                                  "separable_conv1d"])
def test_captured_step_equals_eager_bit_for_bit(name):
    eager, eager_logs = _train(name, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback warning would fail the test
        captured, captured_logs = _train(name, True)
    assert captured._captured_train_step.captured
    assert captured_logs == eager_logs  # losses and metrics, every epoch
    for a, b in zip(eager.get_weights(), captured.get_weights()):
        np.testing.assert_array_equal(a, b)  # includes BN moving statistics
    for a, b in zip(eager.optimizer.variables, captured.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


class _BranchOnValue(L.Layer):
    def call(self, x):
        if ops.sum(x) > 0:  # Python control flow on a tensor value
            return x * 2.0
        return x


class _CountsCalls(L.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls = 0

    def call(self, x):
        self.calls += 1  # Python state read by the computation: differs on each call
        return x * float(self.calls)


class _Stack(keras.Model):
    """A subclassed model calling `layers` in turn (a layer that branches on a value
    cannot be traced on KerasTensors, as in Keras, so no Sequential/Functional here)."""

    def __init__(self, layers, **kwargs):
        super().__init__(**kwargs)
        self.stack = layers

    def call(self, x):
        for layer in self.stack:
            x = layer(x)
        return x


@pytest.mark.parametrize("layer, reason", [(_BranchOnValue, "host read"),
                                           (_CountsCalls, "differed from the eager step")])
def test_uncapturable_step_runs_eagerly_after_one_warning(layer, reason):
    def train(jit_compile):
        keras.utils.set_random_seed(2)
        model = _Stack([layer(), L.Dense(2)])  # subclassed: built eagerly, never traced
        model.compile(optimizer="sgd", loss="mse", jit_compile=jit_compile)
        x = np.linspace(-1, 1, 8 * 6 * 3).reshape(48, 3).astype("float32")
        history = model.fit(x, x[:, :2], batch_size=8, epochs=2, verbose=0)
        return model, history.history
    eager, eager_logs = train(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model, logs = train(True)
    messages = [str(w.message) for w in caught if "jit_compile" in str(w.message)]
    assert len(messages) == 1 and reason in messages[0], messages
    assert not model._captured_train_step.captured
    assert logs == eager_logs
    for a, b in zip(eager.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_replay_checks_labels_like_eager():
    model, _ = _train("dense", True, epochs=1)
    assert model._captured_train_step.captured
    x = np.zeros((BATCH, 6), "float32")
    with pytest.raises(ValueError, match="labels must be in"):
        model.train_on_batch(x, np.full((BATCH,), 7))


def test_run_eagerly_disables_jit_compile_with_keras_warning():
    model = keras.Sequential([keras.Input((3,)), L.Dense(1)])
    with pytest.warns(UserWarning, match="cannot also be True"):
        model.compile(loss="mse", run_eagerly=True, jit_compile=True)
    assert model.jit_compile is False and model._captured_train_step is None


class _TapeStep(keras.Model):
    """The custom train_step of Keras's "customizing fit" guide."""

    def train_step(self, data):
        x, y = data
        with keras.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply(grads, self.trainable_weights)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


class _SuperStep(keras.Model):
    def train_step(self, data):
        return super().train_step(data)


@pytest.mark.parametrize("cls, captured", [(_TapeStep, True), (_SuperStep, True)])
def test_custom_train_step_captured_when_safe(cls, captured):
    def train(jit_compile):
        keras.utils.set_random_seed(5)
        inputs = keras.Input((6,))
        hidden = L.Dropout(0.3)(L.Dense(8, activation="relu")(inputs))
        model = cls(inputs, L.Dense(3, activation="softmax")(hidden))
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"], jit_compile=jit_compile)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((BATCH * STEPS, 6)).astype("float32")
        history = model.fit(x, rng.integers(0, 3, BATCH * STEPS), batch_size=BATCH,
                            epochs=2, verbose=0)
        return model, history.history
    eager, eager_logs = train(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model, logs = train(True)
    messages = [str(w.message) for w in caught if "jit_compile" in str(w.message)]
    assert model._captured_train_step.captured is captured
    assert len(messages) == (0 if captured else 1), messages
    assert logs == eager_logs
    for a, b in zip(eager.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_bad_jit_compile_value():
    model = keras.Sequential([keras.Input((3,)), L.Dense(1)])
    with pytest.raises(ValueError, match="jit_compile"):
        model.compile(loss="mse", jit_compile="yes")


def _fit_scenario(name, jit_compile):
    keras.utils.set_random_seed(4)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((96, 6)).astype("float32")
    y = rng.integers(0, 3, 96)
    kwargs = dict(batch_size=16, epochs=2, verbose=0)
    if name == "dict_inputs_two_outputs":
        a, b = keras.Input((6,), name="a"), keras.Input((6,), name="b")
        hidden = L.Concatenate()([L.Dense(4)(a), L.Dense(4)(b)])
        model = keras.Model({"a": a, "b": b}, [L.Dense(3, activation="softmax")(hidden),
                                               L.Dense(1)(hidden)])
        model.compile("rmsprop", ["sparse_categorical_crossentropy", "mse"],
                      loss_weights=[1.0, 0.5], metrics=[["accuracy"], ["mae"]],
                      jit_compile=jit_compile)
        history = model.fit({"a": x, "b": x[::-1].copy()}, [y, x[:, :1]], **kwargs)
        return model, history.history
    model = keras.Sequential([keras.Input((6,)),
                              L.Dense(8, activation="relu", kernel_regularizer="l2"),
                              L.Dense(3, activation="softmax")])
    optimizer = keras.optimizers.SGD(
        keras.optimizers.schedules.ExponentialDecay(0.1, 3, 0.5), momentum=0.9)
    model.compile(optimizer, "sparse_categorical_crossentropy", metrics=["accuracy"],
                  jit_compile=jit_compile, steps_per_execution=3)
    history = model.fit(x, y, sample_weight=rng.random(96).astype("float32"),
                        validation_split=0.25, **kwargs)
    return model, history.history


@pytest.mark.parametrize("name", ["dict_inputs_two_outputs",
                                  "schedule_weights_validation_steps_per_execution"])
def test_fit_options_equal_eager(name):
    eager, eager_logs = _fit_scenario(name, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model, logs = _fit_scenario(name, True)
    assert model._captured_train_step.captured
    assert list(logs.values()) == list(eager_logs.values())  # names carry layer counters
    for a, b in zip(eager.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_evaluate_and_predict_steps_are_captured_and_equal_eager():
    def run(jit_compile):
        keras.utils.set_random_seed(4)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((96, 6)).astype("float32")
        y = rng.integers(0, 3, 96)
        model = keras.Sequential([keras.Input((6,)), L.Dense(8), L.BatchNormalization(),
                                  L.Dropout(0.2), L.Dense(3, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"],
                      jit_compile=jit_compile)
        history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, validation_split=0.3)
        scores = [model.evaluate(x, y, batch_size=8, verbose=0) for _ in range(2)]
        return model, history.history, scores, model.predict(x, batch_size=8, verbose=0)
    _, eager_logs, eager_scores, eager_pred = run(False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model, logs, scores, pred = run(True)
    assert model._captured_steps["test"].captured and model._captured_steps["predict"].captured
    assert logs == eager_logs and scores == eager_scores
    np.testing.assert_array_equal(pred, eager_pred)


def test_replayed_step_applies_a_non_finite_loss_as_keras():
    model, _ = _train("dense", True, epochs=1)
    assert model._captured_train_step.captured
    x = np.full((BATCH, 6), np.nan, "float32")
    loss = model.train_on_batch(x, np.zeros((BATCH,), "int64"), return_dict=True)["loss"]
    # Keras 3.15.1 (recorded): the fused MatMul + BiasAdd + Relu gives 0 for the NaN rows,
    # so the loss stays finite and only the first kernel (whose gradient is x^T @ 0) is NaN.
    assert np.isfinite(loss)
    assert [bool(np.isnan(w).all()) for w in model.get_weights()] == [True, False, False, False]
    assert not any(np.isnan(w).any() for w in model.get_weights()[1:])


def test_setting_jit_compile_after_compile_captures():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), L.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    assert model.jit_compile is False and model._captured_train_step is None
    model.jit_compile = True
    x = np.linspace(0, 1, 48, dtype="float32").reshape(16, 3)
    model.fit(x, x[:, :2], batch_size=4, verbose=0)
    assert model.jit_compile is True and model._captured_train_step.captured
