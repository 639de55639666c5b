"""Sums in the order TensorFlow's CPU kernels (Eigen) add, on numpy arrays.

Float addition is not associative, so a sum's last bits depend on the order
of its additions. numpy adds pairwise with 8 running partial sums; Eigen, which
TensorFlow's `reduce_sum`/`reduce_mean` and the gradients of broadcasting ops
run on, adds in packets of SIMD lanes (8 float32 or 4 float64 with AVX). To
give Keras's numbers to the last bit, `ordered_sum` reproduces Eigen's order:

* TensorFlow first drops axes of length 1 and merges neighbouring axes that
  are both reduced or both kept, then reduces one of three shapes:
* all axes (a full sum) or the last axis of `(rows, n)`: per row, four packet
  accumulators take blocks of `4 * lanes` values, then single packets, then
  the accumulators are added in order; the leftover values (fewer than a
  packet) are summed one by one, and added to the packet sum after its lanes
  are folded in halves. Rows longer than `lanes * 1024` are split at a packet
  boundary near the middle and the halves summed recursively.
* the first axis of `(n, cols)`, or the middle one of `(outer, n, cols)`:
  for each group of `lanes` columns that fits in a row, rows are summed into
  four interleaved accumulators when `n >= 16` (then added in order, then the
  leftover rows); other columns are summed row after row.
* the first and last axes of `(a, cols, b)`: one value at a time, the last
  axis in the outer loop.

Other patterns (four or more alternating groups) fall back to numpy's sum.
Measured against TensorFlow 2.21 on x86-64 (AVX2): bit-identical on every
size tried, up to a million values (`tests/backend/test_eigen_sum.py` holds the
recorded values).
"""
import functools
import os

import numpy as np

_LEAF = 1024          # Eigen's kLeafSize: values per lane before splitting in two
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def ordered_sum(x, axes, keepdims=False):
    """Sum of `x` over `axes` in TensorFlow's (Eigen's) CPU order.

    Args:
        x: numpy array (float32 and float64 are reordered; other dtypes use
            numpy's sum).
        axes: tuple of non-negative axis indices (sorted, unique).
        keepdims: keep the reduced axes with length 1.

    Returns:
        numpy array of `x`'s dtype.

    Example:
        >>> ordered_sum(np.ones((4, 20), np.float32), (1,))   # [20., 20., 20., 20.]
    """
    lanes = _LANES.get(x.dtype)
    if lanes is not None and len(axes) == 1 and axes[0] == x.ndim - 1 and x.ndim <= 2 \
            and x.shape[-1] > 1 and x.size:
        # the common last-axis sums of a vector or a matrix (pattern "r" or "kr")
        out_shape = x.shape[:-1] + (1,) if keepdims else x.shape[:-1]
        return _row_sums(np.ascontiguousarray(x).reshape(-1, x.shape[-1]),
                         lanes).reshape(out_shape)
    return _general_ordered_sum(x, axes, keepdims, lanes)


def _general_ordered_sum(x, axes, keepdims, lanes):
    """`ordered_sum` by the merged reduction pattern (`lanes`: None for other dtypes)."""
    out_shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims \
        else tuple(n for i, n in enumerate(x.shape) if i not in axes)
    if lanes is None or x.size == 0:
        return np.sum(x, axis=axes, keepdims=keepdims)
    groups = _merged_groups(x.shape, axes)
    pattern = "".join("r" if reduced else "k" for reduced, _ in groups)
    sizes = [size for _, size in groups]
    x = np.ascontiguousarray(x)
    if "r" not in pattern:
        result = x.copy()
    elif pattern == "r":
        result = _row_sums(x.reshape(1, -1), lanes)[0]
    elif pattern == "kr":
        result = _row_sums(x.reshape(sizes), lanes)
    elif pattern == "rk":
        result = _column_sums(x.reshape(1, *sizes), lanes)[0]
    elif pattern == "krk":
        result = _column_sums(x.reshape(sizes), lanes)
    elif pattern == "rkr":                      # one value at a time, last axis outermost
        result = _in_order_last(x.reshape(sizes).transpose(1, 2, 0).reshape(sizes[1], -1))
    else:
        return np.sum(x, axis=axes, keepdims=keepdims)
    return result.reshape(out_shape)


def ordered_mean(x, axes, keepdims=False):
    """Mean as TensorFlow computes it: the ordered sum divided by the count.

    Args:
        x: numpy array.
        axes: tuple of non-negative axis indices.
        keepdims: keep the reduced axes with length 1.

    Returns:
        numpy array.
    """
    count = 1
    for a in axes:
        count *= x.shape[a]
    total = ordered_sum(x, axes, keepdims)
    return total / total.dtype.type(count) if count else np.mean(x, axis=axes, keepdims=keepdims)


def _merged_groups(shape, axes):
    """[(reduced, size)] after dropping length-1 axes and merging alike neighbours."""
    groups = []
    for i, n in enumerate(shape):
        if n == 1:
            continue
        reduced = i in axes
        if groups and groups[-1][0] == reduced:
            groups[-1] = (reduced, groups[-1][1] * n)
        else:
            groups.append((reduced, n))
    return groups


def _sum_rows_in_order(x):
    """Sums axis -2 of `(..., n, k)` one row after another.

    (numpy's own reduction would pair values up when k == 1, and is slow on
    a few short rows; a chain of adds is faster there.)
    """
    n = x.shape[-2]
    if n <= (8 if x.shape[-1] == 1 else 3):
        total = x[..., 0, :]
        for i in range(1, n):
            total = total + x[..., i, :]
        return total
    if x.shape[-1] == 1:
        return np.cumsum(x, axis=-2)[..., -1, :]
    return np.add.reduce(x, axis=-2)


def _in_order_last(x):
    """Sums the last axis one value after another, from the first."""
    return _sum_rows_in_order(x[..., None])[..., 0]


def _row_sums(x, lanes, first=0):
    """Eigen's inner-most reduction of each row of a 2-D `(rows, n)` array.

    `first` is the rows' flat offset modulo `lanes` (Eigen splits long rows at
    packet boundaries of the whole tensor); rows with different offsets are
    summed one at a time.
    """
    rows, n = x.shape
    if n < lanes:                               # no full packet: one by one
        return _in_order_last(x)
    if n < 16 * lanes:
        return _short_leaf_sums(x, lanes)
    if n <= lanes * _LEAF:
        return _leaf_sums(x, lanes)
    if rows > 1 and n % lanes:
        return np.array([_row_sums(x[r:r + 1], lanes, (first + r * n) % lanes)[0]
                         for r in range(rows)], x.dtype)
    left = lanes * -(-(first + -(-n // 2)) // lanes) - first
    return (_row_sums(x[:, :left], lanes, first)
            + _row_sums(x[:, left:], lanes, (first + left) % lanes))


def _leaf_sums(x, lanes):
    rows, n = x.shape
    packed = n // lanes * lanes
    unrolled = n // (4 * lanes) * (4 * lanes)
    acc = None
    if unrolled:   # four accumulators over blocks of 4 packets, then added in order
        blocks = x[:, :unrolled].reshape(rows, unrolled // (4 * lanes), 4, lanes)
        four = _sum_rows_in_order(blocks.reshape(rows, -1, 4 * lanes)).reshape(rows, 4, lanes)
        acc = ((four[:, 0] + four[:, 1]) + four[:, 2]) + four[:, 3]
    if packed > unrolled:
        packets = x[:, unrolled:packed].reshape(rows, -1, lanes)
        if acc is not None:
            packets = np.concatenate([acc[:, None], packets], axis=1)
        acc = _sum_rows_in_order(packets)
    while acc.shape[1] > 1:                     # fold the lanes: i + lanes/2 first
        half = acc.shape[1] // 2
        acc = acc[:, :half] + acc[:, half:]
    acc = acc[:, 0]
    if n > packed:
        acc = _in_order_last(x[:, packed:]) + acc
    return acc


def _short_leaf_sums(x, lanes):
    """`_leaf_sums` of rows shorter than 16 packets, the same additions written as
    adds of whole columns (no reshapes or concatenations: a few numpy calls).

    At most three blocks of four packets, then at most three single packets,
    each added in turn as `_sum_rows_in_order` adds them; then the lanes folded
    and the leftover values added one by one, as in `_leaf_sums`. The columns
    are first made contiguous (one transposed copy), which numpy adds faster
    than strided column views.
    """
    n = x.shape[1]
    cols = np.ascontiguousarray(x.T)            # cols[j]: column j of x
    packed = n // lanes * lanes
    block = 4 * lanes
    unrolled = n // block * block
    if unrolled:
        four = cols[:block]
        for start in range(block, unrolled, block):
            four = four + cols[start:start + block]
        acc = ((four[:lanes] + four[lanes:2 * lanes]) + four[2 * lanes:3 * lanes]) \
            + four[3 * lanes:]
    else:
        acc = cols[:lanes]
        unrolled = lanes
    for start in range(unrolled, packed, lanes):
        acc = acc + cols[start:start + lanes]
    half = lanes // 2
    while half:                                 # fold the lanes: i + lanes/2 first
        acc = acc[:half] + acc[half:2 * half]
        half //= 2
    acc = acc[0]
    if n > packed:
        tail = cols[packed]
        for i in range(packed + 1, n):
            tail = tail + cols[i]
        acc = tail + acc
    return acc


def _column_sums(x, lanes):
    """Eigen's reduction of the middle axis of `(outer, n, cols)` (inner axis kept)."""
    outer, n, cols = x.shape
    if n < 16 or cols < lanes:                  # no unrolled packets: row after row
        return _sum_rows_in_order(x)
    if outer == 1 and cols % lanes:             # packets for the leading columns only
        packed = cols // lanes * lanes
        return np.concatenate([_unrolled_columns(x[:, :, :packed]),
                               _sum_rows_in_order(x[:, :, packed:])], axis=1)
    acc = _unrolled_columns(x)
    if cols % lanes == 0:
        return acc
    return np.where(_packet_columns(outer, cols, lanes), acc, _sum_rows_in_order(x))


def _unrolled_columns(x):
    """Rows summed into four interleaved accumulators, added in order, then the rest."""
    outer, n, cols = x.shape
    unrolled = n // 4 * 4
    four = _sum_rows_in_order(x[:, :unrolled].reshape(outer, unrolled // 4, 4 * cols))
    four = four.reshape(outer, 4, cols)
    acc = ((four[:, 0] + four[:, 1]) + four[:, 2]) + four[:, 3]
    if n > unrolled:
        acc = _sum_rows_in_order(np.concatenate([acc[:, None], x[:, unrolled:]], axis=1))
    return acc


@functools.lru_cache(maxsize=64)
def _packet_columns(outer, cols, lanes):
    """Which outputs Eigen computes in a packet: packets start at multiples of
    `lanes` of the flat output index, and are used when they fit in one row
    and in the output; the others are summed one value at a time."""
    total = outer * cols
    start = np.arange(total) // lanes * lanes
    fits = (start % cols + lanes <= cols) & (start + lanes <= total)
    return fits.reshape(outer, cols)


def bias_gradient_sum(rows, accumulate=None, threads=None):
    """Column sums of `(n, cols)` in the order of TensorFlow's CPU `BiasAddGrad`
    (`ReduceOuterDimensions`), the gradient of `bias_add` (Keras's Dense and Conv).

    Rows are added one after another into a buffer of the accumulation dtype
    (float32 for float16), except that a large enough gradient with at most
    `32 * threads` columns is cut into one row block per thread of TensorFlow's
    pool (this machine's CPUs), whose sums are then added in order. Where
    TensorFlow's cost model runs it on one thread, that is a plain row after row
    sum. numpy's own column sum pairs values up when `cols == 1`.

    Args:
        rows: numpy array `(n, cols)`.
        accumulate: dtype to add in (default: `rows`' dtype).
        threads: TensorFlow's pool size (default: the CPUs this process may use).

    Returns:
        numpy array `(cols,)` of `rows`' dtype.
    """
    n, cols = rows.shape
    acc = rows.astype(accumulate or rows.dtype, copy=False)
    starts = _bias_grad_block_starts(n, cols, rows.dtype.itemsize, threads or _pool_threads())
    partials = [_sum_rows_in_order(acc[a:b]) for a, b in zip(starts[:-1], starts[1:])]
    total = partials[0] if partials else np.zeros(cols, acc.dtype)
    for part in partials[1:]:
        total = total + part
    if total.dtype == rows.dtype:
        return total
    with np.errstate(over="ignore"):   # float16 overflow gives inf, as in TensorFlow
        return total.astype(rows.dtype)


@functools.lru_cache(maxsize=1)
def _pool_threads():
    """The size of TensorFlow's intra-op thread pool: the CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@functools.lru_cache(maxsize=256)
def _bias_grad_block_starts(n, cols, itemsize, threads):
    """Row boundaries of the partial sums TensorFlow's `ReduceOuterDimensions` adds."""
    if n == 0:
        return 0, 0
    if cols > threads * 32 or threads == 1:   # columns split between threads: rows in order
        return 0, n
    min_block_size = -(-2000 // cols)
    blocks = min(min(n, -(-(n * cols) // min_block_size)), threads)
    per_block = -(-n // blocks)
    block_cost = per_block * cols * (itemsize * 11 / 64 + 1)   # bytes loaded at L2 cost + an add
    if blocks <= 1 or _cost_model_threads(blocks * block_cost, threads) == 1:
        return 0, n
    group = _parallel_for_block_size(blocks, block_cost, threads)
    return tuple(min(n, b * per_block) for b in range(0, blocks, group)) + (n,)


def _cost_model_threads(total_cost, threads):
    """Eigen's TensorCostModel::numThreads (100000 start-up and per-thread cycles)."""
    wanted = int((total_cost - 100000) / 100000 + 0.9)
    return min(threads, max(1, wanted))


def _parallel_for_block_size(n, task_cost, threads):
    """Eigen's ThreadPoolDevice::CalculateParallelForBlock (tasks per block)."""
    block_size = min(n, max(-(-n // (4 * threads)), int(40000 / task_cost)))
    max_block_size = min(n, 2 * block_size)
    count = -(-n // block_size)
    best = count / (-(-count // threads) * threads)
    previous = count
    while best < 1.0 and previous > 1:
        coarser = -(-n // (previous - 1))
        if coarser > max_block_size:
            break
        coarser_count = -(-n // coarser)
        efficiency = coarser_count / (-(-coarser_count // threads) * threads)
        if efficiency + 0.01 >= best:
            block_size = coarser
            best = max(best, efficiency)
        previous = coarser_count
    return block_size
