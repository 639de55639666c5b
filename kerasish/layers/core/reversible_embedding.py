"""ReversibleEmbedding: an Embedding that can also project vectors back to vocabulary logits."""
from kerasish import ops
from kerasish.layers.core.embedding import Embedding


class ReversibleEmbedding(Embedding):
    """Embedding whose `call(x, reverse=True)` maps (..., output_dim) vectors to vocabulary logits.

    With `tie_weights` (default) the logits use the transposed embeddings;
    otherwise a separate "reverse_embeddings" weight `(output_dim, input_dim)`.

    Args:
        input_dim, output_dim, embeddings_initializer, embeddings_regularizer,
        embeddings_constraint, mask_zero: as Embedding.
        tie_weights: reuse the embeddings for the reverse projection.
        reverse_dtype: dtype the reverse matmul runs in (None: the compute dtype).
        logit_soft_cap: optional `cap * tanh(logits / cap)` on the logits.

    Example:
        >>> emb = keras.layers.ReversibleEmbedding(100, 16)
        >>> emb(emb(np.array([[1, 2, 3]])), reverse=True).shape
        (1, 3, 100)
    """

    def __init__(self, input_dim, output_dim, tie_weights=True, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 reverse_dtype=None, logit_soft_cap=None, **kwargs):
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        self.tie_weights = tie_weights
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape=None):
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim), initializer=self.embeddings_initializer,
                name="reverse_embeddings")

    def call(self, inputs, reverse=False):
        if not reverse:
            result = super().call(inputs)
            if self.mask_zero:
                result._keras_mask = super().compute_mask(inputs)
            return result
        kernel = ops.transpose(self.embeddings) if self.tie_weights else self.reverse_embeddings
        if self.reverse_dtype is not None:
            inputs, kernel = ops.cast(inputs, self.reverse_dtype), ops.cast(kernel,
                                                                           self.reverse_dtype)
        logits = ops.matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = ops.multiply(ops.tanh(ops.divide(logits, cap)), cap)
        return logits

    def compute_mask(self, inputs, previous_mask=None):
        return None

    def compute_output_shape(self, input_shape, reverse=False):
        shape = list(input_shape)
        if reverse:
            shape[-1] = self.input_dim
        else:
            shape.append(self.output_dim)
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"tie_weights": self.tie_weights, "reverse_dtype": self.reverse_dtype,
                       "logit_soft_cap": self.logit_soft_cap})
        return config
