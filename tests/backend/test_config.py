"""Global settings: floatx, epsilon, image data format, dtype names."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.backend import config


@pytest.fixture
def restore_floatx():
    before = config.floatx()
    yield
    config.set_floatx(before)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_set_floatx_changes_defaults(dtype, restore_floatx):
    keras.config.set_floatx(dtype)
    assert keras.config.floatx() == dtype
    assert ops.zeros((2,)).dtype == dtype and ops.convert_to_tensor(1.5).dtype == dtype
    assert ops.mean(ops.convert_to_tensor([1, 2])).dtype == dtype
    assert ops.divide(ops.convert_to_tensor([1, 2]), 2).dtype == dtype  # `/` is TF's: float64
    assert keras.Variable(1.0).dtype == dtype


def test_bad_floatx_and_bfloat16_without_ml_dtypes(restore_floatx, monkeypatch):
    with pytest.raises(ValueError, match="Unknown `floatx` value: 'int32'"):
        config.set_floatx("int32")
    monkeypatch.setattr(config, "_bfloat16", lambda: None)
    config._names.pop("bfloat16", None)
    with pytest.raises(ValueError, match="bfloat16.*ml_dtypes"):
        config.set_floatx("bfloat16")
    assert config.floatx() != "bfloat16"


def test_epsilon_and_image_data_format():
    eps = config.epsilon()
    try:
        config.set_epsilon(1e-5)
        assert keras.config.epsilon() == 1e-5
    finally:
        config.set_epsilon(eps)
    fmt = config.image_data_format()
    try:
        config.set_image_data_format("channels_first")
        assert keras.config.image_data_format() == "channels_first"
        with pytest.raises(ValueError, match="channels_first"):
            config.set_image_data_format("nhwc")
    finally:
        config.set_image_data_format(fmt)


def test_standardize_dtype():
    assert config.standardize_dtype(np.float32) == "float32"
    assert config.standardize_dtype(np.dtype("int8")) == "int8"
    assert config.standardize_dtype("float") == "float64"
    assert config.standardize_dtype(None) == config.floatx()
    assert config.is_float_dtype("float16") and config.is_int_dtype("uint8") and not config.is_int_dtype("bool")
    with pytest.raises(ValueError, match="Invalid dtype"):
        config.standardize_dtype("floaty")
