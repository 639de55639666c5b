"""Attention: Luong-style dot-product (or concat) attention over [query, value, key]."""
from kerasish import ops, random
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer


class Attention(Layer):
    """Dot-product attention layer (Luong), or additive-style "concat" scores.

    scores = query @ key^T (times `scale` when `use_scale`), or with
    `score_mode="concat"`: `concat_score_weight * sum(tanh(scale * (q + k)))`;
    masked keys get `scores - 1e9`; the output is `softmax(scores) @ value`,
    zeroed at masked query positions.

    Args:
        use_scale: learn a scalar "scale" for the scores.
        score_mode: "dot" or "concat" (adds a scalar "concat_score_weight").
        dropout: dropout rate on the attention weights (training only).
        seed: int seed for the dropout.

    Call arguments:
        inputs: [query (B, Tq, dim), value (B, Tv, dim)] or [query, value, key].
        mask: optional [query_mask (B, Tq), value_mask (B, Tv)].
        return_attention_scores: also return the (B, Tq, Tv) weights.
        training: dropout only when True.
        use_causal_mask: mask keys after each query position.

    Example:
        >>> q, v = np.ones((2, 3, 4), "float32"), np.ones((2, 5, 4), "float32")
        >>> keras.layers.Attention()([q, v]).shape
        (2, 3, 4)
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of "
                             f"{{'dot', 'concat'}}. Received: score_mode={score_mode}")
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = dropout
        self.seed = seed
        self.supports_masking = True
        if dropout > 0:
            self.seed_generator = random.SeedGenerator(seed)

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = None
        self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(name="concat_score_weight", shape=(),
                                                       initializer="ones")

    def _calculate_scores(self, query, key):
        if self.score_mode == "dot":
            scores = ops.matmul(query, ops.swapaxes(key, -2, -1))
            return scores if self.scale is None else ops.multiply(scores, self.scale)
        pairs = ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3))
        if self.scale is not None:
            pairs = ops.multiply(self.scale, pairs)
        return ops.multiply(self.concat_score_weight, ops.sum(ops.tanh(pairs), axis=-1))

    def _apply_scores(self, scores, value, scores_mask=None, training=False):
        if scores_mask is not None:
            padding = ops.logical_not(scores_mask)
            if padding.ndim == 2:
                padding = ops.expand_dims(padding, -2)
            big = 65504.0 if scores.dtype == "float16" else 1.0e9
            scores = ops.where(padding, ops.subtract(scores, big), scores)
        weights = ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = random.dropout(weights, self.dropout, seed=self.seed_generator)
        return ops.matmul(weights, value), weights

    def _score_mask(self, scores, value_mask, use_causal_mask):
        if not use_causal_mask:
            return value_mask
        length_q, length_v = scores.shape[-2], scores.shape[-1]
        rows = ops.reshape(ops.arange(length_q, dtype="int32"), (1, length_q, 1))
        cols = ops.reshape(ops.arange(length_v, dtype="int32"), (1, 1, length_v))
        causal = ops.greater_equal(rows, cols)
        if value_mask is None:
            return causal
        return ops.logical_and(ops.expand_dims(ops.cast(value_mask, "bool"), -2), causal)

    def call(self, inputs, mask=None, training=False, return_attention_scores=False,
             use_causal_mask=False):
        self._validate_inputs(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        if value_mask is not None:
            value_mask = ops.cast(value_mask, "bool")
        scores = self._calculate_scores(query, key)
        output, weights = self._apply_scores(
            scores, value, self._score_mask(scores, value_mask, use_causal_mask), training)
        if query_mask is not None:
            output = ops.where(ops.expand_dims(ops.cast(query_mask, "bool"), -1), output, 0.0)
            output._keras_mask = ops.convert_to_tensor(query_mask)  # as compute_mask
        return (output, weights) if return_attention_scores else output

    def compute_mask(self, inputs, mask=None):
        self._validate_inputs(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return ops.convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape):
        return (*input_shape[0][:-1], input_shape[1][-1])

    def compute_output_spec(self, inputs, mask=None, return_attention_scores=False,
                            training=None, use_causal_mask=False):
        """As Keras: the output spec from the shapes, and with
        `return_attention_scores` the `(..., Tq, Tv)` scores' spec too."""
        self._validate_inputs(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        output = KerasTensor(self.compute_output_shape([query.shape, value.shape, key.shape]),
                             dtype=self.compute_dtype)
        if return_attention_scores:
            return output, KerasTensor((*query.shape[:-1], key.shape[-2]),
                                       dtype=self.compute_dtype)
        return output

    def _validate_inputs(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, (list, tuple)) or (inputs and not isinstance(
                inputs[0], (list, tuple)) and isinstance(inputs, tuple)
                and all(isinstance(d, int) or d is None for d in inputs)):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely "
                             f"[query, value] or [query, value, key]. Received: inputs={inputs}.")
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely "
                             f"[query, value] or [query, value, key]. Received length: "
                             f"{len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, (list, tuple)):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, "
                                 f"value_mask]. Received: mask={mask}.")
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. "
                                 f"Received: inputs={inputs}, mask={mask}.")

    def get_config(self):
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "score_mode": self.score_mode,
                       "dropout": self.dropout, "seed": self.seed})
        return config
