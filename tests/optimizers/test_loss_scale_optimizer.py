"""LossScaleOptimizer: dynamic loss scaling, numbers from Keras 3.15.1."""
import numpy as np
import pytest

import kerasish as keras


def test_dynamic_scale_halves_on_overflow_and_doubles_after_growth_steps():
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=4.0,
                                              dynamic_growth_steps=2)
    v = keras.Variable(np.ones(2, "float32"))
    expected = [  # (v, scale, step_counter, iterations) after each apply, from Keras
        ([0.9, 0.8], 4.0, 1, 1), ([0.9, 0.8], 2.0, 0, 1), ([0.8, 0.7], 2.0, 1, 2),
        ([0.7, 0.6], 4.0, 0, 3), ([0.6, 0.5], 4.0, 1, 4)]
    grads = [[1.0, 2.0], [np.inf, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    for g, (value, scale, counter, iterations) in zip(grads, expected):
        scaled = np.array(g, "float32") * np.float32(opt.scale_loss(1.0).numpy())
        opt.apply([scaled], [v])
        np.testing.assert_allclose(v.numpy(), value, rtol=1e-6)
        assert float(opt.dynamic_scale.numpy()) == scale
        assert int(opt.step_counter.numpy()) == counter
        assert int(opt.iterations.numpy()) == iterations


def test_scale_loss_before_the_first_step_uses_the_initial_scale():
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD())
    assert float(opt.scale_loss(2.0).numpy()) == 65536.0


def test_config_round_trip_and_keras_keys():
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.01), initial_scale=8.0,
                                              dynamic_growth_steps=10, name="lso")
    config = opt.get_config()
    assert sorted(config) == ["dynamic_growth_steps", "initial_scale", "inner_optimizer",
                              "name"]
    again = keras.optimizers.deserialize(keras.optimizers.serialize(opt))
    assert type(again.inner_optimizer).__name__ == "Adam"
    assert again.initial_scale == 8.0 and again.dynamic_growth_steps == 10


@pytest.mark.parametrize("kwargs,message", [
    ({"dynamic": False}, "no longer supports `dynamic=False`"),
    ({"clipnorm": 1.0}, "does not support `clipnorm`"),
    ({"foo": 1}, "does not support arguments: `foo`"),
])
def test_unsupported_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(), **kwargs)


def test_learning_rate_is_the_inner_optimizers():
    inner = keras.optimizers.SGD(0.25)
    opt = keras.optimizers.LossScaleOptimizer(inner)
    assert float(opt.learning_rate.numpy()) == 0.25
    opt.learning_rate = 0.5
    assert float(inner.learning_rate.numpy()) == 0.5
