"""LayerNormalization: axes, center/scale, rms_scaling, gradients."""
import numpy as np
import pytest

from kerasish import layers
from kerasish.testing import check_gradients


def test_normalizes_each_example_over_axis():
    x = np.random.default_rng(0).standard_normal((3, 4, 5))
    ln = layers.LayerNormalization(dtype="float64", gamma_initializer="random_normal",
                                   beta_initializer="random_normal")
    y = ln(x).numpy()
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-3) * ln.gamma.numpy() + ln.beta.numpy()
    np.testing.assert_allclose(y, expected, atol=1e-10)
    assert [w.name for w in ln.weights] == ["gamma", "beta"] and ln.gamma.shape == (5,)
    check_gradients(lambda x, g, b: ln(x), [x, ln.gamma, ln.beta])


def test_several_axes():
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5))
    ln = layers.LayerNormalization(axis=[1, 3], dtype="float64")
    y = ln(x).numpy()
    assert ln.gamma.shape == (3, 5)
    mean, var = x.mean((1, 3), keepdims=True), x.var((1, 3), keepdims=True)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), atol=1e-10)
    check_gradients(lambda x: ln(x), [x[:1]])


def test_rms_scaling_and_no_params():
    x = np.random.default_rng(2).standard_normal((3, 6)) + 1
    ln = layers.LayerNormalization(rms_scaling=True, dtype="float64",
                                   gamma_initializer="random_normal")
    y = ln(x).numpy()
    assert [w.name for w in ln.weights] == ["gamma"]
    np.testing.assert_allclose(y, x / np.sqrt(x.var(-1, keepdims=True) + 1e-3) *
                               ln.gamma.numpy(), atol=1e-10)
    check_gradients(lambda x, g: ln(x), [x, ln.gamma])
    plain = layers.LayerNormalization(center=False, scale=False)
    plain.build((None, 6))
    assert plain.weights == []


def test_config_and_errors():
    ln = layers.LayerNormalization(axis=[1, 2], epsilon=1e-5)
    config = ln.get_config()
    assert config["axis"] == [1, 2] and config["epsilon"] == 1e-5
    assert config["rms_scaling"] is False
    with pytest.raises(TypeError, match="'axis'"):
        layers.LayerNormalization(axis="last")
    with pytest.raises(ValueError, match="axis 4 is out of bounds"):
        layers.LayerNormalization(axis=4)(np.zeros((2, 3)))


X_SMALL = np.array([[[0.3, -1.7, 2.9, 0.45], [1.1, 0.2, -0.6, 3.3]]], "float32")


def test_input_dtype_round_trip_as_keras():
    # Keras 3.15.1: LayerNormalization does not autocast its inputs; it computes in at
    # least float32 and casts the result back to the input dtype, then to its own.
    out = layers.LayerNormalization()(X_SMALL.astype("float16"))
    assert out.dtype == "float32"  # float16-rounded values
    np.testing.assert_array_equal(out.numpy(), [[[-0.11492919921875, -1.3408203125, 1.478515625,
                                                  -0.023040771484375],
                                                 [0.0682373046875, -0.548828125, -1.09765625,
                                                  1.5771484375]]])
    # integers are truncated by the cast back
    ints = layers.LayerNormalization()(np.array([[1, 2, 4, 9]], "int32"))
    np.testing.assert_array_equal(ints.numpy(), [[0.0, 0.0, 0.0, 1.0]])
    # a float16 layer still computes in float32
    half = layers.LayerNormalization(dtype="float16")(X_SMALL)
    assert half.dtype == "float16"
    np.testing.assert_array_equal(half.numpy().astype("float64"),
                                  [[[-0.11492919921875, -1.3408203125, 1.478515625,
                                     -0.022979736328125],
                                    [0.068603515625, -0.548828125, -1.09765625, 1.5771484375]]])
