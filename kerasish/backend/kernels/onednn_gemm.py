"""TensorFlow's float32 matrix products on x86: oneDNN's sgemm order, with numpy.

TensorFlow's x86 wheels multiply float32 matrices with oneDNN's sgemm (eagerly,
and in Keras's traced steps through oneDNN's gemm-based inner product). On
AVX-512 CPUs its kernel computes each output element as a chain of fused
multiply-adds along the inner dimension K, in blocks: a block of all of K when
K <= 384, else blocks of 384 while at least 768 values remain, and the last
remainder above 384 cut in two halves (K = 784: 384, 200, 200); the blocks'
chains are added into the result one after another. numpy's OpenBLAS also runs
one chain per element for K up to its own block (about 400) when the output's
columns fill its 16-wide kernels, but blocks K differently above it, and its
narrow-column kernels (1-8 columns, or 1-4 left over past a multiple of 16) add
in another order. So kerasish feeds OpenBLAS one block at a time, with the
columns padded to a multiple of 16 (and a single row padded to two): each call
is then one chain per element, and the blocks are added as oneDNN adds them.

Three more kernels were found by probing the summation tree with 2^30-sized
values (each pair of positions tells how many values were added before the two
met): a product with one output column runs oneDNN's gemv (`_gemv`), an input
gradient of fewer than 16 rows runs 16-lane dot products (`_lane_dots`), and one
input row is a single chain over all of K while the product is small
(`ROW_MAX_WORK`). Where oneDNN splits K over its threads (one row with a large
output, a one-column kernel gradient over more than 384 samples), on other CPUs
(AVX2's blocks depend on the operands' transposition) and where OpenBLAS's
chains cannot be confirmed at run time, products stay plain numpy
(`is_exact`, `product_kernel`).

Checked to the bit against TensorFlow 2.21 (`tests/backend/test_onednn_gemm.py`).
"""
import functools

import numpy as np

from kerasish.backend.kernels import onednn_math

_F32 = np.dtype(np.float32)
BLOCK_K = 384          # oneDNN's avx512_core sgemm K block
_KERNEL_COLUMNS = 16   # OpenBLAS's float32 kernel width on AVX-512


def k_blocks(k, block=BLOCK_K):
    """oneDNN's blocks of the inner dimension: (start, stop) pairs.

    Args:
        k: the inner dimension.
        block: the kernel's K block.

    Returns:
        list of (start, stop).

    Example:
        >>> k_blocks(784)
        [(0, 384), (384, 584), (584, 784)]
    """
    bounds, start = [], 0
    while start < k:
        rest = k - start
        size = rest if rest <= block else block if rest >= 2 * block else (rest + 1) // 2
        bounds.append((start, start + size))
        start += size
    return bounds


GEMV_MAX_K = 3000   # the one-column kernel's order is confirmed up to here
# one input row: a single chain over all of K while k * n is at most this (checked
# up to 784 x 300); above it oneDNN splits K over its threads
ROW_MAX_WORK = 235200


def is_exact(kind, m, k, n):
    """Whether kerasish knows oneDNN's order for an (m, k) x (k, n) product of `kind`.

    Args:
        kind: "nn" (`x @ w`: a forward product), "tn" (`x.T @ g`: a kernel
            gradient) or "nt" (`g @ w.T`: an input gradient), as TensorFlow
            calls its sgemm.
        m, k, n: the product's dimensions.

    Returns:
        bool.
    """
    if kind == "nt":         # fewer than 16 rows: oneDNN's 16-lane dot kernel (`_lane_dots`)
        return 2 <= m < 16 or (m >= 16 and n >= 2)
    if n == 1:               # one output column: oneDNN's gemv kernel (`_gemv`)
        return (kind == "tn" and k <= BLOCK_K) or (kind == "nn" and m >= 2 and k <= GEMV_MAX_K)
    if m >= 2:
        return True
    return k * n <= ROW_MAX_WORK if kind == "nn" else k <= BLOCK_K


def product_kernel(dtype):
    """`fn(a, b, kind) -> a @ b` in oneDNN's order, or None where it is not followed.

    Args:
        dtype: the operands' dtype.

    Returns:
        callable or None (not float32, not an AVX-512 oneDNN kernel, or
        OpenBLAS's chains not confirmed on this machine).

    Example:
        >>> product_kernel(np.float64) is None
        True
    """
    if dtype != _F32 or onednn_math.cpu_kernel() != (16, True):
        return None
    return product if _openblas_runs_chains() else None


def product(a, b, kind):
    """`a @ b` of 2-D float32 arrays as oneDNN's sgemm adds it, where `is_exact`.

    Args:
        a: (m, k) float32 array.
        b: (k, n) float32 array.
        kind: "nn", "tn" or "nt" (see `is_exact`).

    Returns:
        (m, n) float32 array.
    """
    (m, k), n = a.shape, b.shape[1]
    if (k <= BLOCK_K and n >= 2 and (m >= 16 or (m >= 2 and kind != "nt"))
            and not _needs_padding(n) and b.flags.c_contiguous):
        return a @ b   # one block, which OpenBLAS already runs as one chain per element
    if not is_exact(kind, m, k, n):
        return a @ b
    if kind == "nt" and m < 16:
        return _lane_dots(a, b)
    if m == 1 and k > BLOCK_K:   # one input row: one chain over all of K (no blocks)
        return chain_reference(a, b)
    if n == 1 and kind == "nn":
        return _gemv(a, b[:, 0])[:, None]
    total = None
    for start, stop in k_blocks(k):
        part = _chains(a[:, start:stop], b[start:stop])
        total = part if total is None else np.add(total, part, out=total)
    return total


def matmul(xp, a, b, kind="nn"):
    """`xp.matmul(a, b)`, in TensorFlow's order for 2-D float32 numpy operands where known.

    Args:
        xp: the array module.
        a, b: the operands (any ranks; only 2-D float32 pairs change order).
        kind: how TensorFlow calls its sgemm (see `is_exact`).

    Returns:
        array.

    Example:
        >>> matmul(np, np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)).tolist()
        [[3.0, 3.0], [3.0, 3.0]]
    """
    if xp is np and a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype:
        exact = product_kernel(a.dtype)
        if exact is not None:
            return exact(a, b, kind)
    return xp.matmul(a, b)


def _gemv(a, b):
    """oneDNN's one-column product `a @ b` (b 1-D), found by probing: eight lanes,
    lane `l` a chain of fused multiply-adds over k = l, l + 8, ... through the
    whole groups of 16, the lanes added ((0+1)+(4+5)) + ((2+3)+(6+7)); then what is
    left in groups of 8, 4, 2 and 1 values, each group's products added in the
    same pattern and the group's sum added on."""
    k = a.shape[1]
    full = k - k % 16
    total = None
    if full:
        lanes = [_chains(a[:, lane:full:8], b[lane:full:8, None])[:, 0] for lane in range(8)]
        total = _hsum8(lanes)
    products = a[:, full:] * b[full:]
    start = 0
    for width in (8, 4, 2, 1):
        if k - full - start >= width:
            group = [products[:, start + i] for i in range(width)] + [None] * (8 - width)
            part = _hsum8(group)
            total = part if total is None else total + part
            start += width
    return total


def _hsum8(values):
    """((v0+v1)+(v4+v5)) + ((v2+v3)+(v6+v7)), None standing for an absent value."""
    def add(x, y):
        return x if y is None else y if x is None else x + y
    return add(add(add(values[0], values[1]), add(values[4], values[5])),
               add(add(values[2], values[3]), add(values[6], values[7])))


def _lane_dots(a, b):
    """oneDNN's input-gradient kernel for fewer than 16 rows: each element a dot
    product over 16 lanes, lane `l` a chain of fused multiply-adds over
    k = l, l + 16, ... (the last, partial group of 16 included), the lanes
    added by halves (l + l+8, then l + l+4, ...). Found by probing."""
    lanes = [_chains(a[:, lane::16], b[lane::16]) for lane in range(min(16, a.shape[1]))]
    lanes += [np.zeros_like(lanes[0])] * (16 - len(lanes))
    while len(lanes) > 1:
        half = len(lanes) // 2
        lanes = [lanes[i] + lanes[i + half] for i in range(half)]
    return lanes[0]


def _needs_padding(n):
    """Whether `n` output columns leave OpenBLAS a tail of 1-8 columns past its
    16-wide kernels (those run narrower kernels, which add in another order)."""
    return 0 < n % _KERNEL_COLUMNS <= 8


def _chains(a, b):
    """One fused multiply-add chain per output element, through OpenBLAS."""
    (m, k), n = a.shape, b.shape[1]
    if _needs_padding(n):
        wide = np.zeros((k, n + _KERNEL_COLUMNS - n % _KERNEL_COLUMNS), _F32)
        wide[:, :n] = b
        b = wide
    elif not b.flags.c_contiguous:   # chains hold for (C, C), (F, C) and (F, F) operands, not (C, F)
        b, a = np.asfortranarray(b), np.asfortranarray(a)
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        a = np.ascontiguousarray(a)
    if m == 1:
        a = np.concatenate([a, np.zeros_like(a)])
    out = a @ b
    return out[:m, :n] if out.shape != (m, n) else out


def chain_reference(a, b):
    """Sequential fused multiply-add chains along K, exactly (one numpy step per k: slow;
    the checks' reference, and one input row's long product).

    Args:
        a: (m, k) float32 array.
        b: (k, n) float32 array.

    Returns:
        (m, n) float32 array.
    """
    total = np.zeros((a.shape[0], b.shape[1]), _F32)
    for index in range(a.shape[1]):
        total = onednn_math.fused_multiply_add(a[:, index, None], b[index], total)
    return total


@functools.lru_cache(maxsize=None)
def _openblas_runs_chains():
    """Whether this numpy's BLAS computes padded float32 products as single chains."""
    rng = np.random.default_rng(0)
    for m, k, n in ((1, 40, 3), (5, 200, 17), (3, 384, 48), (4, 100, 10), (6, 300, 29),
                    (2, 64, 9), (3, 50, 40), (20, 30, 32)):
        a = rng.standard_normal((m, k)).astype(_F32)
        b = rng.standard_normal((k, n)).astype(_F32)
        for b_layout in (b, np.asfortranarray(b)):   # a transposed operand too
            if not np.array_equal(_chains(a, b_layout), chain_reference(a, b)):
                return False
    return True


__all__ = ["k_blocks", "is_exact", "product_kernel", "product", "matmul", "chain_reference"]
