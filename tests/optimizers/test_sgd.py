"""SGD: plain, momentum and Nesterov rules against numpy references."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, make_variables, reference, run


def test_defaults_match_keras():
    opt = optimizers.SGD()
    config = opt.get_config()
    assert (config["learning_rate"], config["momentum"], config["nesterov"]) == (
        pytest.approx(0.01), 0.0, False)
    assert opt.name == "sgd"


def test_plain_sgd_three_steps():
    expected = reference(lambda w, g, s, t: (w - g * F32(0.1), s), lambda w: None)
    assert_history_close(run(optimizers.SGD(learning_rate=0.1)), expected)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_three_steps(nesterov):
    lr, mu = F32(0.1), F32(0.9)

    def update(w, g, m, t):
        m = m * mu - g * lr
        return (w + (m * mu - g * lr) if nesterov else w + m), m

    expected = reference(update, np.zeros_like)
    got = run(optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=nesterov))
    assert_history_close(got, expected)


def test_momentum_slots_only_with_momentum():
    plain, heavy = optimizers.SGD(), optimizers.SGD(momentum=0.5)
    plain.build(make_variables())
    heavy.build(make_variables())
    assert [v.path for v in plain.variables] == ["sgd/iteration", "sgd/learning_rate"]
    assert [v.path for v in heavy.variables][2:] == [
        "sgd_1/dense_kernel_momentum", "sgd_1/dense_bias_momentum"]


def test_clipnorm_measured_keras_value():
    w = keras.Variable(np.zeros(2, np.float32))
    optimizers.SGD(learning_rate=1.0, clipnorm=1.0).apply_gradients(
        [(np.array([3.0, 4.0], np.float32), w)])
    np.testing.assert_allclose(w.numpy(), [-0.6, -0.8], rtol=1e-6)


def test_global_clipnorm_measured_keras_value():
    a, b = keras.Variable(np.zeros(2, np.float32)), keras.Variable(np.zeros(1, np.float32))
    optimizers.SGD(learning_rate=1.0, global_clipnorm=1.0).apply_gradients(
        [(np.array([3.0, 0.0], np.float32), a), (np.array([4.0], np.float32), b)])
    np.testing.assert_allclose(a.numpy(), [-0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), [-0.8], rtol=1e-6)


@pytest.mark.parametrize("momentum", [-0.1, 1.5, "0.9"])
def test_invalid_momentum(momentum):
    with pytest.raises(ValueError, match="momentum"):
        optimizers.SGD(momentum=momentum)
