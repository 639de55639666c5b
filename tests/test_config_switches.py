"""keras.config switches: defaults as in Keras 3.15.1, validation, set_backend."""
import logging

import numpy as np
import pytest

import kerasish as keras


def test_defaults_match_keras():
    c = keras.config
    assert c.is_flash_attention_enabled() is None
    assert c.is_traceback_filtering_enabled() is True
    assert c.is_interactive_logging_enabled() is True
    assert c.max_epochs() is None and c.max_steps_per_epoch() is None
    assert c.is_nnx_enabled() is False


@pytest.mark.parametrize("name", ["flash_attention", "traceback_filtering",
                                  "interactive_logging"])
def test_switches_toggle(name):
    c = keras.config
    getattr(c, f"disable_{name}")()
    assert getattr(c, f"is_{name}_enabled")() is False
    getattr(c, f"enable_{name}")()
    assert getattr(c, f"is_{name}_enabled")() is True
    if name == "flash_attention":
        keras.backend.switches._state["flash_attention"] = None


def test_caps_validate():
    with pytest.raises(ValueError, match=r"set_max_epochs.*positive int.*max_epochs=0"):
        keras.config.set_max_epochs(0)
    keras.config.set_max_steps_per_epoch(3)
    assert keras.config.max_steps_per_epoch() == 3
    keras.config.set_max_steps_per_epoch(None)


def test_set_backend_names_the_backends():
    keras.config.set_backend("numpy")
    assert keras.backend.backend() == "numpy"
    with pytest.raises(ValueError, match=r"kerasish has the backends \('numpy', 'cupy'\).*'jax'"):
        keras.config.set_backend("jax")


def test_disabled_interactive_logging_goes_to_logging(caplog, capsys):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    keras.config.disable_interactive_logging()
    try:
        with caplog.at_level(logging.INFO, logger="kerasish"):
            model.summary()
            model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=1)
    finally:
        keras.config.enable_interactive_logging()
    assert capsys.readouterr().out == ""
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith(f'Model: "{model.name}"') for m in messages)
    assert "Epoch 1/2" in messages and "Epoch 2/2" in messages
    assert any(m.startswith("1/1 ") and "loss:" in m and "\x1b" not in m for m in messages)


def test_caps_limit_fit_like_keras():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    keras.config.set_max_epochs(2)
    keras.config.set_max_steps_per_epoch(3)
    try:
        with pytest.warns(UserWarning, match="Limiting epochs to 2"):
            history = model.fit(np.ones((40, 2)), np.ones((40, 1)), batch_size=4, epochs=5,
                                verbose=0)
    finally:
        keras.config.set_max_epochs(None)
        keras.config.set_max_steps_per_epoch(None)
    assert history.epoch == [0, 1]
    assert int(model.optimizer.iterations.numpy()) == 6  # 2 epochs of 3 steps (of 10)
