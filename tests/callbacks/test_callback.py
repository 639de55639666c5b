"""Callback base class: attributes, no-op hooks, batch aliases."""
import pytest

from kerasish.callbacks import Callback

HOOKS_WITH_INDEX = [
    "on_batch_begin", "on_batch_end", "on_epoch_begin", "on_epoch_end",
    "on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
    "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end",
]
HOOKS_WITHOUT_INDEX = [
    "on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
    "on_predict_begin", "on_predict_end",
]


def test_new_callback_has_no_model_and_no_params():
    callback = Callback()
    assert callback.model is None
    assert callback.params is None


def test_set_model_and_set_params_store_them():
    callback, model = Callback(), object()
    callback.set_model(model)
    callback.set_params({"verbose": 1, "epochs": 2, "steps": 3})
    assert callback.model is model
    assert callback.params == {"verbose": 1, "epochs": 2, "steps": 3}


@pytest.mark.parametrize("hook", HOOKS_WITH_INDEX)
def test_index_hooks_are_no_ops(hook):
    assert getattr(Callback(), hook)(0, {"loss": 1.0}) is None
    assert getattr(Callback(), hook)(0) is None


@pytest.mark.parametrize("hook", HOOKS_WITHOUT_INDEX)
def test_other_hooks_are_no_ops(hook):
    assert getattr(Callback(), hook)({"loss": 1.0}) is None
    assert getattr(Callback(), hook)() is None


def test_train_batch_hooks_call_the_old_batch_aliases():
    calls = []

    class Old(Callback):
        def on_batch_begin(self, batch, logs=None):
            calls.append(("begin", batch, logs))

        def on_batch_end(self, batch, logs=None):
            calls.append(("end", batch, logs))

    Old().on_train_batch_begin(3, {})
    Old().on_train_batch_end(3, {"loss": 0.5})
    assert calls == [("begin", 3, {}), ("end", 3, {"loss": 0.5})]


def test_model_setter_is_not_public():
    with pytest.raises(AttributeError):
        Callback().model = object()
