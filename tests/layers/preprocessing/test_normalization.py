"""Normalization and Rescaling beyond the Keras fixtures: gradients, config, saving,
list-of-batches adapt, errors."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.testing import check_gradients


def test_gradients_through_normalization_and_rescaling():
    norm = keras.layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 0.25], dtype="float64")
    scale = keras.layers.Rescaling(0.5, offset=-1.0, dtype="float64")
    x = np.random.RandomState(0).normal(size=(3, 2))
    check_gradients(lambda t: scale(norm(t)), [x])


def test_adapt_list_of_batches_equals_dataset_formula():
    data = np.random.RandomState(1).normal(size=(10, 3)).astype("float32")
    from_list = keras.layers.Normalization()
    from_list.adapt([data[:4], data[4:]])
    from_ds = keras.layers.Normalization()
    from_ds.adapt(keras.data.Dataset.from_tensor_slices(data).batch(4).take(1).concatenate(
        keras.data.Dataset.from_tensor_slices(data[4:]).batch(6)))
    np.testing.assert_allclose(from_list.mean.numpy(), from_ds.mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(np.ravel(from_list.variance.numpy()), np.var(data, 0),
                               rtol=1e-5)


def test_unbatched_dataset_of_vectors_is_batched():
    data = np.arange(12.0, dtype="float32").reshape(6, 2)
    layer = keras.layers.Normalization(axis=None)
    layer.adapt(keras.data.Dataset.from_tensor_slices(data.ravel()))
    np.testing.assert_allclose(float(layer.mean.numpy().ravel()[0]), data.mean(), rtol=1e-6)


def test_save_and_load_adapted_statistics(tmp_path):
    layer = keras.layers.Normalization()
    layer.adapt(np.array([[0.0, 10.0], [2.0, 30.0]], "float32"))
    model = keras.Sequential([keras.Input(shape=(2,)), layer])
    model.save(tmp_path / "n.keras")
    restored = keras.models.load_model(tmp_path / "n.keras")
    x = np.array([[1.0, 20.0]], "float32")
    np.testing.assert_allclose(restored(x).numpy(), [[0.0, 0.0]], atol=1e-6)
    assert [w.name for w in layer.weights] == ["mean", "variance", "count"]


def test_config_round_trip():
    layer = keras.layers.Normalization(axis=(1, 2), invert=True, mean=[1.0], variance=[2.0])
    clone = keras.layers.Normalization.from_config(layer.get_config())
    assert clone.axis == (1, 2) and clone.invert and clone.input_mean == [1.0]
    rescale = keras.layers.Rescaling.from_config(keras.layers.Rescaling(0.5, 1).get_config())
    assert (rescale.scale, rescale.offset) == (0.5, 1)


def test_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        keras.layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="Normalization.adapt.*empty"):
        keras.layers.Normalization().adapt(keras.data.Dataset.from_tensor_slices(
            np.zeros((0, 2), "float32")).batch(2))
    layer = keras.layers.Normalization()
    layer.adapt(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match="incompatible shape"):
        layer.adapt(np.zeros((2, 4), "float32"))
    with pytest.raises(ValueError, match="axis"):
        keras.layers.Normalization(axis=3).build((None, 2))


def test_adapted_statistics_are_readable_right_after_load_model(tmp_path):
    """Keras's Normalization.load_own_variables calls finalize_state: `layer.mean` of a
    loaded model is the adapted one before any call (real Keras 3.15.1: [[2.0, 4.0]])."""
    layer = keras.layers.Normalization()
    layer.adapt(np.array([[1.0, 2.0], [3.0, 6.0]]))
    inputs = keras.Input((2,))
    model = keras.Model(inputs, keras.layers.Dense(1)(layer(inputs)))
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(np.asarray(loaded.layers[1].mean), [[2.0, 4.0]])
    np.testing.assert_allclose(np.asarray(loaded.layers[1].variance), [[1.0, 4.0]])
