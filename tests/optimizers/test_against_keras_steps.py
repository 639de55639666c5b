"""Lamb, Adafactor and Muon step by step against real Keras 3.15.1 (fixture) and numpy references."""
import json
import os

import numpy as np
import pytest

from kerasish import optimizers
from optimizer_helpers import F32, assert_history_close, reference, run

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "optimizers",
                       "keras_optimizer_steps.json")
with open(FIXTURE) as f:
    KERAS = json.load(f)["cases"]


def _make(class_name, kwargs):
    if class_name == "MultiOptimizer":  # as the fixture: SGD for the kernel, Adam for "bias"
        return optimizers.MultiOptimizer(optimizers.OptimizerMap(
            optimizers.SGD(**kwargs["sgd"]), {".*bias": optimizers.Adam(**kwargs["adam"])}))
    return getattr(optimizers, class_name)(**kwargs)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_matches_real_keras(name):
    case = KERAS[name]
    optimizer = _make(case["class_name"], case["kwargs"])
    expected = [[np.asarray(w, F32) for w in step] for step in case["history"]]
    assert_history_close(run(optimizer), expected, rtol=2e-6, atol=1e-7)


def test_lamb_against_numpy_reference():
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-7

    def update(w, g, state, t):
        m, v = state
        m = m + (g - m) * F32(1 - b1)
        v = v + (g * g - v) * F32(1 - b2)
        u = (m / (F32(1) - F32(b1) ** F32(t))) / (np.sqrt(v / (F32(1) - F32(b2) ** F32(t)))
                                                  + F32(eps))
        w_norm, u_norm = np.sqrt(np.sum(w * w)), np.sqrt(np.sum(u * u))
        ratio = w_norm / u_norm if w_norm > 0 and u_norm > 0 else F32(1)
        return w - ratio * F32(lr) * u, (m, v)

    expected = reference(update, lambda w: (np.zeros_like(w), np.zeros_like(w)))
    assert_history_close(run(optimizers.Lamb(learning_rate=lr)), expected, rtol=2e-6)


def test_configs_round_trip():
    for optimizer in (optimizers.Lamb(beta_1=0.7), optimizers.Adafactor(clip_threshold=2.0)):
        clone = type(optimizer).from_config(optimizer.get_config())
        assert clone.get_config() == optimizer.get_config()
    assert optimizers.get("adafactor").__class__ is optimizers.Adafactor
