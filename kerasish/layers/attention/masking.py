"""Mask and einsum-equation helpers shared by the multi-head attention layers."""
import string

from kerasish import ops

_LETTERS = string.ascii_lowercase


def causal_mask(query_length, value_length):
    """(1, T, S) bool, True where key position <= query position.

    Example:
        >>> causal_mask(2, 3).shape
        (1, 2, 3)
    """
    rows = ops.reshape(ops.arange(query_length, dtype="int32"), (1, query_length, 1))
    cols = ops.reshape(ops.arange(value_length, dtype="int32"), (1, 1, value_length))
    return ops.greater_equal(rows, cols)


def sliding_window_mask(query_length, value_length, window):
    """(1, T, S) bool, True where |query position - key position| < window."""
    rows = ops.reshape(ops.arange(query_length, dtype="int32"), (1, query_length, 1))
    cols = ops.reshape(ops.arange(value_length, dtype="int32"), (1, 1, value_length))
    return ops.less(ops.abs(ops.subtract(rows, cols)), window)


def merge_attention_mask(query, value, query_mask=None, value_mask=None, key_mask=None,
                         attention_mask=None, use_causal_mask=False, sliding_window=None):
    """Keras's `_compute_attention_mask`: the AND of every mask given, shape (B, T, S).

    The query mask (B, T) becomes (B, T, 1), the value and key masks (B, S)
    become (B, 1, S), the causal and sliding-window masks are (1, T, S).

    Returns:
        a bool Tensor, or None when no mask applies.
    """
    auto = None

    def both(a, b):
        return b if a is None else ops.logical_and(a, b)

    if query_mask is not None:
        auto = ops.expand_dims(ops.cast(query_mask, "bool"), -1)
    if value_mask is not None:
        auto = both(auto, ops.expand_dims(ops.cast(value_mask, "bool"), -2))
    if key_mask is not None:
        auto = both(auto, ops.expand_dims(ops.cast(key_mask, "bool"), -2))
    if use_causal_mask:
        auto = both(auto, causal_mask(query.shape[1], value.shape[1]))
    if sliding_window is not None:
        auto = both(auto, sliding_window_mask(query.shape[1], value.shape[1], sliding_window))
    if attention_mask is not None:
        attention_mask = ops.cast(attention_mask, "bool")
    if auto is None:
        return attention_mask
    return auto if attention_mask is None else ops.logical_and(attention_mask, auto)


def expand_mask(mask, rank, num_attention_axes):
    """Inserts head axes into a (B, T..., S...) mask until it has `rank` axes."""
    axis = -num_attention_axes * 2 - 1
    while mask.ndim < rank:
        mask = ops.expand_dims(mask, axis)
    return mask


def projection_equation(free_dims, bound_dims, output_dims):
    """(equation, bias_axes, output_rank) of a projection EinsumDense.

    Example:
        >>> projection_equation(2, 1, 2)
        ('abc,cde->abde', 'de', 4)
    """
    inputs = _LETTERS[:free_dims + bound_dims]
    kernel = _LETTERS[free_dims:free_dims + bound_dims + output_dims]
    output = _LETTERS[:free_dims] + _LETTERS[free_dims + bound_dims:
                                              free_dims + bound_dims + output_dims]
    return f"{inputs},{kernel}->{output}", kernel[bound_dims:], len(output)


def attention_equations(rank, attention_axes):
    """(dot_product_equation, combine_equation, scores_rank) for projected tensors.

    Projected tensors are (batch, <other axes>, <attention axes>, heads, size);
    the scores are (batch, <other axes>, heads, <query attention axes>,
    <key attention axes>).
    """
    target = _LETTERS[:rank]
    batch_axes = [i for i in range(rank) if i not in attention_axes and i != rank - 1]
    source, extra = "", rank
    for i in range(rank):
        if i in batch_axes or i == rank - 1:
            source += target[i]
        else:
            source += _LETTERS[extra]
            extra += 1
    product = "".join([target[i] for i in batch_axes] + [target[i] for i in attention_axes]
                      + [source[i] for i in attention_axes])
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)
