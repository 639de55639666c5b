"""Adam (and AMSGrad) against numpy references; epsilon placement vs PyTorch."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, reference, run


def adam_reference(lr=0.01, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False, grads=None):
    """Keras 3 `Adam.update_step` in float32 numpy."""
    def update(w, g, state, t):
        m, v, v_hat = state
        m = m + (g - m) * F32(1 - b1)
        v = v + (g * g - v) * F32(1 - b2)
        alpha = F32(lr) * np.sqrt(F32(1) - F32(b2) ** F32(t)) / (F32(1) - F32(b1) ** F32(t))
        if amsgrad:
            v_hat = np.maximum(v_hat, v)
        denom = np.sqrt(v_hat if amsgrad else v) + F32(eps)
        return w - m * alpha / denom, (m, v, v_hat)

    kwargs = {} if grads is None else {"grads": grads}
    return reference(update, lambda w: (np.zeros_like(w),) * 3, **kwargs)


def test_defaults_match_keras():
    config = optimizers.Adam().get_config()
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["beta_1"], config["beta_2"], config["epsilon"], config["amsgrad"]) == (
        0.9, 0.999, 1e-7, False)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_three_steps(amsgrad):
    got = run(optimizers.Adam(learning_rate=0.01, amsgrad=amsgrad))
    assert_history_close(got, adam_reference(amsgrad=amsgrad))


def test_custom_betas_and_epsilon():
    got = run(optimizers.Adam(learning_rate=0.05, beta_1=0.5, beta_2=0.9, epsilon=1e-3))
    assert_history_close(got, adam_reference(lr=0.05, b1=0.5, b2=0.9, eps=1e-3))


def test_epsilon_outside_bias_correction_differs_from_pytorch():
    """Keras adds epsilon to sqrt(v), PyTorch to sqrt(v / (1 - beta_2^t))."""
    g, lr, eps = 1e-6, 1.0, 1e-7
    w = keras.Variable(np.zeros(1, np.float32))
    optimizers.Adam(learning_rate=lr, epsilon=eps).apply_gradients(
        [(np.array([g], np.float32), w)])
    m, v = 0.1 * g, 0.001 * g * g
    keras_step = lr * np.sqrt(1 - 0.999) / (1 - 0.9) * m / (np.sqrt(v) + eps)
    torch_step = lr * (m / 0.1) / (np.sqrt(v / 0.001) + eps)
    np.testing.assert_allclose(-w.numpy()[0], keras_step, rtol=1e-5)
    assert abs(keras_step - torch_step) > 0.5  # ~0.24 vs ~0.91: not PyTorch's Adam


def test_slot_names_and_order():
    opt = optimizers.Adam(amsgrad=True)
    run(opt, grads=[[np.ones((2, 3), np.float32), np.ones(3, np.float32)]])
    assert [v.path for v in opt.variables] == [
        "adam/iteration", "adam/learning_rate",
        "adam/dense_kernel_momentum", "adam/dense_kernel_velocity",
        "adam/dense_bias_momentum", "adam/dense_bias_velocity",
        "adam/dense_kernel_velocity_hat", "adam/dense_bias_velocity_hat",
    ]
    assert [v.dtype for v in opt.variables[:2]] == ["int64", "float32"]  # Keras 3.15.1 (TF)
    assert int(opt.iterations) == 1
