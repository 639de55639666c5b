"""Multi-head attention as one fused op: scores, mask, softmax, dropout, weighted sum.

`attention` computes, for query (B, T, N, H), key (B, S, N, H) and value
(B, S, N, Hv),

    logits = scale * Q K^T (+ bias), masked;  P = softmax(logits);  out = dropout(P) V

on raw arrays and records one tape node whose backward (first order, the
training hot path) also runs on raw arrays. When a backward runs while an
outer tape records (second order), the gradient is taken through
`attention_reference`, the same computation written with differentiable
ops, so higher orders stay exact. `attention_reference` is also what the
fused op is tested against.

Masked logits follow Keras's two conventions (`masked_rows`):
  * "uniform": as `keras.ops.dot_product_attention` (TF backend), masked
    logits become -0.7 * 3.38953e38; a fully masked row attends uniformly.
  * "zero": as the `Softmax` layer Keras's attention layers use when they
    return scores or apply dropout, masked logits become -1e9 and masked
    probabilities are then set to 0 (a fully masked row gives zeros).
"""
import functools
import math

import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.capture import derive
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.ops.softmax import exact_softmax_kernel
from kerasish.ops.attention import dot_product_attention as _dot_product_attention_by_ops
from kerasish.ops.linalg import matmul
from kerasish.ops.nn import softmax
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.ops.symbolic import keras_op

_MASKED_ROWS = ("uniform", "zero")


def _fill_value(dtype, masked_rows):
    half = np.dtype(dtype) == np.float16
    if masked_rows == "zero":
        return -3e4 if half else -1e9
    return -0.7 * (65500.0 if half else 3.38953e38)


def _allowed(xp, mask, is_causal, t, s):
    """The bool 'may attend' array (broadcastable to (B, N, T, S)) or None."""
    allowed = None if mask is None else mask.astype(bool, copy=False)
    if is_causal:
        causal = xp.tril(xp.ones((t, s), dtype=bool))
        allowed = causal if allowed is None else xp.logical_and(allowed, causal)
    return allowed


def _check(query, key, value, masked_rows, dropout_rate):
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise ValueError(
            "ops.attention: query, key and value must be 4-D (batch, length, heads, size); "
            f"got {core.describe(query, key, value)}.")
    if query.shape[-1] != key.shape[-1] or key.shape[:-1] != value.shape[:-1] \
            or query.shape[0] != key.shape[0] or query.shape[2] != key.shape[2]:
        raise ValueError(
            "ops.attention: expected query (B, T, N, H), key (B, S, N, H) and value "
            f"(B, S, N, Hv); got {core.describe(query, key, value)}.")
    if masked_rows not in _MASKED_ROWS:
        raise ValueError(f"ops.attention: `masked_rows` must be one of {_MASKED_ROWS}; "
                         f"got {masked_rows!r}.")
    if not 0.0 <= dropout_rate < 1.0:
        raise ValueError(f"ops.attention: `dropout_rate` must be in [0, 1); got {dropout_rate}.")


@keras_op
def attention(query, key, value, mask=None, bias=None, scale=None, is_causal=False,
              masked_rows="uniform", dropout_rate=0.0, dropout_keep=None,
              return_scores=False):
    """Fused scaled dot-product attention over heads (forward and backward in one op).

    Args:
        query: (B, T, N, H).
        key: (B, S, N, H).
        value: (B, S, N, Hv).
        mask: optional bool, broadcastable to (B, N, T, S); True attends.
        bias: optional float added to the logits, broadcastable to (B, N, T, S).
        scale: logits scale (1/sqrt(H) when None).
        is_causal: also mask keys after each query position.
        masked_rows: "uniform" (keras.ops.dot_product_attention) or "zero"
            (Keras's Softmax layer); see the module docstring.
        dropout_rate: probability dropped after the softmax.
        dropout_keep: bool array broadcastable to (B, N, T, S), True keeps;
            required when `dropout_rate > 0` (the caller owns the RNG).
        return_scores: also return the softmax probabilities (before dropout).

    Returns:
        Tensor (B, T, N, Hv), or `(output, scores)` with scores (B, N, T, S).

    Example:
        >>> q = ops.ones((2, 5, 3, 4))
        >>> ops.fused_attention(q, q, q, is_causal=True).shape
        (2, 5, 3, 4)
    """
    inputs = [query, key, value] + ([bias] if bias is not None else [])
    values, tensors, dev = core.operands("attention", *inputs)
    result = core.config.to_numpy_dtype(core.result_dtype(*values[:3]))
    if not core.config.is_float_dtype(result):
        result = core.config.to_numpy_dtype(core.config.floatx())
    # numpy computes bfloat16 products in float32: run in float32, return bfloat16
    target = np.dtype("float32") if core.config.standardize_dtype(result) == "bfloat16" else result
    values = [v.astype(target, copy=False) for v in values]
    q, k, v = values[:3]
    _check(q, k, v, masked_rows, dropout_rate)
    if dropout_rate > 0.0 and dropout_keep is None:
        raise ValueError("ops.attention: `dropout_rate` > 0 needs the `dropout_keep` array.")
    xp = dev.xp
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    mask_array = None if mask is None else core.to_array(mask, dev)
    keep_array = core.to_array(dropout_keep, dev) if dropout_rate > 0.0 else None
    forward = functools.partial(_forward_raw, xp, functools.partial(_run_in_chunks, dev), target,
                                result, scale, is_causal, masked_rows, dropout_rate)
    out, scores, qh, kh, vh, probs, dropped, keep, masked = derive(
        forward, q, k, v, values[3] if bias is not None else None, mask_array, keep_array)
    out = Tensor(out, dev)
    outputs = (out, Tensor(scores, dev)) if return_scores else (out,)
    if _tape._active:
        saved = dict(qh=qh, kh=kh, vh=vh, probs=probs, dropped=dropped, keep=keep,
                     masked=masked, scale=scale, masked_rows=masked_rows)
        settings = dict(mask=mask, scale=scale, is_causal=is_causal, masked_rows=masked_rows,
                        dropout_rate=dropout_rate, dropout_keep=dropout_keep)
        _tape.record("attention", tuple(tensors), outputs,
                     lambda g: _backward(g, tensors, saved, settings, return_scores))
    return outputs if return_scores else out


def _batch_rows(array, rows, batch):
    """`array[rows]` when `array` has the batch axis (of a (B, N, T, S) broadcast), else `array`."""
    if array is None or array.ndim < 4 or array.shape[0] != batch or batch == 1:
        return array
    return array[rows]


def _forward_raw(xp, chunks, target, result, scale, is_causal, masked_rows, dropout_rate, q, k,
                 v, bias, mask, dropout_keep):
    """The fused forward on raw arrays: (output, scores) in `result` dtype, computed in
    `target`, and what the backward keeps. Batch items are independent: `chunks`
    (the device's batch chunk kernels) runs them in cache-sized pieces."""
    allowed = _allowed(xp, mask, is_causal, q.shape[1], k.shape[1])
    keep = None
    if dropout_rate > 0.0:
        keep = dropout_keep.astype(target) * target.type(1.0 / (1.0 - dropout_rate))
    on_logits = _scales_logits(masked_rows)
    qh = (q if on_logits else q * target.type(scale)).transpose(0, 2, 1, 3)
    kh, vh = k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3)
    masked = None if allowed is None else xp.logical_not(allowed)
    batch, heads, t, s = q.shape[0], q.shape[2], q.shape[1], k.shape[1]
    probs = xp.empty((batch, heads, t, s), dtype=target)
    dropped = probs if keep is None else xp.empty_like(probs)
    out = xp.empty((batch, t, heads, v.shape[-1]), dtype=target)
    fill = target.type(_fill_value(target, masked_rows))
    softmax_rows = _softmax_kernel(xp, target, probs.size)

    def run(b0, b1):
        rows = slice(b0, b1)
        p = probs[rows]
        xp.matmul(qh[rows], kh[rows].transpose(0, 1, 3, 2), out=p)   # the logits
        if on_logits:
            p *= target.type(scale)
        if bias is not None:
            p += _batch_rows(bias, rows, batch)
        m = None if masked is None else xp.broadcast_to(_batch_rows(masked, rows, batch), p.shape)
        if m is not None:
            xp.copyto(p, fill, where=m)
        softmax_rows(p)
        if masked_rows == "zero" and m is not None:
            # Masked probabilities are already 0 except in fully masked rows (uniform
            # there); the backward below is unchanged by zeroing them, so zero in place.
            xp.copyto(p, target.type(0), where=m)
        d = p if keep is None else xp.multiply(p, _batch_rows(keep, rows, batch), out=dropped[rows])
        out[rows] = (d @ vh[rows]).transpose(0, 2, 1, 3)

    chunks(run, batch, heads * t * s * target.itemsize)
    return (out.astype(result, copy=False), probs.astype(result, copy=False), qh, kh, vh, probs,
            dropped, keep, masked)


def _scales_logits(masked_rows):
    """Where Keras puts the scale: `keras.ops.dot_product_attention` (uniform fully
    masked rows) multiplies the logits, the einsum path with its Softmax layer
    (zero rows) the query."""
    return masked_rows == "uniform"


def _softmax_kernel(xp, dtype, size):
    """`fn(logits)`: softmax over the last axis in place, TensorFlow's (oneDNN's) kernel
    up to `EXACT_MAX_ELEMENTS` logits in all (as `ops.softmax`), else numpy's formula."""
    exact = exact_softmax_kernel(xp, dtype, size)
    if exact is None:
        return functools.partial(_softmax_in_place, xp)

    def softmax_rows(logits):
        logits[...] = exact(logits.reshape(-1, logits.shape[-1])).reshape(logits.shape)
    return softmax_rows


def _softmax_in_place(xp, logits):
    """Numerically stable softmax over the last axis, overwriting `logits`."""
    logits -= logits.max(axis=-1, keepdims=True)
    probs = xp.exp(logits, out=logits)
    probs *= 1.0 / probs.sum(axis=-1, keepdims=True)
    return probs


def _backward(grads, tensors, saved, settings, return_scores):
    if return_scores:
        g_out, g_scores = grads
    else:
        g_out, g_scores = grads, None
    if _tape._active:  # an outer tape records this backward: go through differentiable ops
        return _backward_by_ops(tensors, settings, g_out, g_scores)
    dev = tensors[0]._device
    bias_shape = tuple(tensors[3].shape) if len(tensors) > 3 else None
    backward = functools.partial(_backward_raw, dev.xp, functools.partial(_run_in_chunks, dev),
                                 saved["scale"], saved["masked_rows"], bias_shape,
                                 [t._value.dtype for t in tensors[:3]])
    grads = derive(backward, g_out._value, None if g_scores is None else g_scores._value,
                   saved["dropped"], saved["vh"], saved["kh"], saved["qh"], saved["keep"],
                   saved["masked"], saved["probs"])
    return [None if g is None else Tensor(g, dev) for g in grads[:len(tensors)]]


def _backward_raw(xp, chunks, scale, masked_rows, bias_shape, dtypes, g_out, g_scores, dropped,
                  vh, kh, qh, keep, masked, probs):
    """The fused backward on raw arrays: (g_query, g_key, g_value, g_bias or None), in
    cache-sized batch pieces."""
    batch, heads, t, s = probs.shape
    g_q = xp.empty((batch, t, heads, qh.shape[-1]), dtype=probs.dtype)
    g_k = xp.empty((batch, s, heads, kh.shape[-1]), dtype=probs.dtype)
    g_v = xp.empty((batch, s, heads, vh.shape[-1]), dtype=probs.dtype)
    g_logits_all = None if bias_shape is None else xp.empty_like(probs)
    zero = probs.dtype.type(0)
    on_logits = _scales_logits(masked_rows)

    def run(b0, b1):
        rows = slice(b0, b1)
        p = probs[rows]
        go = g_out[rows].transpose(0, 2, 1, 3)
        g_v[rows] = (dropped[rows].transpose(0, 1, 3, 2) @ go).transpose(0, 2, 1, 3)
        v_t = vh[rows].transpose(0, 1, 3, 2)
        # the gradient of the probabilities (kept whole when a bias gradient sums it)
        g_logits = go @ v_t if g_logits_all is None else xp.matmul(go, v_t, out=g_logits_all[rows])
        if keep is not None:
            g_logits *= _batch_rows(keep, rows, batch)
        if g_scores is not None:
            g_logits += g_scores[rows]
        m = None if masked is None else xp.broadcast_to(_batch_rows(masked, rows, batch),
                                                         g_logits.shape)
        if masked_rows == "zero" and m is not None:
            xp.copyto(g_logits, zero, where=m)
        # softmax backward in place: P * (G - rowsum(G * P))
        g_logits -= xp.einsum("...s,...s->...", g_logits, p)[..., None]
        g_logits *= p
        if m is not None:  # masked logits were constants
            xp.copyto(g_logits, zero, where=m)
        if on_logits:   # TensorFlow's order: the scale's gradient first (the bias's stays unscaled)
            g_logits = g_logits * probs.dtype.type(scale)
        g_q[rows] = (g_logits @ kh[rows]).transpose(0, 2, 1, 3)
        if not on_logits:
            g_q[rows] *= probs.dtype.type(scale)
        g_k[rows] = (g_logits.transpose(0, 1, 3, 2) @ qh[rows]).transpose(0, 2, 1, 3)

    chunks(run, batch, 2 * heads * t * s * probs.itemsize)
    g_bias = None if bias_shape is None else _sum_to_shape(g_logits_all, bias_shape)
    grads = tuple(g.astype(dtype, copy=False) for g, dtype in zip((g_q, g_k, g_v), dtypes))
    return grads + (g_bias,)


def _run_in_chunks(dev, run, batch, per_item_bytes):
    """`run(b0, b1)` over the device's cache-sized batch chunks (threads on CPU)."""
    dev.kernel("run_batch_chunks")(run, dev.kernel("batch_chunks")(batch, per_item_bytes))


def _sum_to_shape(array, shape):
    shape = tuple(shape)
    lead = array.ndim - len(shape)
    if lead:
        array = array.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and array.shape[i] != 1)
    return array.sum(axis=axes, keepdims=True) if axes else array


def _backward_by_ops(tensors, settings, g_out, g_scores):
    """The vector-Jacobian product of `attention_reference`, recorded by the outer tapes."""
    inner = _tape.GradientTape()
    with inner:
        for t in tensors:
            inner.watch(t)
        bias = tensors[3] if len(tensors) > 3 else None
        result = attention_reference(tensors[0], tensors[1], tensors[2], bias=bias,
                                     return_scores=g_scores is not None, **settings)
    targets = list(result) if g_scores is not None else [result]
    seeds = [g_out] if g_scores is None else [g_out, g_scores]
    return inner.gradient(targets, list(tensors), output_gradients=seeds)


def attention_reference(query, key, value, mask=None, bias=None, scale=None, is_causal=False,
                        masked_rows="uniform", dropout_rate=0.0, dropout_keep=None,
                        return_scores=False):
    """`attention` written with differentiable ops (the unfused reference).

    Same arguments and results as `attention`; every step is a recorded op,
    so it supports gradients of any order.

    Example:
        >>> q = ops.ones((1, 3, 2, 4))
        >>> attention_reference(q, q, q).shape
        (1, 3, 2, 4)
    """
    q, k, v = (core.float_operand(t) for t in (query, key, value))
    _check(q, k, v, masked_rows, dropout_rate)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    qh = shape_ops.transpose(q, (0, 2, 1, 3))
    kt = shape_ops.transpose(k, (0, 2, 3, 1))
    vh = shape_ops.transpose(v, (0, 2, 1, 3))
    logits = ew.multiply(matmul(qh, kt), scale)
    if bias is not None:
        logits = ew.add(logits, bias)
    dev = logits._device
    allowed = _allowed(dev.xp, None if mask is None else core.to_array(mask, dev),
                       is_causal, q.shape[1], k.shape[1])
    if allowed is not None:
        fill = _fill_value(logits._value.dtype, masked_rows)
        logits = ew.where(Tensor(allowed, dev), logits, fill)
    scores = softmax(logits, axis=-1)
    if masked_rows == "zero" and allowed is not None:
        scores = ew.where(Tensor(allowed, dev), scores, 0.0)
    dropped = scores
    if dropout_rate > 0.0:
        keep = core.cast(dropout_keep, scores.dtype)
        dropped = ew.multiply(ew.multiply(scores, keep), 1.0 / (1.0 - dropout_rate))
    out = shape_ops.transpose(matmul(dropped, vh), (0, 2, 1, 3))
    return (out, scores) if return_scores else out


@keras_op
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """Keras `ops.dot_product_attention` on the fused `attention` op.

    softmax(Q K^T * scale + bias, masked) V, with grouped-query heads
    (query heads a multiple of key heads) and unbatched (T, N, H) inputs.

    Args:
        query: (B, T, N, H) or (T, N, H).
        key, value: (B, S, K, H) with N a multiple of K.
        bias: optional additive bias broadcastable to (B, N, T, S).
        mask: optional bool mask broadcastable to (B, N, T, S); True keeps.
        scale: logits scale (1/sqrt(H) by default).
        is_causal: mask out keys after each query position.
        flash_attention: must be None or False on this backend.
        attn_logits_soft_cap: optional tanh soft cap on the logits (unfused path).

    Returns:
        Tensor shaped like `query` (last axis from `value`).

    Example:
        >>> q = ops.ones((1, 2, 1, 4))
        >>> ops.dot_product_attention(q, q, q).shape
        (1, 2, 1, 4)
    """
    if attn_logits_soft_cap is not None or flash_attention:
        return _dot_product_attention_by_ops(query, key, value, bias, mask, scale, is_causal,
                                             flash_attention, attn_logits_soft_cap)
    q, k, v = (core.float_operand(t) for t in (query, key, value))
    if KerasTensor in map(type, (q, k, v)):  # Keras's rule: shaped like query
        return KerasTensor(q.shape, q.dtype)
    batched = q.ndim == 4
    if not batched:
        if q.ndim != 3:
            raise ValueError(
                "ops.dot_product_attention: query, key and value must all be (B, T, N, H) or "
                f"(T, N, H); got {core.describe(q, k, v)}.")
        q, k, v = (shape_ops.expand_dims(t, 0) for t in (q, k, v))
    if k.ndim != 4 or v.ndim != 4 or k.shape[2] == 0 or q.shape[2] % k.shape[2]:
        raise ValueError(
            "ops.dot_product_attention: key/value must match query's rank and query heads "
            f"must be a multiple of key heads; got {core.describe(q, k, v)}.")
    groups = q.shape[2] // k.shape[2]
    if groups > 1:
        k, v = shape_ops.repeat(k, groups, axis=2), shape_ops.repeat(v, groups, axis=2)
    out = attention(q, k, v, mask=mask, bias=bias, scale=scale, is_causal=is_causal)
    return out if batched else shape_ops.squeeze(out, 0)


fused_attention = attention  # the name exported from kerasish.ops
