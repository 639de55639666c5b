"""Adadelta against a numpy reference."""
import numpy as np
import pytest

from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, make_variables, reference, run


def test_defaults_match_keras():
    config = optimizers.Adadelta().get_config()
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["rho"], config["epsilon"]) == (0.95, 1e-7)


def test_three_steps():
    lr, rho, eps = 1.0, 0.9, 1e-6

    def update(w, g, state, t):
        ag, ad = state
        ag = F32(rho) * ag + F32(1 - rho) * (g * g)
        delta = -(np.sqrt(ad + F32(eps)) * g / np.sqrt(ag + F32(eps)))
        ad = F32(rho) * ad + F32(1 - rho) * (delta * delta)
        return w + F32(lr) * delta, (ag, ad)

    expected = reference(update, lambda w: (np.zeros_like(w),) * 2)
    assert_history_close(run(optimizers.Adadelta(learning_rate=lr, rho=rho, epsilon=eps)), expected)


def test_slots_interleaved():
    opt = optimizers.Adadelta(name="ada")
    opt.build(make_variables())
    assert [v.name for v in opt.variables[2:]] == [
        "dense_kernel_accumulated_grad", "dense_kernel_accumulated_delta_var",
        "dense_bias_accumulated_grad", "dense_bias_accumulated_delta_var"]
