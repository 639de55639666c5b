"""MultiOptimizer and OptimizerMap: Keras 3.15.1's rules (numbers: test_against_keras_steps)."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import optimizers


def _model(optimizer):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="dense")])
    model.compile(optimizer, "mse")
    model.fit(np.ones((4, 3)), np.zeros((4, 2)), epochs=2, verbose=0)
    return model


def test_each_variable_goes_to_its_optimizer_in_fit():
    sgd, adam = optimizers.SGD(0.1), optimizers.Adam(0.01)
    multi = optimizers.MultiOptimizer(optimizers.OptimizerMap(sgd, {".*/bias": adam}))
    _model(multi)
    assert multi.optimizers == [adam, sgd]
    assert int(multi.iterations.numpy()) == 2 and int(adam.iterations.numpy()) == 2
    assert [v.name for v in adam._trainable_variables] == ["bias"]
    assert [v.name for v in sgd._trainable_variables] == ["kernel"]
    assert len(multi.variables) == len(multi._variables) + len(sgd.variables) + len(adam.variables)


def test_map_lookup_rules():
    default, other = optimizers.SGD(), optimizers.Adam()
    mapping = optimizers.OptimizerMap(default, {"enc/.*": other})
    assert mapping["enc/dense/kernel"] is other and mapping["dec/enc/kernel"] is default
    mapping["enc/dense/.*"] = optimizers.Lion()
    with pytest.raises(ValueError, match="Multiple optimizers assigned"):
        mapping["enc/dense/kernel"]
    with pytest.raises(ValueError, match="already exists in the OptimizerMap"):
        mapping["enc/.*"] = optimizers.SGD()
    with pytest.raises(ValueError, match="cannot be MultiOptimizer"):
        mapping["x"] = optimizers.MultiOptimizer(mapping)
    with pytest.raises(TypeError, match="default_optimizer must be a Keras Optimizer"):
        optimizers.OptimizerMap("sgd")


def test_no_learning_rate_of_its_own():
    multi = optimizers.MultiOptimizer(lambda variable: optimizers.SGD())
    with pytest.raises(AttributeError, match="cannot be accessed on a MultiOptimizer"):
        multi.learning_rate
    with pytest.raises(AttributeError, match="cannot be set on a MultiOptimizer"):
        multi.learning_rate = 0.1
    with pytest.raises(NotImplementedError, match="built from a function"):
        multi.get_config()


def test_config_round_trip_and_set_weights():
    multi = optimizers.MultiOptimizer(optimizers.OptimizerMap(
        optimizers.SGD(0.2, momentum=0.9), {".*/bias": optimizers.Adam(0.01)}))
    model = _model(multi)
    clone = optimizers.MultiOptimizer.from_config(multi.get_config())
    assert [type(o).__name__ for o in clone.optimizers] == ["Adam", "SGD"]
    clone.build(model.trainable_variables)
    clone.set_weights([v.numpy() for v in multi.variables])
    for a, b in zip(clone.variables, multi.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
