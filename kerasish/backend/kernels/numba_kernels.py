"""Optional compiled CPU loops (numba), for kernels that numpy runs as many passes.

Installed with `pip install kerasish[fast]`; without numba (or with the
environment variable `KERASISH_NUMBA=0`) every caller keeps its numpy code,
which stays the reference. Each loop below performs the same IEEE operations
as its numpy kernel, element by element and in the same order (no fast-math:
no fused multiply-adds, no reassociation), so it gives the same numbers bit for
bit; `tests/backend/test_numba_kernels.py` checks that against the numpy code.
What it saves is the passes over memory and the per-call overhead: Adam's
eleven array passes become one loop (for an embedding table, with its
repeated rows' rule in the same pass), `index_add`'s rounds of fancy indexing
one loop over the rows, and an LSTM step's nine to ten elementwise calls one to
three loops (numpy's `tanh` stays numpy's: a compiled one gives other bits).

numba is imported and the loops are compiled on first use (cached on disk
where numba can write its cache).
"""
import os
import types

import numpy as np

_LOOPS = None  # None: not loaded yet; False: unavailable or switched off
_COMPILED = []  # the loops once compiled in this process (a reload reuses them)


def loops():
    """The compiled loops (a namespace), or None when numba is not usable.

    Returns:
        an object with the attributes `adam`, `index_add`, `square_rows`,
        `adam_rows` and the LSTM step's `lstm_gates`, `lstm_cell`, `lstm_output`,
        `lstm_step_back` (see `ops/rnn.py`), or None.

    Example:
        >>> fast = loops()
        >>> fast is None or callable(fast.adam)
        True
    """
    global _LOOPS
    if _LOOPS is None:
        _LOOPS = _load() or False
    return _LOOPS or None


def _load():
    if os.environ.get("KERASISH_NUMBA", "1") == "0":
        return None
    if not _COMPILED:
        _COMPILED.append(_compile())
    return _COMPILED[0]


def _compile():
    try:
        import numba
    except Exception:  # noqa: BLE001 - missing, or not importable beside this numpy
        return None
    jit = None
    for cache in (True, False):  # the disk cache needs a writable place; else none
        # error_model="numpy": a division by zero gives inf/nan as numpy does
        candidate = numba.njit(nogil=True, cache=cache, error_model="numpy")
        try:
            candidate(_probe)()
        except Exception:  # noqa: BLE001 - numba cannot compile here: numpy runs
            continue
        jit = candidate
        break
    if jit is None:
        return None

    @jit
    def adam(param, grad, m, v, one_minus_beta_1, one_minus_beta_2, epsilon, alpha):
        # numpy_kernels.adam_update's passes, element by element, same order
        for i in range(param.shape[0]):
            g = grad[i]
            t = g - m[i]
            t = t * one_minus_beta_1
            mi = m[i] + t
            m[i] = mi
            t = g * g
            t = t - v[i]
            t = t * one_minus_beta_2
            vi = v[i] + t
            v[i] = vi
            t = np.sqrt(vi)
            t = t + epsilon
            t = (mi * alpha) / t
            param[i] = param[i] - t

    @jit
    def index_add(target, index, values):
        # numpy.add.at's order: each row adds its values one by one, in their order
        for j in range(index.shape[0]):
            row = index[j]
            for k in range(target.shape[1]):
                target[row, k] = target[row, k] + values[j, k]

    @jit
    def square_rows(sums, slot, index, values):
        # the squared values of the repeated rows summed in order (`IndexedSlices.dense`
        # of the squares: 0 + s1 + s2 + ...)
        for j in range(index.shape[0]):
            s = slot[index[j]]
            if s >= 0:
                for k in range(sums.shape[1]):
                    t = values[j, k] * values[j, k]
                    sums[s, k] = sums[s, k] + t

    @jit
    def adam_rows(param, grad, m, v, slot, sums, one_minus_beta_1, one_minus_beta_2,
                  epsilon, alpha):
        # `adam` row by row; a repeated row's g^2 is its sum of squared rows
        for r in range(param.shape[0]):
            s = slot[r]
            for k in range(param.shape[1]):
                g = grad[r, k]
                t = g - m[r, k]
                t = t * one_minus_beta_1
                mi = m[r, k] + t
                m[r, k] = mi
                if s >= 0:
                    t = sums[s, k]
                else:
                    t = g * g
                t = t - v[r, k]
                t = t * one_minus_beta_2
                vi = v[r, k] + t
                v[r, k] = vi
                t = np.sqrt(vi)
                t = t + epsilon
                t = (mi * alpha) / t
                param[r, k] = param[r, k] - t

    @jit
    def lstm_gates(z, rec_term, scale):
        # `z += rec_term; z *= scale` (the pre-activations, halved on i, f, o)
        for b in range(z.shape[0]):
            for j in range(z.shape[1]):
                t = z[b, j] + rec_term[b, j]
                z[b, j] = t * scale[j]

    @jit
    def lstm_cell(z, scale, shift, c_prev, c_new):
        # `z *= scale; z += shift` (the sigmoids from their tanh), then
        # `c_new = f * c_prev; c_new += i * g`
        u = c_new.shape[1]
        for b in range(z.shape[0]):
            for j in range(z.shape[1]):
                t = z[b, j] * scale[j]
                z[b, j] = t + shift[j]
            for j in range(u):
                fc = z[b, u + j] * c_prev[b, j]
                ig = z[b, j] * z[b, 2 * u + j]
                c_new[b, j] = fc + ig

    @jit
    def lstm_output(h, z, tanh_c):
        # `h = o * tanh(c)`
        u = h.shape[1]
        for b in range(h.shape[0]):
            for j in range(u):
                h[b, j] = z[b, 3 * u + j] * tanh_c[b, j]

    @jit
    def lstm_step_back(dz, dc_out, dh, dc, acts, tanh_c, c_prev, one):
        # rnn._LSTM.backward's step without a sequence mask: dc_total = dc + (dh * o) *
        # (1 - tanh(c)^2); dz per gate = ((first * second) * third) * fourth (see
        # rnn._LSTMFactors: the g gate's fourth factor is 1); dc_out = dc_total * f
        u = dh.shape[1]
        for b in range(dh.shape[0]):
            for j in range(u):
                i = acts[b, j]
                f = acts[b, u + j]
                g = acts[b, 2 * u + j]
                o = acts[b, 3 * u + j]
                tc = tanh_c[b, j]
                d_h = dh[b, j]
                t = tc * tc
                dc_factor = one - t
                total = d_h * o
                total = total * dc_factor
                total = dc[b, j] + total
                t = total * g
                t = t * i
                dz[b, j] = t * (one - i)
                t = total * c_prev[b, j]
                t = t * f
                dz[b, u + j] = t * (one - f)
                t = g * g
                t = one - t
                dz[b, 2 * u + j] = (total * i) * t
                t = d_h * tc
                t = t * o
                dz[b, 3 * u + j] = t * (one - o)
                dc_out[b, j] = total * f

    return types.SimpleNamespace(
        adam=adam, index_add=index_add, square_rows=square_rows, adam_rows=adam_rows,
        lstm_gates=lstm_gates, lstm_cell=lstm_cell, lstm_output=lstm_output,
        lstm_step_back=lstm_step_back)


def _probe():
    return 0


def _float(*arrays):
    """All arrays of one dtype, float32 or float64."""
    dtype = arrays[0].dtype
    return dtype in (np.float32, np.float64) and all(a.dtype == dtype for a in arrays)


def adam_update(param, grad, m, v, one_minus_beta_1, one_minus_beta_2, epsilon, alpha):
    """`numpy_kernels.adam_update` without AMSGrad as one loop, when it applies.

    Args:
        param, grad, m, v: arrays of one float dtype (float32/float64), one shape.
        one_minus_beta_1, one_minus_beta_2, epsilon, alpha: the kernel's scalars
            (numbers or one-element arrays), already rounded to that dtype.

    Returns:
        True when the update was done, False when numba is unavailable or the
        arrays do not fit (other dtypes, not C-contiguous): the caller runs numpy.

    Example:
        >>> p, g, m, v = (np.full(3, x, np.float32) for x in (1.0, 0.5, 0.0, 0.0))
        >>> done = adam_update(p, g, m, v, 0.1, 0.001, 1e-7, 0.001)
        >>> done is False or bool(p[0] < 1.0)
        True
    """
    fast = loops()
    arrays = (param, grad, m, v)
    if fast is None or not _float(*arrays) or not all(
            a.flags.c_contiguous and a.shape == param.shape for a in arrays):
        return False
    dt = param.dtype.type
    scalars = (dt(np.asarray(s).item()) for s in (one_minus_beta_1, one_minus_beta_2,
                                                  epsilon, alpha))
    fast.adam(*(a.reshape(-1) for a in arrays), *scalars)
    return True


def index_add(target, index, values):
    """`target[index] += values` with repeats accumulated in order, as one loop.

    Args:
        target: C-contiguous float32/float64 array, at least 2-D.
        index: 1-D integer array of rows, all in `[0, len(target))`.
        values: `(len(index),) + target.shape[1:]`, of target's dtype.

    Returns:
        True when done, False when it does not apply (the caller runs numpy).

    Example:
        >>> t = np.zeros((3, 2), np.float32)
        >>> if not index_add(t, np.array([2, 0, 2]), np.ones((3, 2), np.float32)):
        ...     np.add.at(t, np.array([2, 0, 2]), np.ones((3, 2), np.float32))
        >>> t[:, 0].tolist()
        [1.0, 0.0, 2.0]
    """
    fast = loops()
    if fast is None or target.ndim < 2 or not target.flags.c_contiguous or not _float(
            target, values) or values.shape != index.shape + target.shape[1:]:
        return False
    if index.size and (index.min() < 0 or index.max() >= target.shape[0]):
        return False
    rows = target.shape[0]
    fast.index_add(target.reshape(rows, -1), index.astype(np.intp, copy=False),
                   values.reshape(index.shape[0], -1))
    return True


def adam_rows_update(param, grad, m, v, scalars, index, values, run_split):
    """Adam for a lookup's gradient (`optimizers/row_updates.dense_then_repeated_rows`
    with `row_updates.adam`) in one pass over the rows: a row looked up once (or not
    at all) takes the dense rule, a repeated row the sum of its squared rows in v.

    Args:
        param, grad, m, v: 2-D C-contiguous arrays of one float dtype and shape
            (`grad`: the rows summed, dense).
        scalars: (1 - beta_1, 1 - beta_2, epsilon, alpha), in that dtype.
        index: 1-D integer array, the row of each of `values` (in range).
        values: (len(index), columns), the rows before their sum.
        run_split: `cpu_threads.run_split`, to spread the rows over the threads.

    Returns:
        True when done, False when it does not apply (the caller runs numpy).

    Example:
        >>> p, g, m, v = (np.zeros((4, 2), np.float32) for _ in range(4))
        >>> adam_rows_update(p, g, m, v, (0.1, 0.001, 1e-7, 0.001), np.array([1, 1]),
        ...                  np.ones((2, 2), np.float32), lambda f, pieces: [
        ...                      f(*piece) for piece in pieces]) in (True, False)
        True
    """
    fast = loops()
    arrays = (param, grad, m, v)
    if fast is None or param.ndim != 2 or not _float(*arrays, values) or not all(
            a.flags.c_contiguous and a.shape == param.shape for a in arrays) or \
            values.shape != index.shape + param.shape[1:]:
        return False
    rows, columns = param.shape
    if index.size and (index.min() < 0 or index.max() >= rows):
        return False
    index = index.astype(np.intp, copy=False)
    repeated = np.bincount(index, minlength=rows) > 1
    slot = np.full(rows, -1, dtype=np.intp)
    slot[repeated] = np.arange(np.count_nonzero(repeated))
    sums = np.zeros((np.count_nonzero(repeated), columns), dtype=param.dtype)
    fast.square_rows(sums, slot, index, values)
    dt = param.dtype.type
    scalars = [dt(np.asarray(c).item()) for c in scalars]
    step = max(1, -(-(1 << 17) // max(columns, 1)))  # pieces of about 2^17 elements

    def update(r0, r1):
        fast.adam_rows(param[r0:r1], grad[r0:r1], m[r0:r1], v[r0:r1], slot[r0:r1], sums,
                       *scalars)
    run_split(update, [(r0, min(rows, r0 + step)) for r0 in range(0, rows, step)])
    return True
