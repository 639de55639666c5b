"""Statistics, fans, seeds and dtypes of the random initializers."""
import math

import numpy as np
import pytest

import kerasish as keras
from kerasish import initializers


def _draw(init, shape, dtype=None):
    return init(shape, dtype=dtype).numpy()


@pytest.mark.parametrize("shape, fans", [
    ((), (1, 1)), ((7,), (7, 7)), ((4, 6), (4, 6)),
    ((5, 2, 3), (10, 15)), ((3, 3, 16, 32), (144, 288)), ((2, 2, 2, 3, 4), (24, 32)),
])
def test_compute_fans_follows_keras(shape, fans):
    assert initializers.compute_fans(shape) == fans


def test_glorot_uniform_limit_for_dense_kernel():
    w = _draw(initializers.GlorotUniform(seed=1), (100, 50))
    limit = math.sqrt(6 / 150)                      # 0.2
    assert w.dtype == np.float32 and w.shape == (100, 50)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    assert abs(w.var() - limit ** 2 / 3) < 0.05 * limit ** 2 / 3
    assert abs(w.mean()) < 0.01


def test_glorot_uniform_uses_receptive_field_for_conv_kernels():
    w = _draw(initializers.GlorotUniform(seed=2), (3, 3, 16, 32))
    limit = math.sqrt(6 / (144 + 288))
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit


@pytest.mark.parametrize("cls, scale, mode", [
    (initializers.HeUniform, 2.0, "fan_in"),
    (initializers.LecunUniform, 1.0, "fan_in"),
    (initializers.GlorotUniform, 1.0, "fan_avg"),
])
def test_uniform_presets_have_keras_limits(cls, scale, mode):
    shape = (3, 3, 16, 32)
    fan_in, fan_out = 144, 288
    n = {"fan_in": fan_in, "fan_avg": (fan_in + fan_out) / 2}[mode]
    limit = math.sqrt(3 * scale / n)
    w = _draw(cls(seed=3), shape)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.98 * limit


@pytest.mark.parametrize("cls, expected_std", [
    (initializers.HeNormal, math.sqrt(2 / 144)),
    (initializers.LecunNormal, math.sqrt(1 / 144)),
    (initializers.GlorotNormal, math.sqrt(2 / (144 + 288))),
])
def test_truncated_normal_presets_have_keras_stddev_and_bounds(cls, expected_std):
    w = _draw(cls(seed=4), (3, 3, 16, 32))
    assert abs(w.std() - expected_std) < 0.04 * expected_std
    bound = 2 * expected_std / 0.87962566103423978   # two pre-truncation stddevs
    assert np.abs(w).max() <= bound * (1 + 1e-6)
    assert np.abs(w).max() > 0.95 * bound


def test_variance_scaling_modes_and_distributions():
    shape = (40, 250)
    fan_out_std = math.sqrt(3.0 / 250)
    w = _draw(initializers.VarianceScaling(3.0, "fan_out", "untruncated_normal", seed=5), shape)
    assert abs(w.std() - fan_out_std) < 0.03 * fan_out_std
    assert np.abs(w).max() > 2.5 * fan_out_std               # not truncated
    w = _draw(initializers.VarianceScaling(1.0, "fan_in", "uniform", seed=5), shape)
    assert np.abs(w).max() <= math.sqrt(3 / 40)


def test_variance_scaling_accepts_normal_alias_and_validates():
    assert initializers.VarianceScaling(distribution="normal").distribution == "truncated_normal"
    with pytest.raises(ValueError, match="scale"):
        initializers.VarianceScaling(scale=0.0)
    with pytest.raises(ValueError, match="mode.*fan_in"):
        initializers.VarianceScaling(mode="fan_sum")
    with pytest.raises(ValueError, match="distribution"):
        initializers.VarianceScaling(distribution="cauchy")


def test_random_normal_uniform_truncated_statistics():
    w = _draw(initializers.RandomNormal(mean=1.0, stddev=2.0, seed=6), (200, 100))
    assert abs(w.mean() - 1.0) < 0.03 and abs(w.std() - 2.0) < 0.03
    w = _draw(initializers.RandomUniform(minval=-3.0, maxval=1.0, seed=6), (200, 100))
    assert w.min() >= -3.0 and w.max() < 1.0 and abs(w.mean() + 1.0) < 0.03
    w = _draw(initializers.TruncatedNormal(mean=0.5, stddev=0.1, seed=6), (200, 100))
    assert w.min() >= 0.3 - 1e-6 and w.max() <= 0.7 + 1e-6
    assert abs(w.std() - 0.1 * 0.87962566103423978) < 0.003


def test_defaults_match_keras():
    assert initializers.RandomNormal().get_config() == {"seed": None, "mean": 0.0, "stddev": 0.05}
    assert initializers.RandomUniform().get_config() == {"seed": None, "minval": -0.05, "maxval": 0.05}
    assert initializers.TruncatedNormal().get_config() == {"seed": None, "mean": 0.0, "stddev": 0.05}
    assert initializers.VarianceScaling().get_config() == {
        "seed": None, "scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal",
        "input_axes": None, "output_axes": None}   # Keras 3.15.1's keys and order
    w = _draw(initializers.get("uniform"), (50, 50))
    assert np.abs(w).max() <= 0.05


def test_int_seed_repeats_across_calls_and_instances():
    a = _draw(initializers.GlorotUniform(seed=7), (4, 3))
    b = initializers.GlorotUniform(seed=7)
    np.testing.assert_array_equal(a, _draw(b, (4, 3)))
    np.testing.assert_array_equal(a, _draw(b, (4, 3)))
    assert not np.array_equal(a, _draw(initializers.GlorotUniform(seed=8), (4, 3)))


def test_seed_generator_advances_between_calls():
    init = initializers.RandomNormal(seed=keras.random.SeedGenerator(3))
    assert not np.array_equal(_draw(init, (5,)), _draw(init, (5,)))


def test_unseeded_instance_repeats_like_keras3_and_instances_differ():
    init = initializers.HeNormal()
    np.testing.assert_array_equal(_draw(init, (6, 2)), _draw(init, (6, 2)))
    assert not np.array_equal(_draw(init, (6, 2)), _draw(initializers.HeNormal(), (6, 2)))
    assert init.get_config() == {"seed": None, "input_axes": None, "output_axes": None}


def test_unseeded_initializers_follow_set_random_seed():
    keras.utils.set_random_seed(123)
    a = _draw(initializers.GlorotUniform(), (3, 3))
    keras.utils.set_random_seed(123)
    np.testing.assert_array_equal(a, _draw(initializers.GlorotUniform(), (3, 3)))


def test_bad_seed_is_rejected():
    with pytest.raises(ValueError, match="seed.*Received: seed='x'"):
        initializers.RandomNormal(seed="x")


def test_float_dtypes_are_honoured():
    w = initializers.GlorotNormal(seed=1)((3, 4), dtype="float64")
    assert w.dtype == "float64"
    assert initializers.RandomUniform(seed=1)((2,), dtype="float16").dtype == "float16"


@pytest.mark.parametrize("name", ["glorot_uniform", "random_normal", "truncated_normal",
                                  "he_normal", "orthogonal"])
def test_random_initializers_refuse_integer_dtypes(name):
    with pytest.raises(ValueError, match="dtype.*Received: dtype=int32"):
        initializers.get(name)((3, 3), dtype="int32")


def test_variables_and_layers_use_initializers():
    v = keras.Variable(initializers.get("he_uniform"), shape=(4, 3))
    assert v.shape == (4, 3) and v.dtype == "float32"
    assert np.abs(v.numpy()).max() <= math.sqrt(6 / 4)
    layer = keras.layers.Dense(5, kernel_initializer=initializers.Constant(0.5),
                               bias_initializer="ones")
    layer.build((None, 2))
    np.testing.assert_array_equal(layer.kernel.numpy(), np.full((2, 5), 0.5, np.float32))
    np.testing.assert_array_equal(layer.bias.numpy(), np.ones(5, np.float32))


def test_fan_axes_pick_the_fans():
    # Keras 3.15.1: fans are products over the given axes, e.g. an EinsumDense
    # kernel (in=8, heads=2, key_dim=4): fan_in 8, fan_out 2 * 4 = 8.
    from kerasish.initializers.random_initializers import compute_fans
    assert compute_fans((8, 2, 4), input_axes=[0], output_axes=[1, 2]) == (8, 8)
    assert compute_fans((8, 2, 4)) == (16, 32)
    init = initializers.VarianceScaling(scale=3.0, mode="fan_in", distribution="uniform", seed=1,
                                        input_axes=[0], output_axes=[1, 2])
    w = _draw(init, (8, 2, 4))
    assert np.abs(w).max() <= np.sqrt(3.0 * 3.0 / 8) and np.abs(w).max() > np.sqrt(9.0 / 16)
    config = initializers.GlorotUniform(input_axes=[0], output_axes=[1, 2]).get_config()
    assert config == {"seed": None, "input_axes": [0], "output_axes": [1, 2]}
    assert initializers.GlorotUniform.from_config(config).get_config() == config


def test_random_uniform_with_an_integer_dtype_draws_like_keras():
    # Keras 3.15.1 on TensorFlow: an integer stateless uniform with the bounds truncated.
    init = initializers.RandomUniform
    assert init(minval=0, maxval=10, seed=2)((7,), dtype="int32").numpy().tolist() == \
        [7, 5, 7, 5, 0, 3, 4]
    drawn = init(minval=-3.7, maxval=5.9, seed=2)((7,), dtype="int64")
    assert drawn.dtype == "int64" and drawn.numpy().tolist() == [0, 0, 3, 1, 1, 2, 4]
    assert init(minval=-100, maxval=100, seed=2)((7,), dtype="int32").numpy().tolist() == \
        [47, -75, 87, 5, 50, 23, -56]
