"""keras.StatelessScope: mapped reads, assignments kept by the scope, variables untouched."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.autodiff.stateless_scope import get_stateless_scope, in_stateless_scope


def test_mapped_reads_and_collected_assignments():
    v, w = keras.Variable(1.0), keras.Variable(np.arange(3.0, dtype="float32"))
    with keras.StatelessScope([(v, 5.0)]) as scope:
        assert in_stateless_scope() and get_stateless_scope() is scope
        assert float(v) == 5.0 and float(keras.ops.add(v, 1.0)) == 6.0
        v.assign_add(1.0)
        w.assign_sub([1.0, 1.0, 1.0])
        assert float(v) == 6.0
        np.testing.assert_array_equal(w.numpy(), [-1.0, 0.0, 1.0])
    assert not in_stateless_scope()
    assert float(v) == 1.0
    np.testing.assert_array_equal(w.numpy(), [0.0, 1.0, 2.0])
    assert float(scope.get_current_value(v)) == 6.0
    np.testing.assert_array_equal(scope.get_current_value(w).numpy(), [-1.0, 0.0, 1.0])
    assert scope.get_current_value(keras.Variable(0.0)) is None


def test_nested_scopes_and_add_update():
    v = keras.Variable(1.0)
    with keras.StatelessScope() as outer:
        v.assign(2.0)
        with keras.StatelessScope([(v, 10.0)]) as inner:
            v.assign_add(1.0)
            assert float(v) == 11.0
        assert float(v) == 2.0  # the inner scope's updates stay in the inner scope
        outer.add_update((v, 7.0))
        assert float(v) == 7.0
    assert float(v) == 1.0
    assert float(inner.get_current_value(v)) == 11.0 and float(outer.get_current_value(v)) == 7.0


def _model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2),
                              keras.layers.BatchNormalization()])
    model.compile("adam", "mse")
    return model


def _step(model, x):
    with keras.GradientTape() as tape:
        loss = keras.ops.mean(keras.ops.square(model(x, training=True)))
    grads = tape.gradient(loss, model.trainable_weights)
    model.optimizer.apply(grads, model.trainable_weights)


def test_training_step_in_a_scope_leaves_model_and_optimizer_unchanged():
    x = np.arange(12, dtype="float32").reshape(4, 3) / 10
    model, reference = _model(), _model()
    for m in (model, reference):
        m.train_on_batch(x, np.zeros((4, 2), "float32"))
    weights = model.get_weights()
    optimizer_state = [v.numpy() for v in model.optimizer.variables]
    mapping = [(v, np.full(v.shape, 0.5, "float32")) for v in model.trainable_weights]
    with keras.StatelessScope(mapping) as scope:
        _step(model, x)
    for a, b in zip(weights, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(optimizer_state, model.optimizer.variables):
        np.testing.assert_array_equal(a, b.numpy())
    # the same step run for real from the mapped values gives the scope's values
    for v in reference.trainable_weights:
        v.assign(np.full(v.shape, 0.5, "float32"))
    _step(reference, x)
    for v, r in zip(model.weights + model.optimizer.variables,
                    reference.weights + reference.optimizer.variables):
        np.testing.assert_array_equal(scope.get_current_value(v).numpy(), r.numpy())


def test_losses_are_collected_not_added():
    class AddsLoss(keras.layers.Layer):
        def call(self, x):
            self.add_loss(keras.ops.sum(x))
            return x

    layer = AddsLoss()
    with keras.StatelessScope(collect_losses=True) as scope:
        layer(np.ones((2, 2), "float32"))
    assert layer.losses == [] and [float(x) for x in scope.losses] == [4.0]
    with keras.StatelessScope() as scope:
        layer(np.ones((2, 2), "float32"))
    assert layer.losses == [] and scope.losses == []


def test_bad_mapping_in_keras_words():
    v = keras.Variable(1.0)
    with pytest.raises(ValueError, match="Invalid reference variable in StatelessScope: all keys "
                                         "in argument `mapping` must be Variable instances. "
                                         "Received instead: 1.0"):
        keras.StatelessScope([(1.0, 2.0)])
    with pytest.raises(ValueError, match=r"Invalid variable value in StatelessScope: .* with "
                                         r"shape \(2,\)\."):
        keras.StatelessScope([(v, [1.0, 2.0])])
