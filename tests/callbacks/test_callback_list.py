"""CallbackList: default callbacks, params/model propagation, hook order."""
import numpy as np
import pytest

from kerasish.callbacks import (Callback, CallbackList, History, LambdaCallback,
                                ProgbarLogger, ReduceLROnPlateau)


class Recorder(Callback):
    """Records every hook call as `name [index] logs`."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def set_model(self, model):
        self.calls.append("set_model")
        super().set_model(model)

    def set_params(self, params):
        self.calls.append(f"set_params {params}")
        super().set_params(params)


def _recording(name, with_index):
    if with_index:
        def hook(self, index, logs=None):
            self.calls.append(f"{name} {index} {logs}")
    else:
        def hook(self, logs=None):
            self.calls.append(f"{name} {logs}")
    return hook


for _name in ["on_epoch_begin", "on_epoch_end", "on_train_batch_begin",
              "on_train_batch_end", "on_test_batch_begin", "on_test_batch_end",
              "on_predict_batch_begin", "on_predict_batch_end"]:
    setattr(Recorder, _name, _recording(_name, True))
for _name in ["on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
              "on_predict_begin", "on_predict_end"]:
    setattr(Recorder, _name, _recording(_name, False))


def test_fit_hook_order_matches_keras(fake_model, run_fit):
    recorder = Recorder()
    logs = [{"accuracy": 0.438, "loss": 0.835, "val_accuracy": 0.469, "val_loss": 0.831}]
    run_fit(fake_model, [recorder], logs, steps=1, verbose=0)
    assert recorder.calls == [
        "set_model",
        "set_params {'verbose': 0, 'epochs': 1, 'steps': 1}",
        "on_train_begin {}",
        "on_epoch_begin 0 {}",
        "on_train_batch_begin 0 {}",
        "on_train_batch_end 0 {'accuracy': 0.438, 'loss': 0.835}",
        "on_test_begin {}",
        "on_test_batch_begin 0 {}",
        "on_test_batch_end 0 {'accuracy': 0.469, 'loss': 0.831}",
        "on_test_end {'accuracy': 0.469, 'loss': 0.831}",
        "on_epoch_end 0 {'accuracy': 0.438, 'loss': 0.835, 'val_accuracy': 0.469, 'val_loss': 0.831}",
        "on_train_end {'accuracy': 0.438, 'loss': 0.835, 'val_accuracy': 0.469, 'val_loss': 0.831}",
    ]


def test_predict_hooks_are_forwarded():
    recorder = Recorder()
    callbacks = CallbackList([recorder])
    callbacks.on_predict_begin()
    callbacks.on_predict_batch_begin(0)
    callbacks.on_predict_batch_end(0, {"outputs": "y"})
    callbacks.on_predict_end()
    assert recorder.calls == [
        "on_predict_begin {}", "on_predict_batch_begin 0 {}",
        "on_predict_batch_end 0 {'outputs': 'y'}", "on_predict_end {}",
    ]


def test_history_and_progbar_are_added_once(fake_model):
    callbacks = CallbackList(None, add_history=True, add_progbar=True, model=fake_model)
    kinds = [type(cb) for cb in callbacks.callbacks]
    assert kinds == [History, ProgbarLogger]
    assert fake_model.history is callbacks.callbacks[0]

    history, progbar = History(), ProgbarLogger()
    callbacks = CallbackList([progbar, history], add_history=True, add_progbar=True)
    assert callbacks.callbacks == [progbar, history]


def test_no_defaults_unless_asked():
    assert CallbackList().callbacks == []
    assert CallbackList(None, add_history=False).callbacks == []


def test_nested_callbacks_are_flattened_and_single_callback_accepted():
    a, b, c = Callback(), Callback(), Callback()
    assert CallbackList([a, [b, (c,)]]).callbacks == [a, b, c]
    assert CallbackList(a).callbacks == [a]


def test_model_and_params_reach_every_callback(fake_model):
    a, b = Callback(), Callback()
    CallbackList([a, b], model=fake_model, verbose=1, epochs=3, steps=None)
    for cb in (a, b):
        assert cb.model is fake_model
        assert cb.params == {"verbose": 1, "epochs": 3, "steps": None}


def test_empty_params_are_not_forwarded():
    a = Callback()
    a.set_params({"kept": True})
    CallbackList([a])
    assert a.params == {"kept": True}


def test_batch_logs_become_sorted_python_floats():
    seen = []
    cb = LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(logs))
    callbacks = CallbackList([cb])
    callbacks.on_train_batch_end(0, {"loss": np.float32(0.5), "acc": np.array(0.25),
                                     "outputs": {"mae": np.float64(1.5)}, "tag": "x"})
    assert seen == [{"acc": 0.25, "loss": 0.5, "mae": 1.5, "tag": "x"}]
    assert list(seen[0]) == ["acc", "loss", "mae", "tag"]
    assert all(type(v) is float for k, v in seen[0].items() if k != "tag")


def test_batch_logs_are_passed_by_keyword():
    got = []
    cb = LambdaCallback(on_train_batch_begin=lambda batch, **kw: got.append(kw))
    CallbackList([cb]).on_train_batch_begin(0)
    assert got == [{"logs": {}}]


def test_epoch_logs_are_one_shared_dict(fake_model, run_fit):
    # ReduceLROnPlateau adds `learning_rate`; History (appended last) sees it.
    history = run_fit(fake_model, [ReduceLROnPlateau()], [{"val_loss": 1.0, "loss": 2.0}])
    assert history.history == {"loss": [2.0], "val_loss": [1.0],
                               "learning_rate": [0.0010000000474974513]}


class CountingValue:
    """A log value that counts how often it is read (converted to float)."""

    def __init__(self, counter):
        self.counter = counter

    def __float__(self):
        self.counter.append(1)
        return 0.5


@pytest.mark.parametrize("verbose", [0, 2])
def test_batch_logs_are_not_read_when_nobody_reads_them(verbose):
    reads = []
    callbacks = CallbackList([], add_history=True, add_progbar=verbose != 0, verbose=verbose,
                             epochs=1, steps=3)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    for batch in range(3):
        callbacks.on_train_batch_end(batch, {"loss": CountingValue(reads)})
    assert reads == []
    callbacks.on_epoch_end(0, {"loss": 0.5})


def test_batch_logs_are_read_for_a_callback_that_reads_them():
    reads, seen = [], []
    reader = LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(logs["loss"]))
    callbacks = CallbackList([reader], add_history=True, add_progbar=True, verbose=2,
                             epochs=1, steps=2)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    for batch in range(2):
        callbacks.on_train_batch_end(batch, {"loss": CountingValue(reads)})
    assert seen == [0.5, 0.5] and len(reads) == 2


def test_subclass_overriding_on_batch_end_reads_train_logs():
    seen = []

    class Reader(Callback):
        def on_batch_end(self, batch, logs=None):
            seen.append(logs)

    CallbackList([Reader()]).on_train_batch_end(0, {"loss": np.float32(0.25)})
    assert seen == [{"loss": 0.25}]
