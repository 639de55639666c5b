"""Ftrl against the values Keras 3.15.1 publishes in its own tests; argument checks."""
import numpy as np
import pytest

import kerasish as keras


def test_single_step_known_values():
    optimizer = keras.optimizers.Ftrl(learning_rate=0.5)
    variable = keras.Variable([1.0, 2.0, 3.0, 4.0])
    optimizer.apply_gradients([(np.array([1.0, 6.0, 7.0, 2.0]), variable)])
    np.testing.assert_allclose(variable.numpy(), [0.2218, 1.3954, 2.3651, 2.8814], atol=1e-4)


def test_regularized_trajectory_known_values():
    optimizer = keras.optimizers.Ftrl(
        learning_rate=0.05, learning_rate_power=-0.2, initial_accumulator_value=0.4,
        l1_regularization_strength=0.05, l2_regularization_strength=0.15,
        l2_shrinkage_regularization_strength=0.01, beta=0.3)
    x = keras.Variable(np.ones(10))
    golden = [[0.0] * 10,
              [-0.0034, -0.0077, -0.0118, -0.0157, -0.0194, -0.023, -0.0263, -0.0294, -0.0325,
               -0.0354],
              [-0.0164, -0.0328, -0.0481, -0.0623, -0.0753, -0.0875, -0.099, -0.1098, -0.1201,
               -0.1299]]
    optimizer.apply_gradients([(np.full(10, 0.01), x)])
    np.testing.assert_allclose(x.numpy(), golden[0], atol=5e-4)
    optimizer.apply_gradients([(np.arange(0.1, 1.1, 0.1), x)])
    np.testing.assert_allclose(x.numpy(), golden[1], atol=5e-4)
    for _ in range(3):
        optimizer.apply_gradients([(np.arange(0.1, 1.1, 0.1), x)])
    np.testing.assert_allclose(x.numpy(), golden[2], atol=5e-4)


@pytest.mark.parametrize("name, value, need", [
    ("initial_accumulator_value", -0.1, "positive or zero"),
    ("learning_rate_power", 0.1, "negative or zero"),
    ("l1_regularization_strength", -0.1, "positive or zero"),
    ("l2_regularization_strength", -0.1, "positive or zero"),
    ("l2_shrinkage_regularization_strength", -0.1, "positive or zero"),
])
def test_invalid_arguments(name, value, need):
    with pytest.raises(ValueError, match=f"^`{name}` needs to be {need}. Received: {name}={value}.$"):
        keras.optimizers.Ftrl(**{name: value})


def test_config_round_trip_and_lookup():
    optimizer = keras.optimizers.Ftrl(learning_rate=0.05, learning_rate_power=-0.2, beta=0.3)
    clone = keras.optimizers.Ftrl.from_config(optimizer.get_config())
    assert clone.get_config() == optimizer.get_config()
    assert isinstance(keras.optimizers.get("ftrl"), keras.optimizers.Ftrl)
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert restored.get_config()["beta"] == 0.3


def test_variables_order_and_iteration_dtype_as_keras():
    # Keras 3.15.1 after one fit step of Dense(2) on 3 features:
    # iteration (int64), learning_rate, then accumulator/linear interleaved per variable.
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.Ftrl(), "mse")
    model.fit(np.ones((2, 3)), np.ones((2, 2)), verbose=0)
    variables = model.optimizer.variables
    assert [v.path for v in variables] == [
        "ftrl/iteration", "ftrl/learning_rate",
        "ftrl/sequential_dense_kernel_accumulator", "ftrl/sequential_dense_kernel_linear",
        "ftrl/sequential_dense_bias_accumulator", "ftrl/sequential_dense_bias_linear"]
    assert variables[0].dtype == "int64"
