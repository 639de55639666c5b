"""keras.layers.Pipeline: order, training flag, masks, weights and config round trip."""
import numpy as np

import kerasish as keras

L = keras.layers


def test_layers_run_in_order_and_training_reaches_them():
    pipeline = L.Pipeline([L.RandomInvert(factor=(1, 1), value_range=(0, 1)),
                           L.Rescaling(2.0)])
    x = np.full((2, 3, 3, 1), 0.25, "float32")
    np.testing.assert_allclose(pipeline(x).numpy(), 1.5)            # (1 - 0.25) * 2
    np.testing.assert_allclose(pipeline(x, training=False).numpy(), 0.5)  # no inversion


def test_the_mask_of_one_layer_reaches_the_next():
    embedding = L.Embedding(5, 1, mask_zero=True)
    embedding.build((None, 4))
    embedding.embeddings.assign(np.array([[10.0], [1.0], [3.0], [5.0], [7.0]]))
    pipeline = L.Pipeline([embedding, L.GlobalAveragePooling1D()])
    out = pipeline(np.array([[1, 2, 0, 0]])).numpy()
    np.testing.assert_allclose(out, [[2.0]])   # mean of 1 and 3; unmasked it would be 6


def test_weights_dict_inputs_and_config_round_trip():
    pipeline = L.Pipeline([L.Rescaling(1 / 255.0), L.Dense(2)], name="prep")
    assert pipeline(np.ones((3, 4), "float32")).shape == (3, 2)
    assert len(pipeline.trainable_weights) == 2
    config = pipeline.get_config()
    assert config["name"] == "prep" and [c["class_name"] for c in config["layers"]] == [
        "Rescaling", "Dense"]
    clone = L.Pipeline.from_config(config)
    assert [type(layer).__name__ for layer in clone.layers] == ["Rescaling", "Dense"]
    mixed = L.Pipeline([L.MixUp(seed=0)])({"images": np.ones((2, 3, 3, 1), "float32"),
                                           "labels": np.eye(2)})
    assert sorted(mixed) == ["images", "labels"]


def test_config_nests_built_layers_with_their_build_config():
    """Keras 3.15.1 (probe12 session, nest.py): each built layer of a Pipeline's
    config carries its `build_config`."""
    pipeline = L.Pipeline([L.Rescaling(2.0), L.Dense(2)])
    pipeline(np.ones((2, 3), "float32"))
    assert [entry["build_config"] for entry in pipeline.get_config()["layers"]] == [
        {"input_shape": (2, 3)}, {"input_shape": (2, 3)}]
