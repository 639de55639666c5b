"""Adafactor against trajectories recorded from Keras 3.15.1 (fixtures/optimizers/adafactor.json)."""
import json
import os

import numpy as np
import pytest

import kerasish as keras

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "optimizers",
                                      "adafactor.json")))


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=["relative", "fixed"])
def test_matches_keras(case):
    variables = {k: keras.Variable(np.array(v, "float32")) for k, v in FIXTURE["start"].items()}
    optimizer = keras.optimizers.Adafactor(**case["kwargs"])
    for grads in FIXTURE["grads"]:
        optimizer.apply_gradients([(np.array(grads[k], "float32"), variables[k])
                                   for k in ("w2", "w1", "w0")])
    for name, expected in case["result"].items():
        np.testing.assert_allclose(variables[name].numpy(), expected, rtol=2e-6, atol=1e-6)


def test_state_layout_and_config():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    optimizer = keras.optimizers.Adafactor()
    optimizer.build(model.trainable_variables)
    # Keras's order: row and column factors then the velocity, per variable
    assert [v.name for v in optimizer.variables] == [
        "iteration", "learning_rate", "kernel", "kernel", "sequential_dense_kernel_velocity",
        "bias", "bias", "sequential_dense_bias_velocity"]
    clone = keras.optimizers.Adafactor.from_config(optimizer.get_config())
    assert clone.get_config() == optimizer.get_config()
    assert isinstance(keras.optimizers.get("adafactor"), keras.optimizers.Adafactor)
