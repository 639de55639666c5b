"""AdditiveAttention: Bahdanau-style attention over [query, value, key]."""
from kerasish import ops
from kerasish.layers.attention.attention import Attention


class AdditiveAttention(Attention):
    """Additive (Bahdanau) attention: scores = sum(scale * tanh(q + k), axis=-1).

    Args:
        use_scale: learn a per-feature "scale" vector (shape `(dim,)`).
        dropout: dropout rate on the attention weights (training only).

    Call arguments: as `Attention`.

    Example:
        >>> q, v = np.ones((2, 3, 4), "float32"), np.ones((2, 5, 4), "float32")
        >>> keras.layers.AdditiveAttention()([q, v]).shape
        (2, 3, 4)
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(input_shape[0][-1],),
                                         initializer="glorot_uniform")

    def _calculate_scores(self, query, key):
        pairs = ops.tanh(ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3)))
        if self.use_scale:
            pairs = ops.multiply(self.scale, pairs)
        return ops.sum(pairs, axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config
