import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops
from kerasish.testing import check_gradients, check_second_order

from reference import lstm as reference_lstm

MASK = np.array([[1, 1, 0, 1, 1], [1, 0, 0, 0, 1]], bool)


def weights(layer):
    return [w.numpy().astype("float64") for w in layer.weights]


@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("mask", [None, MASK])
def test_forward_matches_step_by_step_reference(go_backwards, mask):
    x = np.random.randn(2, 5, 3).astype("float32")
    layer = layers.LSTM(4, return_sequences=True, return_state=True, go_backwards=go_backwards)
    seq, h, c = layer(x, mask=mask)
    ref_seq, ref_h, ref_c = reference_lstm(x.astype("float64"), *weights(layer), mask=mask,
                                           go_backwards=go_backwards)
    np.testing.assert_allclose(seq.numpy(), ref_seq, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), ref_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), ref_c, rtol=1e-5, atol=1e-6)


def test_weights_layout_and_unit_forget_bias():
    layer = layers.LSTM(3)
    layer(np.zeros((1, 2, 6)))
    assert [w.shape for w in layer.weights] == [(6, 12), (3, 12), (12,)]
    assert [w.path for w in layer.weights] == ["lstm/lstm_cell/kernel", "lstm/lstm_cell/recurrent_kernel",
                                               "lstm/lstm_cell/bias"]
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])


@pytest.mark.parametrize("go_backwards", [False, True])
def test_layer_gradients_with_mask(go_backwards):
    layer = layers.LSTM(3, return_sequences=True, go_backwards=go_backwards, dtype="float64")
    x = np.random.randn(2, 5, 2)
    layer(x)

    def fn(x, k, r, b):
        layer.cell.kernel.assign(k)
        layer.cell.recurrent_kernel.assign(r)
        layer.cell.bias.assign(b)
        return layer(x, mask=MASK)

    check_gradients(lambda x: layer(x, mask=MASK), [x])
    check_gradients(lambda x: ops.sum(layer(x) ** 2, axis=1), [x])
    grads_fused = _weight_grads(layer, x)
    assert all(g is not None for g in grads_fused)


def _weight_grads(layer, x):
    with keras.GradientTape() as tape:
        y = ops.sum(layer(x))
    return tape.gradient(y, layer.trainable_weights)


def test_cell_step_by_hand_in_a_tape_and_second_order():
    cell = layers.LSTMCell(3, dtype="float64")
    x = np.random.randn(2, 4)
    h0, c0 = np.zeros((2, 3)), np.zeros((2, 3))
    h, (h1, c1) = cell(x, [h0, c0])
    assert h.shape == (2, 3) and h is h1
    check_second_order(lambda x: cell(x, [h0, c0])[0], [x])


def test_fused_and_loop_paths_give_the_same_gradients():
    layer = layers.LSTM(3, return_sequences=True)
    x = np.random.randn(2, 5, 2).astype("float32")
    layer(x)
    fused = _weight_grads(layer, x)
    with keras.GradientTape() as outer:  # a second active tape selects the step loop
        loop = _weight_grads(layer, x)
    for a, b in zip(fused, loop):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)


def test_dropout_only_in_training_and_stateful_reset():
    layer = layers.LSTM(4, dropout=0.5, recurrent_dropout=0.5, seed=1)
    x = np.ones((2, 3, 2), "float32")
    np.testing.assert_allclose(layer(x).numpy(), layer(x).numpy())
    assert not np.allclose(layer(x, training=True).numpy(), layer(x).numpy())
    stateful = layers.LSTM(2, stateful=True)
    first = stateful(x).numpy()
    second = stateful(x).numpy()
    assert not np.allclose(first, second)
    stateful.reset_states()
    np.testing.assert_allclose(stateful(x).numpy(), first, rtol=1e-6)


def test_bad_inputs():
    layer = layers.LSTM(2)
    # Keras 3.15.1's input-spec text (checked before `build`, as Keras)
    with pytest.raises(ValueError, match="layer 'lstm' is incompatible with the layer: "
                                         "expected ndim=3, found ndim=2. Full shape received: "
                                         r"\(2, 3\)"):
        layer(np.ones((2, 3)))
    with pytest.raises(ValueError, match="initial state has shape"):
        layers.LSTM(2)(np.ones((2, 3, 1)), initial_state=[np.zeros((2, 5)), np.zeros((2, 2))])
    with pytest.raises(ValueError, match="the mask has shape"):
        layers.LSTM(2)(np.ones((2, 3, 1)), mask=np.ones((2, 4), bool))


def test_config_round_trip_keeps_keras_keys():
    layer = layers.LSTM(5, return_sequences=True, dropout=0.1, name="enc")
    config = layer.get_config()
    for key in ("units", "activation", "recurrent_activation", "unit_forget_bias",
                "return_sequences", "go_backwards", "dropout"):
        assert key in config
    clone = layers.LSTM.from_config(config)
    assert clone.units == 5 and clone.return_sequences and clone.name == "enc"


def test_stateful_states_exist_after_build_and_reset_to_zeros():
    layer = layers.LSTM(4, stateful=True)
    layer(np.ones((2, 3, 5), "float32"))
    assert [tuple(s.shape) for s in layer.states] == [(2, 4), (2, 4)]
    assert float(np.abs(layer.states[0].numpy()).sum()) > 0
    layer.reset_states()
    assert all(float(np.abs(s.numpy()).sum()) == 0.0 for s in layer.states)
    assert len(layer.weights) == 3                     # states are not weights (as Keras)
    with pytest.raises(ValueError, match="the batch size must be static"):
        keras.Sequential([keras.Input((3, 5)), layers.LSTM(4, stateful=True)])


def test_recurrent_configs_use_keras_key_order():
    assert list(layers.LSTM(2).get_config()) == [   # as Keras 3.15.1 writes it
        "name", "trainable", "dtype", "return_sequences", "return_state", "go_backwards",
        "stateful", "unroll", "zero_output_for_mask", "units", "activation",
        "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
        "bias_initializer", "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
        "bias_regularizer", "activity_regularizer", "kernel_constraint", "recurrent_constraint",
        "bias_constraint", "dropout", "recurrent_dropout", "seed"]
    assert list(layers.GRU(2).get_config())[-2:] == ["reset_after", "seed"]
    assert "seed" not in layers.SimpleRNN(2).get_config()
    cell = list(layers.LSTMCell(2).get_config())
    assert cell[3:8] == ["units", "activation", "recurrent_activation", "use_bias",
                         "unit_forget_bias"]
    config = layers.LSTM(2, activity_regularizer="l1").get_config()
    assert list(config)[3] == "activity_regularizer"
    assert layers.LSTM.from_config(config).units == 2


def test_lstm_and_gru_check_for_3d_inputs():
    assert layers.LSTM(2).input_spec.ndim == 3 and layers.GRU(2).input_spec.ndim == 3


def test_wrong_feature_size_names_the_layer_and_both_sizes():
    import kerasish
    layer = kerasish.layers.LSTM(2, name="enc")
    layer(np.ones((1, 3, 4), "float32"))
    with pytest.raises(ValueError, match=r"Layer 'enc' \(LSTM\) was built for inputs with 4 "
                                         r"features .* \(5 features\)"):
        layer(np.ones((1, 3, 5), "float32"))
