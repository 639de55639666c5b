"""AdamW: Adam plus decoupled weight decay applied before the update."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, make_variables, reference, run


def test_defaults_match_keras():
    opt = optimizers.AdamW()
    assert opt.weight_decay == 0.004
    assert opt.get_config()["learning_rate"] == pytest.approx(0.001)
    assert opt.name == "adam_w"


def test_measured_keras_decay_with_zero_gradient():
    w = keras.Variable(np.ones(1, np.float32))
    optimizers.AdamW(learning_rate=0.1, weight_decay=0.5).apply_gradients(
        [(np.zeros(1, np.float32), w)])
    np.testing.assert_allclose(w.numpy(), [0.95], rtol=1e-6)


def test_three_steps():
    lr, wd, b1, b2, eps = 0.01, 0.1, 0.9, 0.999, 1e-7

    def update(w, g, state, t):
        m, v = state
        w = w - w * F32(wd) * F32(lr)
        m = m + (g - m) * F32(1 - b1)
        v = v + (g * g - v) * F32(1 - b2)
        alpha = F32(lr) * np.sqrt(F32(1) - F32(b2) ** F32(t)) / (F32(1) - F32(b1) ** F32(t))
        return w - m * alpha / (np.sqrt(v) + F32(eps)), (m, v)

    expected = reference(update, lambda w: (np.zeros_like(w),) * 2)
    assert_history_close(run(optimizers.AdamW(learning_rate=lr, weight_decay=wd)), expected)


def test_weight_decay_none_rejected():
    with pytest.raises(ValueError, match="weight_decay"):
        optimizers.AdamW(weight_decay=None)


@pytest.mark.parametrize("how", ["names", "list"])
def test_exclude_from_weight_decay(how):
    kernel, bias = make_variables()
    opt = optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
    if how == "names":
        opt.exclude_from_weight_decay(var_names=["bias"])
    else:
        opt.exclude_from_weight_decay(var_list=[bias])
    before = kernel.numpy(), bias.numpy()
    opt.apply_gradients([(np.zeros((2, 3), np.float32), kernel), (np.zeros(3, np.float32), bias)])
    np.testing.assert_allclose(kernel.numpy(), before[0] * F32(0.95), rtol=1e-6)
    np.testing.assert_array_equal(bias.numpy(), before[1])
