"""steps_per_execution: Keras 3.15.1's batch callbacks, indices, logs and results.

Fixture: tests/fixtures/steps_per_execution/steps_per_execution.json, written
by make_steps_per_execution.py with the Keras oracle interpreter (the same
models, data and callbacks run there).
"""
import json
import pathlib
import warnings

import numpy as np
import pytest

import kerasish as keras

FIXTURE = (pathlib.Path(__file__).parents[1] / "fixtures" / "steps_per_execution" /
           "steps_per_execution.json")
KERAS = json.loads(FIXTURE.read_text())


class Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def _log(self, name, index=None, logs=None):
        entry = [name, index]
        if logs is not None:
            entry.append({k: (float(v) if np.ndim(v) == 0 else list(np.shape(v)))
                          for k, v in sorted(logs.items())})
        self.events.append(entry)

    def on_epoch_begin(self, epoch, logs=None):
        self._log("epoch_begin", epoch)

    def on_epoch_end(self, epoch, logs=None):
        self._log("epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._log("train_batch_begin", batch)

    def on_train_batch_end(self, batch, logs=None):
        self._log("train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._log("test_batch_begin", batch)

    def on_test_batch_end(self, batch, logs=None):
        self._log("test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._log("predict_batch_begin", batch)

    def on_predict_batch_end(self, batch, logs=None):
        self._log("predict_batch_end", batch, logs)


def data(n):
    x = (np.arange(n * 3, dtype="float32").reshape(n, 3) % 7) / 7.0
    y = x.sum(axis=1, keepdims=True) * 0.5 + 0.1
    return x, y


def model(spe):
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")])
    m.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"],
              steps_per_execution=spe)
    return m


def generator(x, y, batch_size):
    def gen():
        for i in range(0, len(x), batch_size):
            yield x[i:i + batch_size], y[i:i + batch_size]
    return gen()


def run(s):
    x, y = data(s["n"])
    m = model(s["spe"])
    rec = Recorder()
    kwargs = dict(epochs=s["epochs"], verbose=0, callbacks=[rec], shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "ran out of data", as Keras warns
        if s.get("generator"):
            history = m.fit(generator(x, y, s["batch_size"]), **kwargs)
        else:
            if s.get("validation"):
                kwargs["validation_data"] = data(20)
            history = m.fit(x, y, batch_size=s["batch_size"],
                            steps_per_epoch=s.get("steps_per_epoch"), **kwargs)
    fit_events = rec.events
    rec.events = []
    evaluation = m.evaluate(x, y, batch_size=s["batch_size"], verbose=0, callbacks=[rec],
                            return_dict=True)
    eval_events = rec.events
    rec.events = []
    predictions = m.predict(x, batch_size=s["batch_size"], verbose=0, callbacks=[rec])
    return {"fit_events": fit_events, "history": history.history,
            "weights": m.get_weights(), "evaluate_events": eval_events,
            "evaluate": evaluation, "predict_events": rec.events, "predict": predictions}


def assert_events_equal(ours, theirs):
    assert [e[:2] for e in ours] == [e[:2] for e in theirs]
    for a, b in zip(ours, theirs):
        if len(b) > 2:
            assert sorted(a[2]) == sorted(b[2]), a[:2]
            for key, value in b[2].items():
                np.testing.assert_allclose(a[2][key], value, rtol=1e-5, atol=1e-6,
                                           err_msg=f"{a[:2]} {key}")


@pytest.mark.parametrize("case", KERAS, ids=[c["scenario"]["name"] for c in KERAS])
def test_matches_keras(case):
    ours = run(case["scenario"])
    assert_events_equal(ours["fit_events"], case["fit_events"])
    assert_events_equal(ours["evaluate_events"], case["evaluate_events"])
    assert_events_equal(ours["predict_events"], case["predict_events"])
    assert sorted(ours["history"]) == sorted(case["history"])
    for key, values in case["history"].items():
        np.testing.assert_allclose(ours["history"][key], values, rtol=1e-5, atol=1e-6)
    for w, expected in zip(ours["weights"], case["weights"]):
        np.testing.assert_allclose(w, expected, rtol=1e-5, atol=1e-6)
    for key, value in case["evaluate"].items():
        np.testing.assert_allclose(ours["evaluate"][key], value, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours["predict"], case["predict"], rtol=1e-5, atol=1e-6)


def test_same_training_as_one_step_per_execution():
    x, y = data(100)
    a, b = model(4), model(1)
    ha = a.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    hb = b.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(ha.history["loss"], hb.history["loss"], rtol=1e-6)
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_allclose(wa, wb, rtol=1e-6)


def test_terminate_on_nan_stops_after_the_whole_execution():
    # as Keras 3.15.1 (tests/fixtures/callbacks/terminate_on_nan.json): the NaN batch and
    # the rest of its execution are applied; the callback sees the execution's last logs
    x, y = data(64)
    y[20] = np.nan  # in the third batch of 8, inside the first execution of 4 steps
    m = model(4)
    rec = Recorder()
    m.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False,
          callbacks=[rec, keras.callbacks.TerminateOnNaN()])
    assert all(np.isnan(w).all() for w in m.get_weights())
    assert int(m.optimizer.iterations.numpy()) == 4
    assert [e[:2] for e in rec.events] == [["epoch_begin", 0], ["train_batch_begin", 0],
                                           ["train_batch_end", 3], ["epoch_end", 0]]


@pytest.mark.parametrize("value", [0, -2, 1.5, None])
def test_bad_steps_per_execution(value):
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=rf"`compile\(\)`: invalid `steps_per_execution`.*"
                                         rf"Received: steps_per_execution={value!r}"):
        m.compile("sgd", "mse", steps_per_execution=value)


@pytest.mark.parametrize("method, flag, hook", [
    ("fit", "stop_training", "on_train_batch_end"),
    ("evaluate", "stop_evaluating", "on_test_batch_end"),
    ("predict", "stop_predicting", "on_predict_batch_end"),
])
def test_callbacks_stop_each_loop(method, flag, hook):
    calls = []

    def stop(batch, logs=None):
        calls.append(batch)
        if len(calls) == 3:
            setattr(m, flag, True)

    def endless():
        x, y = data(4)
        while True:
            yield (x,) if method == "predict" else (x, y)

    m = model(1)
    getattr(m, method)(endless(), verbose=0,
                       callbacks=[keras.callbacks.LambdaCallback(**{hook: stop})])
    assert calls == [0, 1, 2]


def test_evaluate_returns_the_logs_of_a_custom_test_step():
    class Custom(keras.Sequential):
        def test_step(self, data):
            logs = super().test_step(data)
            return dict(logs, custom=keras.ops.convert_to_tensor(5.0))

    m = Custom([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse")
    x, y = data(16)
    result = m.evaluate(x, y, batch_size=8, verbose=0, return_dict=True)
    assert sorted(result) == ["custom", "loss"] and result["custom"] == 5.0
