"""GroupedQueryAttention: query heads share fewer key/value heads (Keras 3 weight layout)."""
import math

from kerasish import constraints, initializers, ops, random, regularizers
from kerasish.layers.activations.softmax import Softmax
from kerasish.layers.attention import masking
from kerasish.layers.attention.multi_head_attention import (build_from_shapes_config,
                                                           call_shapes,
                                                           shapes_build_config,
                                                           unpack_shapes)
from kerasish.layers.core.einsum_dense import EinsumDense
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.regularization.dropout import Dropout
from kerasish.ops.fused_attention import attention as fused_attention
from kerasish.utils import registry


class GroupedQueryAttention(Layer):
    """Grouped-query attention (Ainslie et al., 2023), exported as `GroupQueryAttention` too.

    `num_query_heads` query heads attend with `num_key_value_heads` key/value
    heads, each shared by `num_query_heads // num_key_value_heads` query heads.
    Weights as Keras: EinsumDense sublayers "query" (kernel `(dim, Nq, head_dim)`),
    "key" and "value" (`(dim, Nkv, head_dim)`), "attention_output"
    (`(Nq, head_dim, dim)`). Masks combine as in MultiHeadAttention.

    Args:
        head_dim: size of each head.
        num_query_heads: number of query heads.
        num_key_value_heads: number of key/value heads (divides num_query_heads).
        dropout: dropout rate on the attention probabilities.
        use_bias: whether the projections have biases.
        sliding_window: optional positive int band width.
        flash_attention: must be None or False on this backend.
        kernel_initializer, bias_initializer, kernel_regularizer,
        bias_regularizer, activity_regularizer, kernel_constraint,
        bias_constraint: for the projection sublayers.
        use_gate: sigmoid gate projection of the query.
        seed: int seed for the dropout.

    Example:
        >>> gqa = keras.layers.GroupQueryAttention(head_dim=4, num_query_heads=4,
        ...                                       num_key_value_heads=2)
        >>> x = np.ones((2, 6, 8), "float32")
        >>> gqa(x, x).shape
        (2, 6, 8)
    """

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0,
                 use_bias=True, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        for name, value in (("head_dim", head_dim), ("num_query_heads", num_query_heads),
                            ("num_key_value_heads", num_key_value_heads)):
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"GroupedQueryAttention: `{name}` must be a positive integer. "
                                 f"Received: {name}={value}")
        if num_query_heads % num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        if sliding_window is not None and (not isinstance(sliding_window, int)
                                           or sliding_window <= 0):
            raise ValueError("`sliding_window` must be `None` or a positive integer. "
                             f"Received: sliding_window={sliding_window}")
        if flash_attention:
            raise NotImplementedError(
                "GroupedQueryAttention: flash_attention=True is not available in kerasish; "
                "pass None or False.")
        self.supports_masking = True
        self.head_dim = head_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.num_repeats = num_query_heads // num_key_value_heads
        self.dropout = dropout
        self.use_bias = use_bias
        self.use_gate = use_gate
        self.sliding_window = sliding_window
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.sublayer_activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self._inverse_sqrt_head_dim = 1.0 / math.sqrt(float(head_dim))

    def __call__(self, *args, **kwargs):
        if not self.built:  # build from query, value and key shapes (symbolic calls too)
            self._maybe_build(call_shapes(args, kwargs))
        return super().__call__(*args, **kwargs)

    def _build_from_inputs(self, args, kwargs, sig):
        self._maybe_build(call_shapes(args, kwargs))

    def build(self, query_shape, value_shape=None, key_shape=None):
        query_shape, value_shape, key_shape = unpack_shapes(query_shape, value_shape, key_shape)
        key_shape = value_shape if key_shape is None else key_shape
        self.feature_dim = query_shape[-1]
        bias = self.use_bias
        self._query_dense = self._dense("bqm,muh->bquh", (None, self.num_query_heads,
                                        self.head_dim), "uh" if bias else None, "query",
                                        query_shape)
        self._key_dense = self._dense("bkm,mvh->bkvh", (None, self.num_key_value_heads,
                                      self.head_dim), "vh" if bias else None, "key", key_shape)
        if self.use_gate:
            self._gate_dense = self._dense("bqm,muh->bquh", (None, self.num_query_heads,
                                           self.head_dim), "uh" if bias else None, "gate",
                                           query_shape, activation="sigmoid")
        self._value_dense = self._dense("bkm,mvh->bkvh", (None, self.num_key_value_heads,
                                        self.head_dim), "vh" if bias else None, "value",
                                        value_shape)
        self._softmax = Softmax(axis=-1, dtype=self.dtype_policy)
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed, dtype=self.dtype_policy)
        self._output_dense = self._dense("bquh,uhm->bqm", (None, self.feature_dim),
                                         "m" if bias else None, "attention_output",
                                         (None, None, self.num_query_heads, self.head_dim))

    def _dense(self, equation, output_shape, bias_axes, name, input_shape, activation=None):
        layer = EinsumDense(
            equation, output_shape=output_shape, bias_axes=bias_axes, name=name,
            activation=activation,
            kernel_initializer=self.kernel_initializer.__class__.from_config(
                self.kernel_initializer.get_config()),
            bias_initializer=self.bias_initializer.__class__.from_config(
                self.bias_initializer.get_config()),
            kernel_regularizer=self.kernel_regularizer, bias_regularizer=self.bias_regularizer,
            activity_regularizer=self.sublayer_activity_regularizer,
            kernel_constraint=self.kernel_constraint, bias_constraint=self.bias_constraint,
            dtype=self.dtype_policy)
        layer._maybe_build(tuple(input_shape))
        return layer

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        if key is None:
            key = value
        query_mask = query_mask if query_mask is not None else getattr(query, "_keras_mask", None)
        value_mask = value_mask if value_mask is not None else getattr(value, "_keras_mask", None)
        if key_mask is None and key is not value:
            key_mask = getattr(key, "_keras_mask", None)
        mask = masking.merge_attention_mask(query, value, query_mask, value_mask, key_mask,
                                            attention_mask, use_causal_mask, self.sliding_window)
        gate = self._gate_dense(query) if self.use_gate else None
        q = self._query_dense(query)
        k = ops.repeat(self._key_dense(key), self.num_repeats, axis=2)
        v = ops.repeat(self._value_dense(value), self.num_repeats, axis=2)
        dropping = bool(training) and self.dropout > 0.0
        keep = None
        if dropping:
            shape = (q.shape[0], q.shape[2], q.shape[1], k.shape[1])
            # the draw of Keras's `_dropout_layer` (stateless dropout on the scores)
            keep = ops.greater_equal(random.uniform(
                shape, dtype=q.dtype, seed=self._dropout_layer.seed_generator), self.dropout)
        result = fused_attention(
            q, k, v, mask=None if mask is None else masking.expand_mask(mask, 4, 1),
            scale=self._inverse_sqrt_head_dim,
            masked_rows="zero" if return_attention_scores or self.dropout > 0 else "uniform",
            dropout_rate=self.dropout if dropping else 0.0, dropout_keep=keep,
            return_scores=return_attention_scores)
        output, scores = result if return_attention_scores else (result, None)
        if gate is not None:
            output = ops.multiply(output, gate)
        output = self._output_dense(output)
        return (output, scores) if return_attention_scores else output

    def compute_output_spec(self, *args, **kwargs):
        """As Keras: from `compute_output_shape` (no trace); scores (B, heads, Tq, Tkv)."""
        query_shape, value_shape, key_shape = call_shapes(args, kwargs)
        output = KerasTensor(self.compute_output_shape(query_shape, value_shape, key_shape),
                             self.compute_dtype)
        if not kwargs.get("return_attention_scores", False):
            return output
        kv_len = (value_shape if key_shape is None else key_shape)[1]
        return output, KerasTensor((query_shape[0], self.num_query_heads, query_shape[1], kv_len),
                                   self.compute_dtype)

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape, value_shape, key_shape = unpack_shapes(query_shape, value_shape, key_shape)
        key_shape = value_shape if key_shape is None else key_shape
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(
                "The last dimension of `query_shape` and `value_shape` must be equal, but are "
                f"{query_shape[-1]}, {value_shape[-1]}. Received: query_shape={query_shape}, "
                f"value_shape={value_shape}")
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={value_shape} and key_shape={key_shape}")
        return query_shape

    def get_build_config(self):
        return shapes_build_config(self._build_shapes)

    def build_from_config(self, build_config):
        build_from_shapes_config(self, build_config)

    def get_config(self):
        config = super().get_config()
        ser = registry.serialize_keras_object
        config.update({
            "head_dim": self.head_dim, "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads, "use_bias": self.use_bias,
            "use_gate": self.use_gate, "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            "kernel_initializer": ser(self.kernel_initializer),
            "bias_initializer": ser(self.bias_initializer),
            "kernel_regularizer": ser(self.kernel_regularizer),
            "bias_regularizer": ser(self.bias_regularizer),
            "activity_regularizer": ser(self.sublayer_activity_regularizer),
            "kernel_constraint": ser(self.kernel_constraint),
            "bias_constraint": ser(self.bias_constraint),
            "seed": self.seed,
        })
        return config
