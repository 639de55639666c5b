"""Lion against a numpy reference."""
import numpy as np
import pytest

from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, reference, run


def test_defaults_match_keras():
    config = optimizers.Lion().get_config()
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["beta_1"], config["beta_2"]) == (0.9, 0.99)


def test_three_steps():
    lr, b1, b2 = 0.01, 0.8, 0.95

    def update(w, g, m, t):
        w = w - F32(lr) * np.sign(m * F32(b1) + g * (F32(1) - F32(b1)))
        return w, m * F32(b2) + g * (F32(1) - F32(b2))

    expected = reference(update, np.zeros_like)
    assert_history_close(run(optimizers.Lion(learning_rate=lr, beta_1=b1, beta_2=b2)), expected)


@pytest.mark.parametrize("beta_1", [0.0, 1.5])
def test_beta_1_range(beta_1):
    with pytest.raises(ValueError, match="beta_1"):
        optimizers.Lion(beta_1=beta_1)
