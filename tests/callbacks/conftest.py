"""Fakes for the callback tests: a model-like object and a fit-like loop.

The loop calls the hooks in the order measured for Keras 3's `fit`
(reference §7) so that callbacks can be tested without a real trainer.
"""
import numpy as np
import pytest

import kerasish
from kerasish.callbacks import CallbackList


class FakeMetric:
    """A metric with only what callbacks read: `name` and `_direction`."""

    def __init__(self, name, direction):
        self.name = name
        self._direction = direction


class FakeMetricsContainer:
    """Like Keras's CompileMetrics: a metric holding a `metrics` list."""

    def __init__(self, metrics):
        self.name = "compile_metrics"
        self.metrics = metrics


class FakeOptimizer:
    def __init__(self, learning_rate=0.001):
        self.learning_rate = kerasish.Variable(learning_rate)
        self.iterations = 0
        self.name = "sgd"


class FakeModel:
    """The model interface callbacks rely on."""

    def __init__(self, learning_rate=0.001, metrics=None):
        self.stop_training = False
        self.optimizer = FakeOptimizer(learning_rate)
        self.metrics = [FakeMetric("loss", "down"),
                        FakeMetricsContainer(metrics or [])]
        self.history = None
        self._weights = [np.zeros(2, "float32")]

    def get_weights(self):
        return [w.copy() for w in self._weights]

    def set_weights(self, weights):
        self._weights = [np.array(w, copy=True) for w in weights]


def _train_keys(logs):
    return {k: v for k, v in logs.items() if not k.startswith("val_")}


def fake_fit(model, callbacks, epoch_logs, steps=2, verbose=0,
             batch_logs=None, validation=True):
    """Runs the hook sequence of `fit` over precomputed logs.

    Args:
        model: a FakeModel.
        callbacks: list of callbacks.
        epoch_logs: one dict per epoch (train keys and `val_*` keys).
        steps: batches per epoch (`None` = unknown: two batches are run).
        verbose: passed in params; a ProgbarLogger is added when != 0.
        batch_logs: optional function (epoch, batch) -> batch logs.
        validation: whether validation hooks run when `val_*` keys exist.

    Returns:
        `model.history`. During epoch `e` the model's weights are `e + 1`.
    """
    epochs = len(epoch_logs)
    cbs = CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                       verbose=verbose, epochs=epochs, steps=steps, model=model)
    model.stop_training = False
    cbs.on_train_begin()
    logs = None
    for epoch, given in enumerate(epoch_logs):
        cbs.on_epoch_begin(epoch)
        model.set_weights([np.full(2, epoch + 1.0, "float32")])
        for batch in range(steps if steps is not None else 2):
            cbs.on_train_batch_begin(batch)
            blogs = batch_logs(epoch, batch) if batch_logs else _train_keys(given)
            cbs.on_train_batch_end(batch, blogs)
            if model.stop_training:
                break
        logs = dict(given)
        val = {k[4:]: v for k, v in given.items() if k.startswith("val_")}
        if validation and val:
            cbs.on_test_begin()
            cbs.on_test_batch_begin(0)
            cbs.on_test_batch_end(0, val)
            cbs.on_test_end(val)
        cbs.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    cbs.on_train_end(logs)
    return model.history


@pytest.fixture
def fake_model():
    return FakeModel(metrics=[FakeMetric("accuracy", "up"), FakeMetric("mae", "down")])


@pytest.fixture
def run_fit():
    return fake_fit


def losses(*values, key="val_loss"):
    """Epoch logs with only `key` set, one dict per value."""
    return [{key: float(v)} for v in values]


@pytest.fixture
def make_logs():
    return losses


@pytest.fixture
def fake_metric():
    return FakeMetric
