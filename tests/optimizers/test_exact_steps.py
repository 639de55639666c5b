"""Optimizer steps bit for bit against Keras 3.15.1 (fixture: make_exact_steps.py).

Elementwise updates with fixed gradients have no matrix product, so every value must be
Keras's exactly: the bias corrections `beta ** t` are TensorFlow's `Pow` of single values
(libm's powf, not numpy's float32 power), Ftrl's `accum ** -lr_power` its array `Pow`,
and Ftrl adds `linear + (g - ...)` in Keras's order.
"""
import json
import os

import numpy as np
import pytest

from kerasish import optimizers
import kerasish as keras

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "optimizers")
RECORDED = np.load(os.path.join(HERE, "exact_steps.npz"))
with open(os.path.join(HERE, "exact_steps_cases.json")) as f:
    CASES = json.load(f)["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_steps_are_kerass_to_the_bit(name):
    cls, kwargs = CASES[name]
    optimizer = getattr(optimizers, cls)(**kwargs)
    variables = [keras.Variable(RECORDED[f"init/{i}"]) for i in range(2)]
    for step in range(RECORDED["grads/0"].shape[0]):
        optimizer.apply_gradients(
            [(RECORDED[f"grads/{i}"][step], v) for i, v in enumerate(variables)])
    for i, v in enumerate(variables):
        np.testing.assert_array_equal(v.numpy(), RECORDED[f"{name}/{i}"])
