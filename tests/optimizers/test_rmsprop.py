"""RMSprop (plain, momentum, centered) against numpy references."""
import numpy as np
import pytest

from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, make_variables, reference, run


def rmsprop_reference(lr, rho, momentum, eps, centered):
    """Keras 3 `RMSprop.update_step` in float32 numpy (epsilon inside the sqrt)."""
    def update(w, g, state, t):
        v, mom, a = state
        v = F32(rho) * v + F32(1 - rho) * (g * g)
        if centered:
            a = F32(rho) * a + F32(1 - rho) * g
            denom = v - a * a + F32(eps)
        else:
            denom = v + F32(eps)
        inc = F32(lr) * g / np.sqrt(denom)
        if momentum > 0:
            mom = F32(momentum) * mom + inc
            return w - mom, (v, mom, a)
        return w - inc, (v, mom, a)

    return reference(update, lambda w: (np.zeros_like(w),) * 3)


def test_defaults_match_keras():
    opt = optimizers.RMSprop()
    config = opt.get_config()
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["rho"], config["momentum"], config["epsilon"], config["centered"]) == (
        0.9, 0.0, 1e-7, False)
    assert opt.name == "rm_sprop"  # Keras's snake case of "RMSprop"


@pytest.mark.parametrize("momentum,centered",
                         [(0.0, False), (0.5, False), (0.0, True), (0.5, True)])
def test_three_steps(momentum, centered):
    opt = optimizers.RMSprop(learning_rate=0.01, rho=0.8, momentum=momentum, epsilon=1e-6,
                             centered=centered)
    assert_history_close(run(opt), rmsprop_reference(0.01, 0.8, momentum, 1e-6, centered))


def test_slot_order_velocity_then_momentum_then_average():
    opt = optimizers.RMSprop(momentum=0.5, centered=True, name="rms")
    opt.build(make_variables())
    assert [v.name for v in opt.variables[2:]] == [
        "dense_kernel_velocity", "dense_bias_velocity", "dense_kernel_momentum",
        "dense_bias_momentum", "dense_kernel_average_gradient", "dense_bias_average_gradient"]
