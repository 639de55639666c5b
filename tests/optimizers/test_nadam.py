"""Nadam against a numpy reference of Keras's momentum-schedule formulas."""
import numpy as np
import pytest

from kerasish import optimizers
from optimizer_helpers import F32, GRADS, INIT, assert_history_close, make_variables, run


def nadam_reference(lr, b1, b2, eps):
    weights = [w.copy() for w in INIT]
    ms = [np.zeros_like(w) for w in weights]
    vs = [np.zeros_like(w) for w in weights]
    u_product, history = F32(1), []
    for t, step_grads in enumerate(GRADS, start=1):
        u_t = F32(b1) * (F32(1) - F32(0.5) * F32(0.96) ** F32(t))
        u_t_1 = F32(b1) * (F32(1) - F32(0.5) * F32(0.96) ** F32(t + 1))
        u_product = u_product * F32(b1) * (F32(1) - F32(0.5) * F32(0.96) ** F32(t))
        u_product_t_1 = u_product * u_t_1
        for i, g in enumerate(step_grads):
            ms[i] = ms[i] + (g - ms[i]) * (F32(1) - F32(b1))
            vs[i] = vs[i] + (g * g - vs[i]) * (F32(1) - F32(b2))
            m_hat = (u_t_1 * ms[i] / (F32(1) - u_product_t_1)
                     + (F32(1) - u_t) * g / (F32(1) - u_product))
            v_hat = vs[i] / (F32(1) - F32(b2) ** F32(t))
            weights[i] = weights[i] - m_hat * F32(lr) / (np.sqrt(v_hat) + F32(eps))
        history.append([w.copy() for w in weights])
    return history


def test_defaults_match_keras():
    config = optimizers.Nadam().get_config()
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["beta_1"], config["beta_2"], config["epsilon"]) == (0.9, 0.999, 1e-7)


def test_three_steps():
    got = run(optimizers.Nadam(learning_rate=0.01))
    assert_history_close(got, nadam_reference(0.01, 0.9, 0.999, 1e-7))


def test_u_product_is_the_last_variable():
    opt = optimizers.Nadam()
    opt.build(make_variables())
    assert [v.name for v in opt.variables[2:6]] == [
        "dense_kernel_momentum", "dense_kernel_velocity",
        "dense_bias_momentum", "dense_bias_velocity"]
    assert len(opt.variables) == 7 and float(opt.variables[-1]) == 1.0


def test_u_product_lives_under_the_optimizer_name_as_keras():
    # Keras 3.15.1 lists it last, as "nadam/variable", after a first `apply`.
    var = make_variables()[0]
    optimizer = optimizers.Nadam()
    optimizer.apply_gradients([(np.ones(var.shape, "float32"), var)])
    assert optimizer.variables[-1].path == "nadam/variable"
