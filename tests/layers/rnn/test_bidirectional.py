import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


@pytest.mark.parametrize("mode", ["concat", "sum", "mul", "ave"])
def test_merge_modes_match_manual_forward_and_backward(mode):
    x = np.random.randn(2, 4, 3).astype("float32")
    layer = layers.Bidirectional(layers.LSTM(2, return_sequences=True), merge_mode=mode)
    out = layer(x).numpy()
    fw = layer.forward_layer(x).numpy()
    bw = layer.backward_layer(x).numpy()[:, ::-1]
    expected = {"concat": np.concatenate([fw, bw], -1), "sum": fw + bw, "mul": fw * bw,
                "ave": (fw + bw) / 2}[mode]
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_names_weights_and_states():
    layer = layers.Bidirectional(layers.GRU(3, return_state=True), name="bi")
    out, h_fw, h_bw = layer(np.ones((2, 5, 4)))
    assert out.shape == (2, 6) and h_fw.shape == (2, 3)
    assert layer.forward_layer.name == "forward_gru" and layer.backward_layer.name == "backward_gru"
    assert layer.backward_layer.go_backwards and not layer.forward_layer.go_backwards
    assert len(layer.weights) == 6


def test_invalid_merge_mode():
    with pytest.raises(ValueError, match="Invalid merge mode"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")


# Issue 13 regression: a masked, post-padded batch ---------------------------------
def _keras_replay(case_id):
    import importlib
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "differential"))
    importlib.import_module("test_differential").replay(case_id)


@pytest.mark.parametrize("inner", ["LSTM", "GRU", "SimpleRNN"])
@pytest.mark.parametrize("merge_mode", ["concat", "sum", "ave", "mul", "None"])
def test_masked_post_padded_batch_matches_keras(inner, merge_mode):
    """Outputs, input gradients and every weight gradient against Keras 3.15.1's."""
    _keras_replay(f"layer/Bidirectional[{inner},merge_mode={merge_mode},"
                  "return_sequences=True,mask=post]")


def test_masked_steps_output_zero_in_both_directions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5, 4)).astype("float32")
    lengths = [5, 3, 1]
    mask = np.array([[t < n for t in range(5)] for n in lengths])
    layer = layers.Bidirectional(layers.LSTM(3, return_sequences=True))
    out = layer(x, mask=mask).numpy()
    assert np.all(out[~mask] == 0.0)
    # the valid steps are the same as running each direction on the unpadded sequence
    for row, n in enumerate(lengths):
        valid = layer(x[row:row + 1, :n]).numpy()[0]
        np.testing.assert_allclose(out[row, :n], valid, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_cudnn", [True, False, "auto"])
@pytest.mark.parametrize("rnn_class", [layers.GRU, layers.LSTM])
def test_copies_keep_use_cudnn(rnn_class, use_cudnn):
    # use_cudnn is not in the RNN's config; Bidirectional copies it by hand (Keras)
    bidi = layers.Bidirectional(rnn_class(1, use_cudnn=use_cudnn))
    assert bidi.forward_layer.use_cudnn == use_cudnn
    assert bidi.backward_layer.use_cudnn == use_cudnn
    simple = layers.Bidirectional(layers.SimpleRNN(1))
    assert not hasattr(simple.forward_layer, "use_cudnn")


def test_config_nests_both_directions_with_their_build_config():
    """Keras 3.15.1's Bidirectional.get_config serializes the forward and backward
    layers with `build_config` once built, none before (probe12 session, nest.py)."""
    layer = keras.layers.Bidirectional(keras.layers.GRU(3))
    assert "build_config" not in layer.get_config()["layer"]
    layer(np.ones((2, 4, 5), "float32"))
    config = layer.get_config()
    assert config["layer"]["build_config"] == {"input_shape": (2, 4, 5)}
    assert config["backward_layer"]["build_config"] == {"input_shape": (2, 4, 5)}
    assert config["layer"]["config"]["name"] == "forward_gru"
    again = keras.layers.Bidirectional.from_config(config)
    assert again.forward_layer.built and again.backward_layer.built and not again.built
