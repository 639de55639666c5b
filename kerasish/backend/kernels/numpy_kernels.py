"""Vectorised numpy kernels (the CPU implementations and the reference).

Every function is written against `xp` (taken from its array arguments), so
it also runs on cupy arrays where no cupy-specific kernel exists.
"""
import functools
import itertools

import numpy as np

from kerasish.backend.devices import xp_of
from kerasish.backend.kernels import cpu_threads
from kerasish.backend.kernels import eigen_math, eigen_sum, numba_kernels, onednn_gemm

__all__ = [
    "adadelta_update",
    "adagrad_update",
    "adam_update",
    "adamax_update",
    "bias_gradient_sum",
    "broadcast_to",
    "ema_update",
    "index_add",
    "lion_update",
    "nadam_update",
    "ordered_mean",
    "ordered_sum",
    "rmsprop_update",
    "sgd_update",
    "sigmoid",
    "subtract_one_hot",
    "take_labels",
    "weight_decay_update",
]


def _zero_d_safe(kernel):
    """Runs an in-place update kernel on 1-element views of 0-d arrays.

    numpy ufuncs return scalars (not arrays) for 0-d operands, which cannot be
    scratch buffers (`out=`); a (1,)-shaped view writes through to the 0-d
    variable, so optimizers work on scalar variables too.
    """
    @functools.wraps(kernel)
    def run(*args, **kwargs):
        if getattr(args[0], "ndim", None) == 0:
            args = tuple(a.reshape(1) if getattr(a, "ndim", None) == 0 else a for a in args)
            kwargs = {k: v.reshape(1) if getattr(v, "ndim", None) == 0 else v
                      for k, v in kwargs.items()}
        return kernel(*args, **kwargs)
    return run


def sigmoid(x):
    """Numerically stable logistic function for any float array (float32 numpy
    arrays: TensorFlow's values, see `eigen_math`)."""
    xp = xp_of(x)
    exact = eigen_math.sigmoid(xp, x)
    if exact is not None:
        return exact
    out = xp.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + xp.exp(-x[pos]))
    ex = xp.exp(x[~pos])
    out[~pos] = ex / (1.0 + ex)
    return out


_HEAVY = 8  # an index repeated more often than this is summed with one reduce


def broadcast_to(x, shape):
    """`xp.broadcast_to(x, shape)`: a read-only view of `x` with zero strides on the
    broadcast axes (numpy's own function costs several microseconds in Python).

    Args:
        x: array.
        shape: the target shape (a tuple of ints).

    Returns:
        a read-only view of `x` shaped `shape`.
    """
    xp = xp_of(x)
    shape = tuple(shape)
    lead = len(shape) - x.ndim
    if (type(x) is not np.ndarray or lead < 0 or not x.size or not x.flags.c_contiguous
            or 0 in shape):
        return xp.broadcast_to(x, shape)
    strides = [0] * lead
    for target, size, stride in zip(shape[lead:], x.shape, x.strides):
        if size == target:
            strides.append(stride)
        elif size == 1:
            strides.append(0)
        else:   # numpy's error
            return np.broadcast_to(x, shape)
    out = np.ndarray(shape, x.dtype, x, 0, tuple(strides))
    out.flags.writeable = False
    return out


def take_labels(x, labels):
    """The values the integer `labels` point at along the last axis of `x`:
    `take_along_axis(x, labels[..., None], axis=-1)[..., 0]`.

    Args:
        x: array `(..., classes)`.
        labels: int array shaped like `x` without its last axis, in `[0, classes)`.

    Returns:
        array shaped like `labels`, of `x`'s dtype.
    """
    xp = xp_of(x)
    if xp is np and x.ndim == 2 and x.flags.c_contiguous:   # (batch, classes): one flat index
        return x.reshape(-1)[_row_offsets(*x.shape) + labels]
    return xp.take_along_axis(x, labels[..., None], axis=-1)[..., 0]


def subtract_one_hot(x, labels):
    """`x -= one_hot(labels, classes)` in place: 1 subtracted where the labels
    point along the last axis, 0 elsewhere (the same values as the subtraction).

    Args:
        x: float array `(..., classes)`, updated in place.
        labels: int array shaped like `x` without its last axis, in `[0, classes)`.
    """
    xp = xp_of(x)
    if xp is np and x.ndim == 2 and x.flags.c_contiguous:   # each row's one entry, flat
        x.reshape(-1)[_row_offsets(*x.shape) + labels] -= x.dtype.type(1)
        return
    x -= (labels[..., None] == xp.arange(x.shape[-1])).astype(x.dtype)


@functools.lru_cache(maxsize=16)
def _row_offsets(rows, cols):
    """`arange(rows) * cols` (read-only, shared): where each row of a C-contiguous
    `(rows, cols)` array starts in its flat view."""
    offsets = np.arange(rows) * cols
    offsets.flags.writeable = False
    return offsets


def ordered_sum(x, axes, keepdims=False):
    """Sum over `axes` in TensorFlow's CPU order of additions (see `eigen_sum`).

    Args:
        x: numpy array.
        axes: tuple of non-negative axes.
        keepdims: keep the reduced axes with length 1.

    Returns:
        numpy array.
    """
    return eigen_sum.ordered_sum(x, axes, keepdims)


def bias_gradient_sum(rows):
    """Column sums of a `(n, cols)` gradient as TensorFlow's CPU `BiasAddGrad`
    adds them (see `eigen_sum.bias_gradient_sum`; float16 adds in float32).

    Args:
        rows: numpy array `(n, cols)`.

    Returns:
        numpy array `(cols,)` of `rows`' dtype.
    """
    accumulate = np.float32 if rows.dtype == np.float16 else None
    return eigen_sum.bias_gradient_sum(rows, accumulate)


def ordered_mean(x, axes, keepdims=False):
    """Mean over `axes` as TensorFlow computes it on the CPU: the `ordered_sum`
    (same arguments) divided by the count."""
    return eigen_sum.ordered_mean(x, axes, keepdims)


def index_add(target, index, values):
    """`target[index] += values` with repeated indices accumulated (in place).

    The same numbers as `numpy.add.at` (each row of `target` accumulates its
    values one by one, in their order), several times faster on rows: the
    occurrences are grouped by index (stable sort); the k-th occurrences of
    the lightly repeated indices are added in round k with one fancy-index
    `+=` (indices unique within a round), and each heavily repeated index
    (a frequent token) is summed with one sequential `add.reduce` over its
    target row and its values.

    Args:
        target: the array to add into, indexed along its first axis.
        index: 1-D integer array of rows (non-negative, in range), or what
            `numpy.add.at` takes (other forms run through it).
        values: (len(index),) + target.shape[1:].
    """
    xp = xp_of(target)
    n = index.shape[0] if getattr(index, "ndim", None) == 1 else 0
    if xp is not np or n < 2 or target.ndim < 2 or getattr(values, "shape", None) != \
            (n,) + target.shape[1:] or index.dtype.kind not in "iu" or index.min() < 0:
        xp.add.at(target, index, values)  # negative indices could alias a row within a round
        return
    if numba_kernels.index_add(target, index, values):  # one compiled loop, same order
        return
    order = np.argsort(index, kind="stable")
    ranked = index[order]
    first = np.empty(n, bool)
    first[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    if starts.size == n:  # no repeated index
        target[index] += values
        return
    counts = np.diff(np.append(starts, n))
    rank = np.arange(n) - np.repeat(starts, counts)
    light = np.repeat(counts <= _HEAVY, counts)
    for g in np.flatnonzero(counts > _HEAVY):
        rows = values[order[starts[g]:starts[g] + counts[g]]]
        row = ranked[starts[g]]
        target[row] = np.add.reduce(np.concatenate([target[row][None], rows]), axis=0)
    light_rank = rank[light]
    light_order = order[light]
    for k in range(int(light_rank.max()) + 1 if light_rank.size else 0):
        sel = light_order[light_rank == k]
        target[index[sel]] += values[sel]


# Optimizer updates ---------------------------------------------------------
# Each kernel updates `param` and its slot arrays in place, in the exact
# float operation order of Keras 3's `update_step`, so float32 results match.
# Scalars may be Python numbers or 0-d arrays; they are cast to param's dtype.
# Coefficients that Keras computes in Python double (`1 - beta_1`) are
# computed here in double before the cast, for the same rounding.


@_zero_d_safe
def weight_decay_update(param, weight_decay, lr):
    """Decoupled weight decay, in place: `param -= param * weight_decay * lr`.

    Args:
        param: the variable's array.
        weight_decay: the decay factor.
        lr: the current learning rate.
    """
    dt = param.dtype.type
    tmp = param * dt(weight_decay)
    tmp *= dt(lr)
    param -= tmp


@_zero_d_safe
def ema_update(average, param, momentum):
    """Moving average of weights, in place: `avg = m * avg + (1 - m) * param`.

    Args:
        average: the average's array (updated).
        param: the variable's array.
        momentum: the EMA momentum for this step (0 on the first step).
    """
    dt = average.dtype.type
    m = dt(momentum)
    average *= m
    tmp = param * (dt(1) - m)
    average += tmp


@_zero_d_safe
def sgd_update(param, grad, momentum_buf, lr, momentum=0.0, nesterov=False):
    """SGD step, in place (Keras `SGD`).

    Without momentum (`momentum_buf` None): `param -= grad * lr`. With it:
    `m = m * momentum - grad * lr`, then `param += m`, or with Nesterov
    `param += m * momentum - grad * lr` (using the new `m`).

    Args:
        param, grad: the variable's array and its gradient.
        momentum_buf: the momentum slot, or None for plain SGD.
        lr: learning rate.
        momentum: momentum factor.
        nesterov: use Nesterov momentum.
    """
    xp = xp_of(param)
    dt = param.dtype.type
    step = xp.multiply(grad, dt(lr))
    if momentum_buf is None:
        param -= step
        return
    mu = dt(momentum)
    momentum_buf *= mu
    momentum_buf -= step
    if nesterov:
        xp.subtract(momentum_buf * mu, step, out=step)
        param += step
    else:
        param += momentum_buf


@_zero_d_safe
def adam_update(param, grad, m, v, alpha, beta_1, beta_2, epsilon, v_hat=None):
    """Adam step, in place (Keras `Adam`; epsilon outside the bias correction).

    `m += (g - m)(1 - beta_1)`; `v += (g^2 - v)(1 - beta_2)`;
    AMSGrad: `v_hat = max(v_hat, v)` replaces `v`;
    `param -= m * alpha / (sqrt(v) + epsilon)`.

    Args:
        param, grad: the variable's array and its gradient.
        m, v: first and second moment slots.
        alpha: `lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)`.
        beta_1, beta_2, epsilon: hyperparameters (Python floats).
        v_hat: the AMSGrad slot, or None.
    """
    xp = xp_of(param)
    dt = param.dtype.type
    if v_hat is None and xp is np and numba_kernels.adam_update(
            param, grad, m, v, dt(1.0 - beta_1), dt(1.0 - beta_2), dt(epsilon), dt(alpha)):
        return  # the same operations in one compiled loop
    tmp = xp.subtract(grad, m)
    tmp *= dt(1.0 - beta_1)
    m += tmp
    xp.square(grad, out=tmp)
    tmp -= v
    tmp *= dt(1.0 - beta_2)
    v += tmp
    if v_hat is not None:
        xp.maximum(v_hat, v, out=v_hat)
        v = v_hat
    xp.sqrt(v, out=tmp)
    tmp += dt(epsilon)
    xp.divide(m * dt(alpha), tmp, out=tmp)
    param -= tmp


@_zero_d_safe
def rmsprop_update(param, grad, velocity, lr, rho, epsilon,
                   momentum_buf=None, momentum=0.0, average_grad=None):
    """RMSprop step, in place (Keras `RMSprop`; epsilon inside the sqrt).

    `v = rho v + (1 - rho) g^2`; centered: `a = rho a + (1 - rho) g` and
    `denom = v - a^2 + eps`, else `denom = v + eps`;
    `inc = lr g / sqrt(denom)`; with momentum `mom = momentum mom + inc` and
    `param -= mom`, else `param -= inc`.

    Args:
        param, grad: the variable's array and its gradient.
        velocity: the mean-square slot.
        lr: learning rate.
        rho, epsilon: hyperparameters (Python floats).
        momentum_buf: the momentum slot, or None.
        momentum: momentum factor.
        average_grad: the centered slot, or None.
    """
    xp = xp_of(param)
    dt = param.dtype.type
    velocity *= dt(rho)
    tmp = xp.square(grad)
    tmp *= dt(1.0 - rho)
    velocity += tmp
    if average_grad is not None:
        average_grad *= dt(rho)
        xp.multiply(grad, dt(1.0 - rho), out=tmp)
        average_grad += tmp
        xp.square(average_grad, out=tmp)
        xp.subtract(velocity, tmp, out=tmp)
        tmp += dt(epsilon)
    else:
        xp.add(velocity, dt(epsilon), out=tmp)
    xp.sqrt(tmp, out=tmp)
    xp.divide(grad * dt(lr), tmp, out=tmp)
    if momentum_buf is None:
        param -= tmp
        return
    momentum_buf *= dt(momentum)
    momentum_buf += tmp
    param -= momentum_buf


@_zero_d_safe
def adagrad_update(param, grad, accumulator, lr, epsilon):
    """Adagrad step, in place: `acc += g^2`; `param -= lr g / sqrt(acc + eps)`.

    Args:
        param, grad: the variable's array and its gradient.
        accumulator: the sum-of-squares slot.
        lr: learning rate.
        epsilon: added inside the square root.
    """
    xp = xp_of(param)
    dt = param.dtype.type
    tmp = xp.square(grad)
    accumulator += tmp
    xp.add(accumulator, dt(epsilon), out=tmp)
    xp.sqrt(tmp, out=tmp)
    xp.divide(grad * dt(lr), tmp, out=tmp)
    param -= tmp


@_zero_d_safe
def adadelta_update(param, grad, accumulated_grad, accumulated_delta, lr, rho, epsilon):
    """Adadelta step, in place (Keras `Adadelta`).

    `ag = rho ag + (1 - rho) g^2`;
    `delta = -sqrt(ad + eps) g / sqrt(ag + eps)`;
    `ad = rho ad + (1 - rho) delta^2`; `param += lr delta`.

    Args:
        param, grad: the variable's array and its gradient.
        accumulated_grad, accumulated_delta: the two running averages.
        lr: learning rate.
        rho, epsilon: hyperparameters (Python floats).
    """
    xp = xp_of(param)
    dt = param.dtype.type
    eps = dt(epsilon)
    accumulated_grad *= dt(rho)
    tmp = xp.square(grad)
    tmp *= dt(1.0 - rho)
    accumulated_grad += tmp
    delta = xp.add(accumulated_delta, eps)
    xp.sqrt(delta, out=delta)
    delta *= grad
    xp.add(accumulated_grad, eps, out=tmp)
    xp.sqrt(tmp, out=tmp)
    delta /= tmp
    xp.negative(delta, out=delta)
    accumulated_delta *= dt(rho)
    xp.square(delta, out=tmp)
    tmp *= dt(1.0 - rho)
    accumulated_delta += tmp
    delta *= dt(lr)
    param += delta


@_zero_d_safe
def adamax_update(param, grad, m, u, lr, beta_1, beta_2, epsilon, beta_1_power):
    """Adamax step, in place (Keras `Adamax`).

    `m += (g - m)(1 - beta_1)`; `u = max(beta_2 u, |g|)`;
    `param -= lr m / ((1 - beta_1^t)(u + eps))`.

    Args:
        param, grad: the variable's array and its gradient.
        m, u: first moment and infinity-norm slots.
        lr: learning rate.
        beta_1, beta_2, epsilon: hyperparameters (Python floats).
        beta_1_power: `beta_1^t` in param's dtype.
    """
    xp = xp_of(param)
    dt = param.dtype.type
    tmp = xp.subtract(grad, m)
    tmp *= dt(1.0 - beta_1)
    m += tmp
    u *= dt(beta_2)
    xp.abs(grad, out=tmp)
    xp.maximum(u, tmp, out=u)
    xp.add(u, dt(epsilon), out=tmp)
    tmp *= dt(1) - dt(beta_1_power)
    xp.divide(m * dt(lr), tmp, out=tmp)
    param -= tmp


@_zero_d_safe
def nadam_update(param, grad, m, v, lr, beta_1, beta_2, epsilon,
                 u_t, u_t_1, u_product_t, u_product_t_1, beta_2_power):
    """Nadam step, in place (Keras `Nadam`; `1 - beta` in param's dtype).

    `m += (g - m)(1 - beta_1)`; `v += (g^2 - v)(1 - beta_2)`;
    `m_hat = u_t_1 m / (1 - u_product_t_1) + (1 - u_t) g / (1 - u_product_t)`;
    `v_hat = v / (1 - beta_2^t)`; `param -= m_hat lr / (sqrt(v_hat) + eps)`.

    Args:
        param, grad: the variable's array and its gradient.
        m, v: first and second moment slots.
        lr: learning rate.
        beta_1, beta_2, epsilon: hyperparameters.
        u_t, u_t_1: momentum schedule at steps t and t + 1.
        u_product_t, u_product_t_1: products of the schedule up to t and t + 1.
        beta_2_power: `beta_2^t`.
    """
    xp = xp_of(param)
    dt = param.dtype.type
    one = dt(1)
    tmp = xp.subtract(grad, m)
    tmp *= one - dt(beta_1)
    m += tmp
    xp.square(grad, out=tmp)
    tmp -= v
    tmp *= one - dt(beta_2)
    v += tmp
    m_hat = m * dt(u_t_1)
    m_hat /= one - dt(u_product_t_1)
    xp.multiply(grad, one - dt(u_t), out=tmp)
    tmp /= one - dt(u_product_t)
    m_hat += tmp
    xp.divide(v, one - dt(beta_2_power), out=tmp)
    xp.sqrt(tmp, out=tmp)
    tmp += dt(epsilon)
    m_hat *= dt(lr)
    m_hat /= tmp
    param -= m_hat


@_zero_d_safe
def lion_update(param, grad, m, lr, beta_1, beta_2):
    """Lion step, in place (Keras `Lion`; `1 - beta` in param's dtype).

    `param -= lr sign(beta_1 m + (1 - beta_1) g)`;
    `m = beta_2 m + (1 - beta_2) g`.

    Args:
        param, grad: the variable's array and its gradient.
        m: the momentum slot.
        lr: learning rate.
        beta_1, beta_2: hyperparameters.
    """
    xp = xp_of(param)
    dt = param.dtype.type
    one = dt(1)
    b1, b2 = dt(beta_1), dt(beta_2)
    tmp = m * b1
    tmp2 = grad * (one - b1)
    tmp += tmp2
    xp.sign(tmp, out=tmp)
    tmp *= dt(lr)
    param -= tmp
    m *= b2
    xp.multiply(grad, one - b2, out=tmp2)
    m += tmp2


# Multi-tensor updates --------------------------------------------------------
# One call updates every variable of an optimizer. A variable larger than
# CHUNK_ABOVE elements is updated in slices of CHUNK: the ~12 elementwise passes
# of an Adam step then run on operands that stay in cache instead of streaming
# each whole array from memory 12 times (an Embedding(20000, 128) table and its
# two slots are 30 MiB). Smaller variables are updated whole: their operands
# stay in the (32 MiB) L3 cache anyway and slicing would only add calls
# (measured: a 784x512 kernel is slower sliced, a 20000x128 table 1.4x faster).
# The slices are spread over the CPU threads (`cpu_threads`). Each element
# goes through exactly the same float operations as in the single-variable
# kernel, so the numbers are identical; only the loop order over elements changes.
CHUNK = 1 << 17
CHUNK_ABOVE = 1 << 19


def _chunked(update, arrays, *args, **kwargs):
    """Runs the elementwise in-place kernel `update(*arrays, *args, **kwargs)` slice by slice.

    Args:
        update: a single-variable kernel (e.g. `adam_update`).
        arrays: its leading array operands (param, grad, slots), all of one shape.
        *args: its scalar arguments.
        **kwargs: further arguments; array values (an AMSGrad slot) are sliced too.
    """
    n = arrays[0].size
    if n <= max(CHUNK, CHUNK_ABOVE) or not (
            all(a.flags.c_contiguous for a in arrays) and all(
                v.flags.c_contiguous for v in kwargs.values() if hasattr(v, "flags"))):
        update(*arrays, *args, **kwargs)
        return
    flat = [a.reshape(-1) for a in arrays]
    flat_kw = {k: v.reshape(-1) if hasattr(v, "flags") else v for k, v in kwargs.items()}

    def update_slice(start, end):
        update(*[a[start:end] for a in flat], *args,
               **{k: v[start:end] if hasattr(v, "flags") else v for k, v in flat_kw.items()})

    cpu_threads.run_split(update_slice, [(start, min(n, start + CHUNK))
                                         for start in range(0, n, CHUNK)])


def chunked_update(update, param, args):
    """Runs the elementwise in-place kernel `update(param, *args)` slice by slice.

    Like `_chunked`, for any argument order: every argument shaped like
    `param` is sliced with it, the others are passed whole. Same numbers as
    one call.

    Args:
        update: a single-variable kernel (e.g. `rmsprop_update`).
        param: the variable's array.
        args: the kernel's other arguments (a sequence).
    """
    sliced = [getattr(a, "shape", None) == param.shape for a in args]
    arrays = [param] + [a for a, s in zip(args, sliced) if s]
    n = param.size
    if n <= max(CHUNK, CHUNK_ABOVE) or not all(a.flags.c_contiguous for a in arrays):
        update(param, *args)
        return
    flat_param = param.reshape(-1)
    flat = [a.reshape(-1) if s else a for a, s in zip(args, sliced)]

    def update_slice(start, end):
        update(flat_param[start:end], *[a[start:end] if s else a for a, s in zip(flat, sliced)])

    cpu_threads.run_split(update_slice, [(start, min(n, start + CHUNK))
                                         for start in range(0, n, CHUNK)])


def lstm_step_loops(x):
    """The compiled LSTM step loops (`numba_kernels.loops()`) for `x`'s dtype, or None.

    `ops/rnn.py`'s LSTM runs each time step's elementwise arithmetic through them
    where numba is installed (the same operations, in the same order, fused into
    one loop per stage; numpy's `tanh` stays numpy's). None for arrays other than
    float32/float64 numpy arrays, or without numba: the numpy step then runs.

    Args:
        x: the sequence's input array.

    Returns:
        the loops namespace, or None.
    """
    if xp_of(x) is not np or x.dtype not in (np.float32, np.float64):
        return None
    return numba_kernels.loops()


__all__ += ["lstm_step_loops"]


def adam_rows_update(param, grad, m, v, alpha, beta_1, beta_2, epsilon, v_hat=None, *,
                     indices, values):
    """Adam for a lookup's gradient in one compiled pass, where numba is installed.

    The numbers of `optimizers/row_updates.dense_then_repeated_rows` with
    `row_updates.adam` (rows looked up once: the dense rule; repeated rows:
    the sum of their squared rows in v), in one loop over the rows on the CPU
    threads instead of the dense kernel plus a redo of the repeated rows.

    Args:
        param, grad, m, v, alpha, beta_1, beta_2, epsilon, v_hat: as `adam_update`.
        indices: 1-D integer array, the row of each of `values`.
        values: (len(indices),) + param.shape[1:], the rows before their sum.

    Returns:
        True when done; False (nothing changed) where it does not apply: no numba,
        AMSGrad, not float32/float64 numpy arrays, or an `alpha` of another dtype
        than `param` (the row rule would compute in that dtype).
    """
    if v_hat is not None or xp_of(param) is not np or param.ndim != 2 or not (
            type(alpha) in (int, float) or np.asarray(alpha).dtype == param.dtype):
        return False
    dt = param.dtype.type
    scalars = (dt(1.0 - beta_1), dt(1.0 - beta_2), dt(epsilon), dt(alpha))
    return numba_kernels.adam_rows_update(param, grad, m, v, scalars, indices, values,
                                          cpu_threads.run_split)


def adam_update_multi(params, grads, ms, vs, alpha, beta_1, beta_2, epsilon, v_hats=None):
    """`adam_update` over many variables in one call (large ones in cache-sized slices).

    Args:
        params, grads, ms, vs: lists of arrays, one entry per variable.
        alpha, beta_1, beta_2, epsilon: as `adam_update` (shared by all variables).
        v_hats: list of AMSGrad slots, or None.
    """
    constants = {}
    for i, param in enumerate(params):
        c = constants.get(param.dtype)
        if c is None:   # once per dtype: `adam_update`'s scalars as 0-d arrays
            c = constants[param.dtype] = _adam_constants(xp_of(param), param.dtype, alpha,
                                                         beta_1, beta_2, epsilon)
        extra = {} if v_hats is None else {"v_hat": v_hats[i]}
        _chunked(_adam_step, (param, grads[i], ms[i], vs[i]), *c, **extra)


def _adam_constants(xp, dtype, alpha, beta_1, beta_2, epsilon):
    """`1 - beta_1`, `1 - beta_2`, `epsilon`, `alpha` as `adam_update` rounds them to
    `dtype`, as 0-d arrays (cheaper operands than numpy scalars for small arrays)."""
    dt = dtype.type
    return tuple(xp.asarray(dt(c), dtype=dtype)
                 for c in (1.0 - beta_1, 1.0 - beta_2, epsilon, alpha))


@_zero_d_safe
def _adam_step(param, grad, m, v, one_minus_beta_1, one_minus_beta_2, epsilon, alpha,
               v_hat=None):
    """`adam_update` with its scalars given by `_adam_constants`: the same operations,
    as explicit ufunc calls (`out=`), which cost less than in-place operators."""
    xp = xp_of(param)
    if v_hat is None and xp is np and numba_kernels.adam_update(
            param, grad, m, v, one_minus_beta_1, one_minus_beta_2, epsilon, alpha):
        return  # the same operations in one compiled loop
    tmp = xp.subtract(grad, m)
    xp.multiply(tmp, one_minus_beta_1, out=tmp)
    xp.add(m, tmp, out=m)
    xp.square(grad, out=tmp)
    xp.subtract(tmp, v, out=tmp)
    xp.multiply(tmp, one_minus_beta_2, out=tmp)
    xp.add(v, tmp, out=v)
    if v_hat is not None:
        xp.maximum(v_hat, v, out=v_hat)
        v = v_hat
    xp.sqrt(v, out=tmp)
    xp.add(tmp, epsilon, out=tmp)
    xp.divide(xp.multiply(m, alpha), tmp, out=tmp)
    xp.subtract(param, tmp, out=param)


def sgd_update_multi(params, grads, momentum_bufs, lr, momentum=0.0, nesterov=False):
    """`sgd_update` over many variables in one call (large ones in cache-sized slices).

    Args:
        params, grads: lists of arrays, one entry per variable.
        momentum_bufs: list of momentum slots, or None for plain SGD.
        lr, momentum, nesterov: as `sgd_update`.
    """
    for i, param in enumerate(params):
        if momentum_bufs is None:
            _chunked(lambda p, g: sgd_update(p, g, None, lr), (param, grads[i]))
        else:
            _chunked(sgd_update, (param, grads[i], momentum_bufs[i]), lr, momentum, nesterov)


__all__ += ["adam_rows_update", "adam_update_multi", "chunked_update", "sgd_update_multi"]
__all__ += ["batch_chunks", "conv_im2col", "conv_input_grad", "run_batch_chunks"]


# Row-split matrix products ------------------------------------------------------
# A multi-threaded OpenBLAS call costs more than its work on a shared machine:
# its threads synchronise at every call and, after it, spin for a while beside
# the CPU worker threads of the next chunked kernel (measured on the MNIST
# convnet step, 2 threads, load average 2.4: 315 ms per step with 2-thread
# BLAS for the dense layers against 185 ms with all BLAS calls on one thread).
# So large products are split over the CPU worker threads instead, each piece
# a single-threaded BLAS call. Not small ones: handing a product to the
# threads costs about 0.3 ms (the MLP step, 784-512-512-10 at batch 128, took
# 9-10 ms with its products split against 5.8 with 2-thread OpenBLAS on a
# quiet machine), so below 2**26 multiply-adds BLAS keeps its own threads.
SPLIT_MATMUL_MIN = 1 << 26


def split_matmul(a, b, out=None, kind=None):
    """`a @ b` for a 2-D `b`, in blocks spread over the CPU threads.

    The longer side of the output is split: blocks of rows of `a` when it has
    at least as many rows as `b` has columns (each thread then packs all of
    `b`, the smaller operand), else blocks of columns of `b` (64-byte aligned,
    each thread packing all of `a`); a multi-threaded BLAS splits the same
    way. Small products, dtypes other than float32/float64 and a single
    worker thread use one `a @ b` call. OpenBLAS's large-matrix kernels
    compute an output element with the same K loop whatever the block, so
    the numbers match one call bit for bit on the shapes checked (the
    benchmark workloads' dense layers), though no BLAS promises it for every
    shape.

    With `kind`, a float32 product follows TensorFlow's sgemm order where
    `onednn_gemm` knows it (the blocks of K, one fused multiply-add chain per
    block), as Keras's layers compute it.

    Args:
        a: array of shape (..., K).
        b: array of shape (K, N).
        out: optional C-contiguous array of shape (..., N) for the result.
        kind: None (numpy's order), or how TensorFlow calls its sgemm for this
            product: "nn" (`x @ w`), "tn" (`x.T @ g`), "nt" (`g @ w.T`).

    Returns:
        array of shape (..., N) (`out` when given).

    Example:
        >>> split_matmul(np.ones((4, 3)), np.ones((3, 2))).shape
        (4, 2)
    """
    k, n = b.shape
    m = a.size // max(k, 1)
    ordered = kind is not None and a.dtype == b.dtype and onednn_gemm.product_kernel(a.dtype)
    if (m * k * n < SPLIT_MATMUL_MIN or a.dtype != b.dtype
            or a.dtype not in (np.float32, np.float64) or a.shape[-1] != k
            or (a.ndim > 2 and not a.flags.c_contiguous)
            or (out is not None and (out.dtype != a.dtype or not out.flags.c_contiguous))
            or cpu_threads.worker_count() < 2):
        if not ordered or a.ndim == 1:
            return np.matmul(a, b, out=out)
        value = onednn_gemm.product(a.reshape(-1, k), b, kind)
        if out is None:
            return value.reshape(a.shape[:-1] + (n,))
        out.reshape(-1, n)[...] = value
        return out
    workers = cpu_threads.worker_count()
    a2 = a.reshape(m, k)
    result = out
    out = np.empty((m, n), dtype=a.dtype) if result is None else result.reshape(m, n)
    if m >= n:
        bounds = [m * i // workers for i in range(workers + 1)]
        pieces = [(slice(r0, r1), slice(None)) for r0, r1 in zip(bounds[:-1], bounds[1:])]
    else:
        align = max(1, 64 // a.itemsize)   # no cache line written by two threads
        bounds = [min(n, -(-n * i // workers // align) * align) for i in range(workers)] + [n]
        pieces = [(slice(None), slice(c0, c1)) for c0, c1 in zip(bounds[:-1], bounds[1:])
                  if c1 > c0]

    def run(rows, cols):
        if ordered:
            out[rows, cols] = onednn_gemm.product(a2[rows], b[:, cols], kind)
        else:
            np.matmul(a2[rows], b[:, cols], out=out[rows, cols])

    cpu_threads.run_split(run, pieces)
    return out.reshape(a.shape[:-1] + (n,)) if result is None else result


__all__ += ["split_matmul"]


def sequence_pipeline(run):
    """A `cpu_threads.Pipeline` for `run` when there are two or more CPU threads, else None.

    A recurrent op hands the work off its step loop's critical path to it
    (see `kerasish/ops/rnn.py`); None tells the op to do that work itself.

    Args:
        run: callable run on the worker thread for each queued piece.

    Returns:
        a `cpu_threads.Pipeline` (a context manager) or None.

    Example:
        >>> done = []
        >>> pipe = sequence_pipeline(done.append)
        >>> if pipe is None:
        ...     done.extend([0, 1])
        ... else:
        ...     with pipe:
        ...         pipe.put(0)
        ...         pipe.put(1)
        >>> done
        [0, 1]
    """
    if cpu_threads.worker_count() < 2:
        return None
    return cpu_threads.Pipeline(run)


__all__ += ["sequence_pipeline"]


# Batch chunks ---------------------------------------------------------------
# Kernels whose batch items are independent (convolutions, fused attention)
# work through the batch in pieces whose scratch arrays fit a core's L2 cache
# (1 MiB per core, 32 MiB L3 on the benchmark machine), so each piece's
# intermediate results are produced and consumed without a trip to DRAM, and
# the pieces are spread over the CPU threads. Measured on the MNIST convnet's
# second conv (batch 128, 26x26x32 -> 64, 1 thread, CPU time): forward
# 84 -> 37 ms, backward 143 -> 97 ms against one whole-batch column buffer.
CHUNK_BYTES = 2 * 2 ** 20


CHUNK_MULTIPLE = 4   # chunk counts are rounded up to a multiple of this


def batch_chunks(n, per_item_bytes):
    """The batch ranges a chunked kernel is computed in on this device.

    Args:
        n: batch size.
        per_item_bytes: bytes of one batch item's scratch arrays.

    Returns:
        list of (start, stop) ranges covering range(n), of even sizes, as many
        as a multiple of `CHUNK_MULTIPLE` (when there are enough items): even
        shares for 2 or 4 threads, and the same chunks (so the same numbers)
        whatever the thread count.
    """
    return _split_batch(n, per_item_bytes, CHUNK_BYTES, CHUNK_MULTIPLE)


def _split_batch(n, per_item_bytes, chunk_bytes, multiple=1):
    """(start, stop) ranges of range(n) holding at most `chunk_bytes` each (one item at
    least), of even sizes, their count rounded up to a multiple of `multiple` (at most
    n): an uneven split leaves a thread idle (e.g. 86 + 42 items over two threads)."""
    step = max(1, chunk_bytes // max(per_item_bytes, 1))
    count = min(n, -(-(-(-n // step)) // multiple) * multiple)
    return [(n * k // count, n * (k + 1) // count) for k in range(count)]


def run_batch_chunks(run, chunks):
    """`[run(start, stop) for (start, stop) in chunks]`, over the CPU threads.

    Args:
        run: callable computing one chunk; chunks must write disjoint memory.
        chunks: list of (start, stop) ranges.

    Returns:
        list: the results in chunk order.
    """
    return cpu_threads.run_split(run, chunks)


# Convolution: im2col and the input gradient -----------------------------------
# Channels_last layout with any number of spatial axes. Columns have shape
# (N, *out_spatial, groups, *kernel_spatial, C // groups), so each group's
# patch is contiguous and a grouped conv is one batched GEMM. Both kernels
# loop over the kernel offsets only (kh * kw strided copies / GEMM + adds),
# never over pixels or batch items.


@functools.lru_cache(maxsize=256)   # built once per geometry, not per batch chunk
def _conv_windows(kernel_spatial, strides, dilation, out_spatial):
    """(offset index, offsets, strided input slices) for every kernel offset, row-major."""
    return tuple((index, offsets, (slice(None),) + tuple(
        slice(k * d, k * d + s * (o - 1) + 1, s)
        for k, d, s, o in zip(offsets, dilation, strides, out_spatial)))
        for index, offsets in enumerate(itertools.product(*(range(k) for k in kernel_spatial))))


def conv_im2col(x, kernel_spatial, strides, dilation, out_spatial, groups=1):
    """Gathers the convolution patches of a padded channels_last input.

    Args:
        x: padded input of shape (N, *spatial, C).
        kernel_spatial, strides, dilation, out_spatial: tuples with one entry
            per spatial axis.
        groups: number of channel groups (C must be divisible by it).

    Returns:
        cols of shape (N, *out_spatial, groups, *kernel_spatial, C // groups).
    """
    xp = xp_of(x)
    cg = x.shape[-1] // groups
    cols = xp.empty((x.shape[0], *out_spatial, groups, *kernel_spatial, cg), dtype=x.dtype)
    xg = x.reshape(x.shape[:-1] + (groups, cg))
    for _, offsets, window in _conv_windows(tuple(kernel_spatial), tuple(strides),
                                            tuple(dilation), tuple(out_spatial)):
        cols[(Ellipsis,) + offsets + (slice(None),)] = xg[window]
    return cols


def conv_input_grad(gy, w, padded_shape, kernel_spatial, strides, dilation, groups=1):
    """Gradient of a channels_last convolution w.r.t. its padded input.

    col2im fused with the GEMM: for each kernel offset one GEMM
    `gy @ W[offset]^T` into a contiguous buffer, added into the strided input
    window (contiguous rows on both sides, unlike a col2im of one big
    column matrix, whose rows are strided by kh * kw * C).

    Args:
        gy: output gradient (N, *out_spatial, F).
        w: kernel (*kernel_spatial, C // groups, F).
        padded_shape: shape (N, *spatial, C) of the padded input.
        kernel_spatial, strides, dilation: tuples, one entry per spatial axis.
        groups: number of channel groups.

    Returns:
        array of `padded_shape`.
    """
    xp = xp_of(gy)
    nd = len(kernel_spatial)
    out_spatial = gy.shape[1:1 + nd]
    f, c = w.shape[-1], padded_shape[-1]
    cg, fg = c // groups, f // groups
    m = gy.size // f
    dtype = xp.result_type(gy.dtype, w.dtype)
    gy2 = gy.reshape(m, f)
    kernels = w.reshape((-1, cg, f))
    out = xp.zeros(tuple(padded_shape[:-1]) + (groups, cg), dtype=dtype)
    if groups == 1:
        tmp = xp.empty((m, cg), dtype=dtype)
        src = tmp.reshape(gy.shape[:-1] + (1, cg))
    else:
        gyg = gy2.reshape(m, groups, fg).transpose(1, 0, 2)                # (G, M, F/G)
        tmp = xp.empty((groups, m, cg), dtype=dtype)
        src = tmp.transpose(1, 0, 2).reshape(gy.shape[:-1] + (groups, cg))  # a view
    for index, _, window in _conv_windows(tuple(kernel_spatial), tuple(strides),
                                          tuple(dilation), tuple(out_spatial)):
        if groups == 1:
            xp.matmul(gy2, kernels[index].T, out=tmp)
        else:
            xp.matmul(gyg, kernels[index].reshape(cg, groups, fg).transpose(1, 2, 0), out=tmp)
        out[window] += src
    return out.reshape(padded_shape)
