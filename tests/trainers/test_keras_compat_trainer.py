"""Trainer behaviours from Keras's own trainer tests: custom test_step logs, PyDataset
`num_batches`, loss dicts/lists on subclassed models (values Keras 3.15.1 gives)."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import initializers, layers


class CustomTestStep(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(3)

    def call(self, x):
        return self.dense(x)

    def test_step(self, data):
        logs = super().test_step(data)
        logs["my_custom_metric"] = 5.0
        return logs


def test_evaluate_keeps_custom_test_step_logs():
    model = CustomTestStep()
    model.compile("sgd", "mse", metrics=[keras.metrics.MeanSquaredError()])
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    results = model.evaluate(x, y, batch_size=16, verbose=0)
    assert len(results) == 3 and results[-1] == 5.0
    logs = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    assert logs["my_custom_metric"] == 5.0 and logs["loss"] == logs["mean_squared_error"]


class CountedDataset(keras.utils.PyDataset):
    """Keras's style: `num_batches` instead of `__len__`; None means infinite."""

    def __init__(self, infinite=False, **kwargs):
        super().__init__(**kwargs)
        self.infinite = infinite
        self.seen = 0

    @property
    def num_batches(self):
        return None if self.infinite else 4

    def __getitem__(self, index):
        self.seen += 1
        return np.ones((5, 4)), np.zeros((5, 3))


def test_py_dataset_num_batches():
    model = keras.Sequential([keras.Input((4,)), layers.Dense(3)])
    model.compile("sgd", "mse")
    finite = CountedDataset()
    assert len(finite) == 4
    model.fit(finite, epochs=2, verbose=0)
    # Keras 3.15.1 (TF) reads two batches up front for their specs: 8 + 2
    assert finite.seen == 10
    infinite = CountedDataset(infinite=True)
    history = model.fit(infinite, epochs=2, steps_per_epoch=3, verbose=0)
    # ... and reads one batch ahead: 2 + 6 + 1
    assert infinite.seen == 9 and len(history.history["loss"]) == 2


class DictOutputs(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense_1 = layers.Dense(units, use_bias=False, kernel_initializer=initializers.Ones())
        self.dense_2 = layers.Dense(units, use_bias=False, kernel_initializer=initializers.Ones())

    def call(self, x):
        return {"y_one": self.dense_1(x["x_one"]), "y_two": self.dense_2(x["x_two"])}


class ListOutputs(DictOutputs):
    def call(self, x):
        return [self.dense_1(x), self.dense_2(x)]


KERAS_LOSSES = [4.778718, 4.694403, 4.611693]  # Keras 3.15.1's trainer test expectation


def test_loss_dict_on_subclassed_model_returning_dict():
    model = DictOutputs(3)
    mse = keras.losses.MeanSquaredError
    model.compile(keras.optimizers.SGD(), loss={"y_one": mse(), "y_two": mse()},
                  metrics={"y_one": keras.metrics.MeanSquaredError(),
                           "y_two": keras.metrics.MeanSquaredError()},
                  loss_weights={"y_one": 0.1, "y_two": 0.2})
    ones, zeros = np.ones((40, 4)), np.zeros((40, 3))
    history = model.fit({"x_one": ones, "x_two": ones}, {"y_one": zeros, "y_two": zeros},
                        batch_size=20, epochs=3, verbose=0).history
    np.testing.assert_allclose(history["loss"], KERAS_LOSSES, atol=1e-4)
    assert "y_one_loss" in history and "y_two_mean_squared_error" in history


def test_loss_list_on_subclassed_model_returning_list():
    model = ListOutputs(3)
    mse = keras.losses.MeanSquaredError
    model.compile(keras.optimizers.SGD(), loss=[mse(), mse()], loss_weights=[0.1, 0.2])
    history = model.fit(np.ones((40, 4)), [np.zeros((40, 3)), np.zeros((40, 3))],
                        batch_size=20, epochs=3, verbose=0).history
    np.testing.assert_allclose(history["loss"], KERAS_LOSSES, atol=1e-4)


class OldComputeLoss(keras.Model):
    """A compute_loss override written before Keras added `training`."""

    def __init__(self):
        super().__init__()
        self.custom = keras.metrics.Mean(name="custom")
        self.dense = layers.Dense(2)

    def call(self, x):
        return self.dense(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        loss = super().compute_loss(x, y, y_pred, sample_weight)
        self.custom.update_state(loss * 4)
        return loss


def test_compute_loss_override_without_training_argument():
    model = OldComputeLoss()
    model.compile("sgd", "mse")
    logs = model.evaluate(np.ones((8, 4)), np.ones((8, 2)) * 2, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["custom"], logs["loss"] * 4, rtol=1e-6)


def test_keras2_compiled_loss_and_compiled_metrics_in_a_custom_test_step():
    # Keras 3.15.1 (TensorFlow) keeps both shims with deprecation warnings; its
    # compiled_metrics feeds y_pred to every Mean, the loss tracker included, so this
    # evaluate reports loss 0.5 (the mean softmax output) and the accuracy.
    class Keras2Model(keras.Model):
        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    keras.utils.set_random_seed(4)
    inputs = keras.Input((3,))
    model = Keras2Model(inputs, keras.layers.Dense(2, activation="softmax")(inputs))
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    x = np.random.RandomState(0).randn(20, 3).astype("float32")
    y = np.arange(20) % 2
    with pytest.warns(UserWarning, match="`model.compiled_loss\\(\\)` is deprecated"):
        logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(0.5, abs=1e-7)
    assert 0.0 <= logs["accuracy"] <= 1.0
