"""Scaled dot-product attention (Keras `ops.dot_product_attention`), built from ops."""
import math

import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops
from kerasish.ops.linalg import einsum
from kerasish.ops.nn import softmax


def _check(query, key, value):
    if query.ndim not in (3, 4) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise ValueError(
            "ops.dot_product_attention: query, key and value must all be (B, T, N, H) or "
            f"(T, N, H); got {core.describe(query, key, value)}.")
    if query.shape[-1] != key.shape[-1] or key.shape[:-1] != value.shape[:-1]:
        raise ValueError(
            "ops.dot_product_attention: head sizes or key/value shapes disagree: "
            f"{core.describe(query, key, value)}.")
    if query.shape[-2] % key.shape[-2]:
        raise ValueError(
            f"ops.dot_product_attention: {query.shape[-2]} query heads are not a multiple of "
            f"{key.shape[-2]} key heads.")


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """softmax(Q K^T * scale + bias, masked) V over heads, like Keras ops.

    Args:
        query: (B, T, N, H).
        key, value: (B, S, K, H) with N a multiple of K (grouped-query attention).
        bias: optional additive bias broadcastable to (B, N, T, S).
        mask: optional bool mask broadcastable to (B, N, T, S); True keeps.
        scale: logits scale (1/sqrt(H) by default).
        is_causal: mask out keys after each query position.
        flash_attention: must be None or False on this backend.
        attn_logits_soft_cap: optional tanh soft cap on the logits.

    Returns:
        Tensor (B, T, N, H).

    Example:
        >>> q = ops.ones((1, 2, 1, 4))
        >>> ops.dot_product_attention(q, q, q).shape
        (1, 2, 1, 4)
    """
    if flash_attention:
        raise NotImplementedError("ops.dot_product_attention: flash_attention is not available.")
    q, k, v = (core.float_operand(t) for t in (query, key, value))
    batched = q.ndim == 4
    if not batched:
        q, k, v = (shape_ops.expand_dims(t, 0) for t in (q, k, v))
    _check(q, k, v)
    groups = q.shape[2] // k.shape[2]
    if groups > 1:
        k, v = shape_ops.repeat(k, groups, axis=2), shape_ops.repeat(v, groups, axis=2)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    logits = ew.multiply(einsum("btnh,bsnh->bnts", q, k), scale)
    if attn_logits_soft_cap is not None:
        cap = float(attn_logits_soft_cap)
        logits = ew.multiply(ew.tanh(ew.divide(logits, cap)), cap)
    if bias is not None:
        logits = ew.add(logits, bias)
    keep = None if mask is None else core.cast(mask, "bool")
    if is_causal:
        t, s = logits.shape[-2:]
        causal = Tensor(logits._device.xp.asarray(np.tril(np.ones((t, s), dtype=bool))), logits._device)
        keep = causal if keep is None else ew.logical_and(keep, causal)
    if keep is not None:
        logits = ew.where(keep, logits, float(np.finfo(logits._value.dtype).min) / 2)
    weights = softmax(logits, axis=-1)
    out = einsum("bnts,bsnh->btnh", weights, v)
    return out if batched else shape_ops.squeeze(out, 0)
