"""Metric's stateless API and variable tracking (Keras 3 `Metric` behaviour)."""
import numpy as np

import kerasish as keras
from kerasish import ops


class SquaredError(keras.metrics.Metric):
    def __init__(self, name="se", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.sum = self.add_variable(name="sum", shape=(), initializer="zeros")
        self.total = self.add_variable(name="total", shape=(), initializer="zeros", dtype="int32")

    def update_state(self, y_true, y_pred):
        diff = ops.convert_to_tensor(y_true, "float32") - ops.convert_to_tensor(y_pred, "float32")
        self.sum.assign(self.sum + ops.sum(diff ** 2))
        self.total.assign(self.total + ops.shape(diff)[0])

    def result(self):
        return ops.cast(self.sum, "float32") / ops.cast(self.total, "float32")


def test_stateless_update_leaves_the_metric_unchanged():
    metric = SquaredError()
    y, p = np.random.rand(20, 3), np.random.rand(20, 3)
    state = metric.variables
    for start in (0, 8, 16):
        state = metric.stateless_update_state(state, y[start:start + 8], p[start:start + 8])
    assert float(metric.sum.numpy()) == 0.0 and int(metric.total.numpy()) == 0
    assert int(state[1]) == 20
    np.testing.assert_allclose(float(metric.stateless_result(state)),
                               np.sum((y - p) ** 2) / 20, rtol=1e-5)


def test_stateless_result_and_reset():
    metric = SquaredError()
    assert float(metric.stateless_result([ops.ones(()) * 12, ops.ones((), "int32") * 3])) == 4.0
    metric.update_state(np.ones((2, 1)), np.zeros((2, 1)))
    zeros = metric.stateless_reset_state()
    assert [float(v) for v in zeros] == [0.0, 0.0] and int(metric.total.numpy()) == 2


def test_variables_tracked_in_attributes_lists_and_dicts():
    metric = SquaredError()
    metric.extra = {"a": [keras.Variable(0.0), keras.Variable(1.0)]}
    assert len(metric.variables) == 4
    metric = SquaredError()
    metric.children = {"x": SquaredError(), "y": SquaredError()}
    assert len(metric.variables) == 6
    metric = SquaredError()
    metric.child = SquaredError()
    metric.child.child = SquaredError()
    assert len(metric.variables) == 6
