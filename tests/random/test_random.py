"""kerasish.random: seeds (int, SeedGenerator, global), distributions, dropout."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import GradientTape, ops, random

DRAWS = [
    lambda seed: random.normal((50,), seed=seed),
    lambda seed: random.uniform((50,), minval=-1, maxval=2, seed=seed),
    lambda seed: random.truncated_normal((50,), seed=seed),
    lambda seed: random.randint((50,), 0, 10, seed=seed),
    lambda seed: random.categorical(ops.zeros((2, 4)), 10, seed=seed),
    lambda seed: random.shuffle(ops.arange(20), seed=seed),
    lambda seed: random.dropout(ops.ones((50,)), 0.5, seed=seed),
    lambda seed: random.gamma((20,), 2.0, seed=seed),
    lambda seed: random.binomial((20,), 10, 0.3, seed=seed),
    lambda seed: random.beta((20,), 2.0, 3.0, seed=seed),
]


@pytest.mark.parametrize("draw", DRAWS)
def test_int_seeds_are_reproducible_and_distinct(draw):
    a, b, c = draw(1), draw(1), draw(2)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


def test_seed_generator_advances_and_is_deterministic():
    g1, g2 = random.SeedGenerator(42), random.SeedGenerator(42)
    a1, b1 = random.normal((5,), seed=g1), random.normal((5,), seed=g1)
    a2 = random.normal((5,), seed=g2)
    assert not np.array_equal(a1.numpy(), b1.numpy())
    np.testing.assert_array_equal(a1.numpy(), a2.numpy())
    assert g1.state.numpy().tolist() == [42, 2] and g1.state.dtype == "int64"
    assert g1.get_config() == {"seed": 42, "name": g1.name}
    g2.set_state((42, 1))
    np.testing.assert_array_equal(random.normal((5,), seed=g2).numpy(), b1.numpy())


def test_global_seed_makes_unseeded_draws_reproducible_on_every_device():
    keras.utils.set_random_seed(7)
    a = random.normal((4,)).numpy()
    with keras.device("cpu:3"):  # a device created after seeding
        d = random.normal((4,))
    keras.random.set_seed(7)
    np.testing.assert_array_equal(random.normal((4,)).numpy(), a)
    with keras.device("cpu:3"):
        np.testing.assert_array_equal(random.normal((4,)).numpy(), d.numpy())
    assert d.device == "cpu:3"
    assert not np.array_equal(random.normal((4,)).numpy(), a)


def test_distributions_have_the_right_moments_and_dtypes():
    x = random.normal((20000,), mean=2.0, stddev=3.0, seed=0).numpy()
    assert abs(x.mean() - 2.0) < 0.1 and abs(x.std() - 3.0) < 0.1 and x.dtype == np.float32
    u = random.uniform((20000,), 1.0, 3.0, seed=0, dtype="float64").numpy()
    assert u.dtype == np.float64 and u.min() >= 1.0 and u.max() < 3.0
    t = random.truncated_normal((20000,), seed=0).numpy()
    assert np.abs(t).max() <= 2.0
    r = random.randint((1000,), 3, 6, seed=0)
    assert r.dtype == "int32" and set(r.numpy().tolist()) == {3, 4, 5}
    c = random.categorical(ops.log(ops.convert_to_tensor([[0.1, 0.9]])), 5000, seed=0).numpy()
    assert abs(c.mean() - 0.9) < 0.03
    assert sorted(random.shuffle(ops.arange(10), seed=3).numpy().tolist()) == list(range(10))
    # Keras 3.15.1 on TF: the Python float mean cannot become an int32 tensor
    with pytest.raises(TypeError, match=r"^Cannot convert 0\.0 to EagerTensor of dtype int32$"):
        random.normal((2,), dtype="int32")
    with pytest.raises(TypeError, match=r"^Cannot convert 2\.0 to EagerTensor of dtype int64$"):
        random.gamma((2,), 2.0, dtype="int64")
    with pytest.raises(ValueError, match="seed"):
        random.normal((2,), seed="abc")
    # Keras 3.15.1's texts
    with pytest.raises(ValueError, match=r"^`keras.random.uniform` requires a floating point "
                                         r"`dtype`. Received: dtype=int32 $"):
        random.uniform((2,), dtype="int32")
    with pytest.raises(ValueError, match=r"^`keras.random.randint` requires an integer `dtype`. "
                                         r"Received: dtype=float64 $"):
        random.randint((2,), 0, 3, dtype="float64")


def test_dropout_rate_semantics_and_gradient():
    x = ops.ones((10000,))
    out = random.dropout(x, 0.25, seed=1).numpy()
    assert set(np.unique(out).tolist()) == {0.0, float(np.float32(1 / 0.75))}
    assert abs((out == 0).mean() - 0.25) < 0.02
    np.testing.assert_array_equal(random.dropout(x, 0.0).numpy(), x.numpy())
    shared = random.dropout(ops.ones((4, 6)), 0.5, noise_shape=(4, 1), seed=2).numpy()
    assert all(len(set(row.tolist())) == 1 for row in shared)
    v = ops.convert_to_tensor(np.arange(1.0, 7.0))
    with GradientTape() as tape:
        tape.watch(v)
        y = random.dropout(v, 0.5, seed=4)
    g = tape.gradient(y, v).numpy()
    np.testing.assert_array_equal(g, (y.numpy() != 0) * 2.0)
    with pytest.raises(ValueError, match="rate"):
        random.dropout(x, 1.0)


def test_dropout_on_a_keras_tensor_is_a_spec_and_keeps_the_seed():
    # Keras 3.15.1's trainer_test.test_rng_updated_during_predict builds this graph
    seed = keras.random.SeedGenerator(3)
    state = tuple(seed.state)
    out = keras.random.dropout(keras.KerasTensor((None, 20)), rate=0.5, seed=seed)
    assert isinstance(out, keras.KerasTensor) and out.shape == (None, 20)
    assert tuple(seed.state) == state

    class TestTimeDropout(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.random_generator = keras.random.SeedGenerator()

        def call(self, x):
            return keras.random.dropout(x, rate=0.5, seed=self.random_generator)

    inputs = keras.Input((20,))
    model = keras.Model(inputs, TestTimeDropout()(inputs))
    first, second = (model.predict(np.ones((32, 20)), verbose=0) for _ in range(2))
    assert set(np.unique(first)) <= {0.0, 2.0} and np.mean(np.abs(first - second)) > 0.01


def test_draws_of_unknown_batch_size_in_a_functional_model_as_keras():
    """keras-io's VAE `Sampling` layer: `keras.random.normal(ops.shape(mean))` in a
    symbolic call (batch None) traces to a KerasTensor; training then draws as
    Keras. Expected values: this program under Keras 3.15.1 (TF backend, CPU),
    np.round(., 5) (probe rl.py, probe3 session)."""
    import kerasish as keras

    class Noisy(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.gen = keras.random.SeedGenerator(7)

        def call(self, x, training=None):
            if training:
                shape = keras.ops.shape(x)
                x = x + keras.random.normal(shape, stddev=0.1, seed=self.gen) + \
                    keras.random.uniform(shape, maxval=0.01)
            return x

    class Sampling(keras.layers.Layer):
        def call(self, z):
            mean, log_var = z
            return mean + keras.ops.exp(0.5 * log_var) * keras.random.normal(keras.ops.shape(mean))

    keras.utils.set_random_seed(44)
    i = keras.Input((4,))
    h = Noisy()(keras.layers.Dense(6)(i))
    mean, log_var = keras.layers.Dense(2)(h), keras.layers.Dense(2)(h)
    out = keras.layers.Dense(1)(Sampling()([mean, log_var]))
    model = keras.Model(i, out)
    x = np.random.rand(24, 4).astype("float32")
    y = np.random.rand(24, 1).astype("float32")
    model.compile("adam", "mse")
    history = model.fit(x, y, epochs=3, batch_size=6, verbose=0).history
    np.testing.assert_allclose(history["loss"], [2.75261, 2.45177, 1.96541], atol=2e-5)
    np.testing.assert_allclose(model.predict(x[:3], verbose=0).ravel(),
                               [0.41275, -0.58631, -1.53218], atol=2e-5)
    np.testing.assert_allclose(keras.random.normal((2,)).numpy(), [-0.757, -0.6034], atol=1e-4)


def test_symbolic_draw_keeps_unknown_dims_and_does_not_advance():
    import kerasish as keras
    gen = keras.random.SeedGenerator(3)
    out = keras.random.randint((None, 4), 0, 5, seed=gen)
    assert out.shape == (None, 4) and out.dtype == "int32"
    assert gen.state.numpy().tolist() == [3, 0]
    assert keras.random.uniform((None, 2), dtype="float16").dtype == "float16"


def test_float64_uniform_bounds_are_float32_rounded_as_keras():
    # Keras's TF uniform passes tf.cast(minval, dtype): a Python float becomes a float32
    # tensor first. Values printed by Keras 3.15.1 (probe /tmp/probe5/f64b.py, probe5 session).
    draw = random.uniform((2,), minval=-0.3, maxval=0.7, seed=5, dtype="float64")
    assert [float(v) for v in np.asarray(draw)] == [0.19482664732573385, 0.4886172718270696]
    glorot = keras.initializers.GlorotUniform(seed=2)((2, 2), dtype="float64")
    assert [float(v) for v in np.asarray(glorot).ravel()] == [
        -0.22576385830519974, 0.18965588549986112, -0.5554885921885242, 0.4286230568823688]


def test_gamma_and_beta_draw_tensorflows_stateless_gamma():
    # Printed by Keras 3.15.1 on TensorFlow (TF's Marsaglia-Tsang kernel on Philox words).
    expected = {0.3: [0.11360222846269608, 0.8083387017250061, 0.0024875225499272346,
                      0.5301225185394287, 0.09907472133636475],
                1.0: [0.6203371286392212, 0.10136709362268448, 0.10053709149360657,
                      1.3882710933685303, 1.2928543090820312],
                2.0: [1.4083997011184692, 2.970360279083252, 3.615964412689209,
                      1.6763197183609009, 1.2645267248153687]}
    for alpha, values in expected.items():
        np.testing.assert_array_equal(random.gamma((5,), alpha=alpha, seed=7).numpy(), values)
    half = random.gamma((4,), alpha=2.0, seed=1, dtype="float16")
    assert half.dtype == "float16"
    np.testing.assert_array_equal(half.numpy(), [3.048828125, 1.9658203125, 1.623046875,
                                                 1.923828125])
    per_column = random.gamma((2, 3), alpha=np.array([0.5, 1.0, 3.0]), seed=3).numpy()
    np.testing.assert_array_equal(per_column, [[0.23709136247634888, 0.2283966839313507,
                                                1.6663354635238647],
                                               [2.303654193878174, 0.8466767072677612,
                                                1.2802503108978271]])
    mixed = random.beta((2, 3), alpha=np.array([0.5, 1.0, 3.0]), beta=2.0, seed=5).numpy()
    np.testing.assert_allclose(mixed, [[0.02740984410047531, 0.03975317254662514,
                                        0.4263938367366791],
                                       [0.14143820106983185, 0.5003523826599121,
                                        0.4601649343967438]], rtol=1e-7)


def test_gamma_and_beta_are_tensorflows_draws():
    # Values printed by Keras 3.15.1 (TensorFlow 2.21, CPU): TF's stateless gamma
    # sampler (Marsaglia-Tsang on Philox, 256 blocks per value; alpha < 1 boosted,
    # alpha == 1 exponential); beta = X / (X + Y), Y drawn on the seed pair + 12.
    np.testing.assert_allclose(random.gamma((4,), 0.3, seed=1).numpy(), [
        1.02589310699841e-05, 0.9334889650344849, 0.7440187335014343, 0.022882554680109024],
        rtol=1e-6)
    np.testing.assert_allclose(random.gamma((3,), 1.0, seed=1).numpy(), [
        1.621160864830017, 0.19530309736728668, 1.2445580959320068], rtol=1e-6)
    out = random.gamma((2, 2), np.array([2.5, 0.05], "float32"), seed=7, dtype="float64")
    assert out.dtype == "float64"
    np.testing.assert_allclose(out.numpy(), [[1.8701806046497083, 1.7598480001269582e-18],
                                             [3.6172774424075578, 0.01879243847336293]],
                               rtol=1e-12)
    gen = random.SeedGenerator(25)
    draws = [random.beta((3,), 0.3, 0.3, seed=gen).numpy() for _ in range(2)]
    np.testing.assert_allclose(draws, [
        [0.5568652749061584, 0.974341869354248, 0.9994332194328308],
        [0.9604145288467407, 1.6626112255835324e-06, 0.014444442465901375]], rtol=1e-5)
    half = random.beta((2,), 2.0, 5.0, seed=2147483640, dtype="float16")
    assert half.dtype == "float16"
    np.testing.assert_array_equal(half.numpy(), np.array([0.395263671875, 0.4287109375],
                                                         "float16"))


def test_binomial_draws_tensorflows_stateless_binomial():
    # Printed by Keras 3.15.1 on TensorFlow: inversion (count * p < 10), transformed
    # rejection (>= 10), p > 0.5 as count - B(count, 1 - p), batch shapes broadcast.
    expected = {(10, 0.3): [2, 2, 4, 3, 2, 2, 3, 2],
                (100, 0.3): [31, 36, 30, 29, 29, 24, 32, 35],
                (100, 0.7): [69, 64, 70, 71, 71, 76, 68, 65],
                (5, 0.9): [5, 4, 4, 5, 5, 5, 5, 4]}
    for (count, prob), values in expected.items():
        out = random.binomial((8,), counts=count, probabilities=prob, seed=9)
        assert out.dtype == "float32" and out.numpy().tolist() == values
    batch = random.binomial((3, 4), counts=np.array([5.0, 50, 500, 20]),
                            probabilities=np.array([[0.2], [0.6], [0.95]]), seed=2)
    assert batch.numpy().tolist() == [[1, 8, 113, 2], [3, 27, 308, 12], [4, 46, 482, 19]]


def test_binomial_integer_dtypes_and_keras_texts():
    # Keras 3.15.1 (TF): stateless_binomial counts in int32/int64 too (the same draws)
    for dtype in ("int32", "int64"):
        out = random.binomial((8,), counts=5, probabilities=0.5, seed=1, dtype=dtype)
        assert out.dtype == dtype and out.numpy().tolist() == [1, 2, 2, 5, 2, 0, 2, 4]
    out = random.binomial((4,), counts=np.array([5.0, 10, 20, 30]), probabilities=0.7, seed=3,
                          dtype="int32")
    assert out.numpy().tolist() == [4, 7, 12, 21]
    with pytest.raises(ValueError, match=r"^`rate` must be a scalar tensor or a float in the "
                                         r"range \[0, 1\)\. Received: rate=1\.5$"):
        random.dropout(np.ones(3), 1.5, seed=1)
    with pytest.raises(ValueError, match=r"Received: seed=a \(of type <class 'str'>\)$"):
        random.normal((3,), seed="a")
