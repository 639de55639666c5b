"""Adamax against a numpy reference."""
import numpy as np
import pytest

from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, make_variables, reference, run


def test_defaults_match_keras():
    config = optimizers.Adamax().get_config()
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["beta_1"], config["beta_2"], config["epsilon"]) == (0.9, 0.999, 1e-7)


def test_three_steps():
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-7

    def update(w, g, state, t):
        m, u = state
        m = m + (g - m) * F32(1 - b1)
        u = np.maximum(F32(b2) * u, np.abs(g))
        step = F32(lr) * m / ((F32(1) - F32(b1) ** F32(t)) * (u + F32(eps)))
        return w - step, (m, u)

    expected = reference(update, lambda w: (np.zeros_like(w),) * 2)
    assert_history_close(run(optimizers.Adamax(learning_rate=lr)), expected)


def test_slot_names():
    opt = optimizers.Adamax()
    opt.build(make_variables())
    assert [v.name for v in opt.variables[2:]] == [
        "dense_kernel_momentum", "dense_kernel_norm", "dense_bias_momentum", "dense_bias_norm"]
