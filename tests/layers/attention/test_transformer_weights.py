"""The issue's TransformerBlock loads a `.weights.h5` written by real Keras 3.15.1."""
from pathlib import Path

import numpy as np

import kerasish as keras
from kerasish import layers

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "attention"


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential([layers.Dense(ff_dim, activation="relu"),
                                     layers.Dense(embed_dim)])
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1, self.dropout2 = layers.Dropout(rate), layers.Dropout(rate)

    def call(self, inputs, training=None):
        attn = self.att(inputs, inputs, training=training)
        out1 = self.layernorm1(inputs + self.dropout1(attn, training=training))
        return self.layernorm2(out1 + self.dropout2(self.ffn(out1), training=training))


def _model():
    inputs = layers.Input(shape=(10,))
    h = layers.Embedding(50, 8)(inputs)
    h = TransformerBlock(8, 2, 8)(h)
    h = layers.GlobalAveragePooling1D()(h)
    return keras.Model(inputs, layers.Dense(2, activation="softmax")(h))


def test_keras_weights_file_loads_and_predicts_the_same():
    arrays = np.load(HERE / "attention_fixtures.npz")
    model = _model()
    before = model.predict(arrays["transformer/tokens"], verbose=0)
    model.load_weights(str(HERE / "transformer_block.weights.h5"))
    after = model.predict(arrays["transformer/tokens"], verbose=0)
    assert not np.allclose(before, arrays["transformer/pred"], atol=1e-3)
    np.testing.assert_allclose(after, arrays["transformer/pred"], rtol=1e-5, atol=1e-6)


def test_weights_round_trip_through_our_own_file(tmp_path):
    model = _model()
    tokens = np.arange(30).reshape(3, 10) % 50
    expected = model.predict(tokens, verbose=0)
    model.save_weights(str(tmp_path / "block.weights.h5"))
    other = _model()
    other.load_weights(str(tmp_path / "block.weights.h5"))
    np.testing.assert_allclose(other.predict(tokens, verbose=0), expected, rtol=1e-6)
