"""Adagrad against a numpy reference; accumulators start at 0.1."""
import numpy as np
import pytest

from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, make_variables, reference, run


def test_defaults_match_keras():
    config = optimizers.Adagrad().get_config()
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["initial_accumulator_value"], config["epsilon"]) == (0.1, 1e-7)


def test_accumulators_start_at_initial_value():
    opt = optimizers.Adagrad(initial_accumulator_value=0.25)
    opt.build(make_variables())
    np.testing.assert_array_equal(opt.variables[2].numpy(), np.full((2, 3), 0.25, np.float32))


def test_three_steps():
    lr, eps = 0.1, 1e-7

    def update(w, g, acc, t):
        acc = acc + g * g
        return w - F32(lr) * g / np.sqrt(acc + F32(eps)), acc

    expected = reference(update, lambda w: np.full_like(w, 0.1))
    assert_history_close(run(optimizers.Adagrad(learning_rate=lr)), expected)
