import numpy as np
import pytest

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
