"""MultiHeadAttention with Keras 3's weight layout (query/key/value/attention_output EinsumDense)."""
import math

from kerasish import constraints, initializers, ops, random, regularizers
from kerasish.layers.activations.softmax import Softmax
from kerasish.layers.attention import masking
from kerasish.layers.core.einsum_dense import EinsumDense
from kerasish.layers.keras_tensor import KerasTensor, in_trace
from kerasish.layers.layer import Layer
from kerasish.layers.regularization.dropout import Dropout
from kerasish.ops.fused_attention import attention as fused_attention
from kerasish.utils import registry


def _positive_int(value, name, allow_none=False):
    if value is None and allow_none:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(
            f"Received an invalid value for argument `{name}`, expected a positive integer"
            f"{' or `None`' if allow_none else ''}. Received: {name}={value}")


def call_shapes(args, kwargs):
    """(query_shape, value_shape, key_shape) from a layer call's arguments."""
    names = ("query", "value", "key")
    tensors = [args[i] if len(args) > i else kwargs.get(name) for i, name in enumerate(names)]
    if tensors[0] is None or tensors[1] is None:
        raise ValueError("MultiHeadAttention: the layer must be called with `query` and `value`.")
    return tuple(None if t is None else tuple(t.shape) for t in tensors)


def unpack_shapes(query_shape, value_shape, key_shape):
    """Accepts `build((q, v, k))` as well as `build(q, v, k)`."""
    if value_shape is None and query_shape and isinstance(query_shape[0], (tuple, list)):
        shapes = list(query_shape) + [None] * (3 - len(query_shape))
        query_shape, value_shape, key_shape = shapes[:3]
    return (tuple(query_shape), tuple(value_shape),
            None if key_shape is None else tuple(key_shape))


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al., 2017) with Keras 3's exact weights.

    Projects query, key and value with `EinsumDense` sublayers named
    "query", "key", "value" (kernels `(dim, num_heads, key_dim)`, biases
    `(num_heads, key_dim)`), attends per head, and projects back with
    "attention_output" (kernel `(num_heads, value_dim, out)`, bias `(out,)`).
    The common case (3-D inputs, attention over the sequence) runs as one
    fused op (`ops.attention`), forward and backward.

    Masks combine as in Keras: the query's and value's (and key's) Keras masks,
    `attention_mask` (B, T, S; True attends), `use_causal_mask` and
    `sliding_window`. A fully masked query row gives uniform weights when
    no scores are returned and dropout is 0 (Keras then calls
    `ops.dot_product_attention`), zeros otherwise (Keras's Softmax layer path).

    Args:
        num_heads: number of attention heads.
        key_dim: size of each head for query and key.
        value_dim: size of each head for value (key_dim when None).
        dropout: dropout rate on the attention probabilities.
        use_bias: whether the projections have biases.
        output_shape: output shape without batch and sequence axes (the
            query's last dimension when None).
        attention_axes: axes attention runs over (all but batch, heads and
            features when None).
        sliding_window: optional positive int, attend only within that band.
        flash_attention: must be None or False on this backend.
        kernel_initializer, bias_initializer, kernel_regularizer,
        bias_regularizer, activity_regularizer, kernel_constraint,
        bias_constraint: for the projection sublayers.
        use_gate: add a sigmoid gate projection of the query ("gate").
        seed: int seed for the dropout.

    Call arguments:
        query: (B, T, dim). value: (B, S, dim). key: optional (B, S, dim).
        attention_mask: optional bool (B, T, S).
        return_attention_scores: also return (B, num_heads, T, S) scores.
        training: dropout only when True.
        use_causal_mask: mask future positions.

    Example:
        >>> mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
        >>> x = np.ones((3, 5, 8), "float32")
        >>> mha(x, x).shape
        (3, 5, 8)
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, sliding_window=None,
                 flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 use_gate=False, seed=None, **kwargs):
        _positive_int(num_heads, "num_heads")
        _positive_int(key_dim, "key_dim")
        _positive_int(value_dim, "value_dim", allow_none=True)
        _positive_int(sliding_window, "sliding_window", allow_none=True)
        if flash_attention:
            raise NotImplementedError(
                "MultiHeadAttention: flash_attention=True is not available in kerasish "
                "(the fused CPU/GPU kernel is used instead); pass None or False.")
        if not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"MultiHeadAttention: `dropout` must be a float in [0, 1). "
                             f"Received: dropout={dropout}")
        super().__init__(**kwargs)
        self.supports_masking = True
        self._num_heads = num_heads
        self._key_dim = key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout = dropout
        self._use_bias = use_bias
        self._use_gate = use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(
                    f"MultiHeadAttention: invalid `output_shape`: {output_shape}. When specified, "
                    "the `output_shape` should be of type tuple, list, or int.") from None
        self._output_shape = output_shape or None
        self._flash_attention = bool(flash_attention)
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer_sub = regularizers.get(activity_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            raise ValueError("MultiHeadAttention: `attention_axes` must be an int, list, or "
                             f"tuple. Received: attention_axes={attention_axes}")
        self._attention_axes = None if attention_axes is None else tuple(attention_axes)
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(key_dim))

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)
    # Keras keeps the sublayers in private attributes behind these public names;
    # the weights file paths use the public ones (query_dense, ...).
    _query_dense = property(lambda self: self.query_dense)
    _key_dense = property(lambda self: self.key_dense)
    _value_dense = property(lambda self: self.value_dense)
    _output_dense = property(lambda self: self.output_dense)

    # Building ----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not self.built:  # build from query, value and key shapes (symbolic calls too)
            self._maybe_build(call_shapes(args, kwargs))
        outputs = super().__call__(*args, **kwargs)
        if in_trace():
            # Inside a traced call (e.g. a custom layer's build-by-tracing pass) Keras runs
            # `call` itself on graph tensors, which deletes the inputs' masks (see `call`);
            # the output spec here comes from the shapes, so the masks are deleted here.
            for i, name in enumerate(("query", "value", "key")):
                tensor = args[i] if len(args) > i else kwargs.get(name)
                if isinstance(tensor, KerasTensor):
                    tensor._keras_mask = None
        return outputs

    def _build_from_inputs(self, args, kwargs, sig):
        self._maybe_build(call_shapes(args, kwargs))

    def build(self, query_shape, value_shape=None, key_shape=None):
        query_shape, value_shape, key_shape = unpack_shapes(query_shape, value_shape, key_shape)
        key_shape = value_shape if key_shape is None else key_shape
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "MultiHeadAttention: all dimensions of `value` and `key`, except the last one, "
                f"must be equal. Received: value_shape={value_shape} and key_shape={key_shape}")
        self.query_dense = self._projection(query_shape, self._key_dim, "query")
        self.key_dense = self._projection(key_shape, self._key_dim, "key")
        if self._use_gate:
            self._gate_dense = self._projection(query_shape, self._value_dim, "gate",
                                               activation="sigmoid")
        self.value_dense = self._projection(value_shape, self._value_dim, "value")
        rank = len(query_shape) + 1
        axes = tuple(range(1, rank - 2)) if self._attention_axes is None else tuple(
            a if a >= 0 else (rank - 1) + a for a in self._attention_axes)
        self._attention_axes = axes
        self._dot_product_equation, self._combine_equation, scores_rank = \
            masking.attention_equations(rank, axes)
        self._softmax = Softmax(axis=tuple(range(scores_rank - len(axes), scores_rank)),
                                dtype=self.dtype_policy)
        self._dropout_layer = Dropout(rate=self._dropout, seed=self.seed, dtype=self.dtype_policy)
        out_shape = self._output_shape or (query_shape[-1],)
        equation, bias_axes, out_rank = masking.projection_equation(
            len(query_shape) - 1, 2, len(out_shape))
        self.output_dense = EinsumDense(
            equation, output_shape=[None] * (out_rank - 1 - len(out_shape)) + list(out_shape),
            bias_axes=bias_axes if self._use_bias else None, name="attention_output",
            **self._sublayer_kwargs())
        projected = list(self.query_dense.compute_output_shape(query_shape))
        projected[-1] = self._value_dim
        self.output_dense._maybe_build(tuple(projected))

    def _sublayer_kwargs(self):
        return dict(
            kernel_initializer=self._kernel_initializer.__class__.from_config(
                self._kernel_initializer.get_config()),
            bias_initializer=self._bias_initializer.__class__.from_config(
                self._bias_initializer.get_config()),
            kernel_regularizer=self._kernel_regularizer, bias_regularizer=self._bias_regularizer,
            activity_regularizer=self._activity_regularizer_sub,
            kernel_constraint=self._kernel_constraint, bias_constraint=self._bias_constraint,
            dtype=self.dtype_policy)

    def _projection(self, input_shape, head_size, name, activation=None):
        equation, bias_axes, out_rank = masking.projection_equation(len(input_shape) - 1, 1, 2)
        layer = EinsumDense(
            equation, output_shape=[None] * (out_rank - 3) + [self._num_heads, head_size],
            bias_axes=bias_axes if self._use_bias else None, name=name, activation=activation,
            **self._sublayer_kwargs())
        layer._maybe_build(tuple(input_shape))
        return layer

    def get_build_config(self):
        return shapes_build_config(self._build_shapes)

    def build_from_config(self, build_config):
        if not build_from_shapes_config(self, build_config):
            super().build_from_config(build_config)

    # Calling -----------------------------------------------------------------
    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        if key is None:
            key = value
        # As Keras: the query mask always comes from the query's Keras mask; value and key
        # masks from their arguments, else from the tensors' Keras masks.
        query_mask = getattr(query, "_keras_mask", None)
        value_mask = value_mask if value_mask is not None else getattr(value, "_keras_mask", None)
        if key_mask is None and key is not value:
            key_mask = getattr(key, "_keras_mask", None)
        for tensor in (query, value, key):
            # Keras's MultiHeadAttention.call deletes the inputs' masks (they are
            # handled here), so the caller's tensors carry none afterwards.
            if hasattr(tensor, "_keras_mask"):
                tensor._keras_mask = None
        mask = masking.merge_attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask,
            self._sliding_window)
        gate = self._gate_dense(query) if self._use_gate else None
        q = self.query_dense(query)
        k = self.key_dense(key)
        v = self.value_dense(value)
        output, scores = self._compute_attention(q, k, v, mask, training, return_attention_scores)
        if gate is not None:
            output = ops.multiply(output, gate)
        output = self.output_dense(output)
        if query_mask is not None:
            output._keras_mask = query_mask
        return (output, scores) if return_attention_scores else output

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           return_attention_scores=False):
        """Attention over projected (B, T..., N, H) tensors -> (output, scores or None)."""
        dropping = bool(training) and self._dropout > 0.0
        if query.ndim == 4 and self._attention_axes == (1,):
            # Keras uses ops.dot_product_attention (uniform fully-masked rows) unless it
            # needs the scores or has dropout configured (Softmax layer: zero rows).
            zero_rows = return_attention_scores or self._dropout > 0.0
            mask = None if attention_mask is None else masking.expand_mask(attention_mask, 4, 1)
            keep = self._keep_mask((query.shape[0], query.shape[2], query.shape[1],
                                    key.shape[1]), query.dtype) if dropping else None
            result = fused_attention(
                query, key, value, mask=mask, scale=self._inverse_sqrt_key_dim,
                masked_rows="zero" if zero_rows else "uniform",
                dropout_rate=self._dropout if dropping else 0.0, dropout_keep=keep,
                return_scores=return_attention_scores)
            return result if return_attention_scores else (result, None)
        return self._compute_attention_by_einsum(query, key, value, attention_mask, training)

    def _keep_mask(self, shape, dtype):
        """The keep mask Keras's `_dropout_layer` draws on the (B, N, Tq, Tk) scores."""
        return ops.greater_equal(random.uniform(
            shape, dtype=dtype, seed=self._dropout_layer.seed_generator), self._dropout)

    def _compute_attention_by_einsum(self, query, key, value, attention_mask, training):
        query = ops.multiply(query, ops.cast(self._inverse_sqrt_key_dim, query.dtype))
        scores = ops.einsum(self._dot_product_equation, key, query)
        if attention_mask is not None:
            attention_mask = masking.expand_mask(attention_mask, scores.ndim,
                                                 len(self._attention_axes))
        scores = self._softmax(scores, mask=attention_mask)
        dropped = self._dropout_layer(scores, training=training) if self._dropout > 0 else scores
        return ops.einsum(self._combine_equation, dropped, value), scores

    def compute_output_spec(self, *args, **kwargs):
        """As Keras: from `compute_output_shape` (no trace), so a symbolic call
        keeps the query's known sizes; scores are (B, heads, Tq, Tq) as Keras says."""
        query_shape, value_shape, key_shape = call_shapes(args, kwargs)
        output = KerasTensor(self.compute_output_shape(query_shape, value_shape, key_shape),
                             self.compute_dtype)
        if not kwargs.get("return_attention_scores", False):
            return output
        length = query_shape[1]
        return output, KerasTensor((query_shape[0], self._num_heads, length, length),
                                   self.compute_dtype)

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape, value_shape, key_shape = unpack_shapes(query_shape, value_shape, key_shape)
        key_shape = value_shape if key_shape is None else key_shape
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "MultiHeadAttention: all dimensions of `value` and `key`, except the last one, "
                f"must be equal. Received: value_shape={value_shape} and key_shape={key_shape}")
        if self._output_shape:
            return query_shape[:-1] + tuple(self._output_shape)
        return query_shape

    def get_config(self):
        config = super().get_config()
        ser = registry.serialize_keras_object
        config.update({
            "num_heads": self._num_heads, "key_dim": self._key_dim,
            "value_dim": self._value_dim, "dropout": self._dropout,
            "use_bias": self._use_bias, "use_gate": self._use_gate,
            "output_shape": self._output_shape, "attention_axes": self._attention_axes,
            "sliding_window": self._sliding_window,
            "kernel_initializer": ser(self._kernel_initializer),
            "bias_initializer": ser(self._bias_initializer),
            "kernel_regularizer": ser(self._kernel_regularizer),
            "bias_regularizer": ser(self._bias_regularizer),
            "activity_regularizer": ser(self._activity_regularizer_sub),
            "kernel_constraint": ser(self._kernel_constraint),
            "bias_constraint": ser(self._bias_constraint),
            "seed": self.seed,
        })
        return config


def shapes_build_config(build_shapes):
    """Keras's build config of an attention layer (Layer.get_build_config of a
    several-argument build): `{"shapes_dict": {query/value(/key) shapes}}`, or None."""
    if build_shapes is None:
        return None
    query_shape, value_shape, key_shape = build_shapes
    shapes = {"query_shape": query_shape, "value_shape": value_shape}
    if key_shape is not None:
        shapes["key_shape"] = key_shape
    return {"shapes_dict": shapes}


def build_from_shapes_config(layer, build_config):
    """Builds an attention layer from `shapes_build_config`'s output; False if it holds none."""
    if build_config and isinstance(build_config.get("shapes_dict"), dict):
        build_config = build_config["shapes_dict"]
    if not build_config or build_config.get("query_shape") is None:
        return False
    key_shape = build_config.get("key_shape")
    layer._maybe_build((tuple(build_config["query_shape"]), tuple(build_config["value_shape"]),
                        None if key_shape is None else tuple(key_shape)))
    return True
