"""TimeDistributed: Keras's per-step calls of the wrapped layer."""
import numpy as np

import kerasish as keras


def test_dropout_draws_once_per_step_as_keras():
    """Keras 3.15.1 calls the wrapped layer's `call` once per (static) time step,
    so TimeDistributed(Dropout) draws a mask per step. Expected values: this
    program under Keras 3.15.1 (TF backend, CPU), np.round(., 5) / (., 4)
    (probe tdb1.py, probe3 session)."""
    keras.utils.set_random_seed(29)
    x = np.random.rand(12, 4, 6).astype("float32")
    y = np.random.rand(12, 4, 3).astype("float32")
    model = keras.Sequential([
        keras.Input((4, 6)),
        keras.layers.TimeDistributed(keras.layers.Dense(
            5, kernel_initializer=keras.initializers.HeUniform(seed=1))),
        keras.layers.TimeDistributed(keras.layers.Dropout(0.4)),
        keras.layers.Dense(3)])
    model.compile("rmsprop", "mse")
    history = model.fit(x, y, epochs=2, batch_size=3, verbose=0, shuffle=False).history
    np.testing.assert_allclose(history["loss"], [1.02834, 1.01915], atol=2e-5)
    np.testing.assert_allclose(model.predict(x[:1], verbose=0)[0, 1:], [
        [0.3255, 0.6032, -0.3816], [0.7832, -0.0498, -0.1871], [-1.0591, 1.0982, -0.1721]],
        atol=2e-4)


def test_batch_normalization_uses_per_step_statistics_as_keras():
    """BatchNormalization inside TimeDistributed normalises each step over the
    batch (Keras's loop), and the moving mean is updated once per step.
    Expected values: Keras 3.15.1 (probe tdbn.py, probe3 session)."""
    keras.utils.set_random_seed(2)
    x = np.random.rand(8, 3, 4).astype("float32")
    y = np.random.rand(8, 3, 2).astype("float32")
    model = keras.Sequential([
        keras.Input((3, 4)), keras.layers.TimeDistributed(keras.layers.BatchNormalization()),
        keras.layers.TimeDistributed(keras.Sequential([
            keras.layers.Dense(3), keras.layers.GaussianNoise(0.2), keras.layers.Dense(2)]))])
    model.compile("sgd", "mse")
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False).history
    np.testing.assert_allclose(history["loss"], [1.52052, 1.24633], atol=2e-5)
    np.testing.assert_allclose(model.layers[0].layer.moving_mean.numpy(),
                               [0.05983, 0.04579, 0.05817, 0.04293], atol=2e-5)


def test_folded_and_per_step_paths_agree_for_a_per_sample_layer():
    x = np.random.default_rng(0).standard_normal((2, 5, 3)).astype("float32")
    folded = keras.layers.TimeDistributed(keras.layers.Dense(4))
    per_step = keras.layers.TimeDistributed(keras.layers.Dense(4))
    folded.build(x.shape)
    per_step.build(x.shape)
    per_step.layer.set_weights(folded.layer.get_weights())
    expected = folded(x).numpy()
    np.testing.assert_allclose(per_step._call_per_step(keras.ops.convert_to_tensor(x), 5, None,
                                                       None).numpy(), expected, rtol=1e-6)


def test_wrapped_layer_is_built_with_the_batch_size_and_its_config_carries_it():
    """As Keras 3.15.1: TimeDistributed builds the wrapped layer for one step with
    the batch size kept, and `get_config` nests the wrapped layer with its
    `build_config` (Keras's public serialize_keras_object). Expected values:
    Keras 3.15.1 (TF backend), probe12 session (nest.py, t1.py)."""
    layer = keras.layers.TimeDistributed(keras.layers.Dense(3))
    layer(np.ones((2, 4, 5), "float32"))
    assert layer.get_config()["layer"]["build_config"] == {"input_shape": (2, 5)}
    conv = keras.layers.TimeDistributed(keras.layers.Conv1D(3, 2))
    conv(np.ones((2, 3, 6, 5), "float32"))
    assert conv.get_config()["layer"]["build_config"] == {"input_shape": (2, 6, 5)}
    symbolic = keras.layers.TimeDistributed(keras.layers.Dense(3))
    symbolic(keras.Input((4, 5), batch_size=7))
    assert symbolic.layer.get_build_config() == {"input_shape": (7, 5)}
    unknown = keras.layers.TimeDistributed(keras.layers.Dense(3))
    keras.Sequential([keras.Input((4, 5)), unknown])
    assert unknown.get_config()["layer"]["build_config"] == {"input_shape": (None, 5)}
    again = keras.layers.TimeDistributed.from_config(layer.get_config())
    assert again.layer.built and not again.built   # Keras builds the nested layer only


def test_time_distributed_flatten_keeps_the_static_size():
    # Keras 3.15.1: (None, 3, 64), so a following LSTM builds (/tmp/probe15/wrap1.py)
    inputs = keras.Input((3, 4, 4, 4))
    flat = keras.layers.TimeDistributed(keras.layers.Flatten())(inputs)
    assert flat.shape == (None, 3, 64)
    assert keras.layers.LSTM(5)(flat).shape == (None, 5)


def test_time_distributed_embedding_traces():
    # Keras 3.15.1: (None, 5, 7, 3) for float32 Input indices
    out = keras.layers.TimeDistributed(keras.layers.Embedding(10, 3))(keras.Input((5, 7)))
    assert out.shape == (None, 5, 7, 3)
