"""Optimizer rules for a lookup's gradient given row by row (`IndexedSlices`).

Keras on TensorFlow runs each optimizer's `update_step` on the
`tf.IndexedSlices` of an embedding lookup. Its sparse-aware ops decide the
numbers: a row-wise op (`square`, `abs`, a product with a scalar, a product
or quotient with a dense tensor gathered at the rows) keeps the rows; adding
a dense tensor sums the rows first (`unsorted_segment_sum`, in row order);
assigning rows adds them into the variable one by one (`scatter_add`). So
`v += (g^2 - v)(1 - beta_2)` gets the sum of the squared rows, and Adagrad's
update is scattered row by row. Each function below is the dense kernel's
rule (`backend/kernels/numpy_kernels.py`) with exactly those steps, on the
variable's device (`device.xp`), in place.

The arguments are the dense kernel's (`grad` is the dense gradient: the rows
summed, exactly as TensorFlow densifies them), plus `rows`, an `IndexedSlices`
in the variable's dtype.
"""
from kerasish.autodiff.indexed_slices import IndexedSlices
from kerasish.backend import devices


def dense_then_repeated_rows(kernel, row_rule, param, grad, *args, rows):
    """`row_rule`'s result at the cost of the dense `kernel`.

    A row looked up once gets the same numbers from both (its squared row is
    the square of the summed one), so the fast fused kernel updates the whole
    variable, and `row_rule` then redoes only the rows that repeat, on compact
    copies of their old state. Every rule here is row by row, which makes the
    split exact.

    Args:
        kernel: the device's dense kernel for the rule.
        row_rule: the matching function of this module.
        param, grad, *args: the kernel's arguments; arrays shaped like `param`
            are its per-row state.
        rows: the gradient's `IndexedSlices`.
    """
    xp = devices.xp_of(param)
    indices = rows.indices
    if row_rule is adam and devices.device_of_array(param).kernel("adam_rows_update")(
            param, grad, *args, indices=indices, values=rows.values):
        return None  # the same numbers in one compiled pass (numba installed)
    ids, counts = xp.unique(indices, return_counts=True)
    repeated = ids[counts > 1]
    if repeated.size == 0:
        return kernel(param, grad, *args)
    per_row = [i for i, a in enumerate(args) if getattr(a, "shape", None) == param.shape]
    old_param = param[repeated]
    old_args = list(args)
    for i in per_row:
        old_args[i] = args[i][repeated]
    kernel(param, grad, *args)
    keep = xp.isin(indices, repeated)
    compact = IndexedSlices(rows.values[keep], xp.searchsorted(repeated, indices[keep]),
                            (repeated.size,) + rows.dense_shape[1:])
    row_rule(old_param, grad[repeated], *old_args, rows=compact)
    param[repeated] = old_param
    for i in per_row:
        args[i][repeated] = old_args[i]


def _scatter_add(target, rows, values):
    devices.device_of_array(target).kernel("index_add")(target, rows.indices, values)


def adam(param, grad, m, v, alpha, beta_1, beta_2, epsilon, v_hat=None, *, rows):
    """Adam / AMSGrad (`Adam.update_step`): `v` from the sum of squared rows."""
    xp, dt = devices.xp_of(param), param.dtype.type
    tmp = xp.subtract(grad, m)
    tmp *= dt(1.0 - beta_1)
    m += tmp
    tmp = rows.dense(xp.square)
    tmp -= v
    tmp *= dt(1.0 - beta_2)
    v += tmp
    if v_hat is not None:
        xp.maximum(v_hat, v, out=v_hat)
        v = v_hat
    xp.sqrt(v, out=tmp)
    tmp += dt(epsilon)
    xp.divide(m * alpha, tmp, out=tmp)
    param -= tmp


def nadam(param, grad, m, v, lr, beta_1, beta_2, epsilon, u_t, u_t_1, u_product_t,
          u_product_t_1, beta_2_power, *, rows):
    """Nadam: `v` from squared rows; the gradient term of `m_hat` summed from scaled rows."""
    xp, dt = devices.xp_of(param), param.dtype.type
    one = dt(1)
    m += (grad - m) * (one - dt(beta_1))
    v += (rows.dense(xp.square) - v) * (one - dt(beta_2))
    m_hat = m * dt(u_t_1) / (one - dt(u_product_t_1))
    m_hat += rows.dense(lambda g: g * (one - dt(u_t)) / (one - dt(u_product_t)))
    denominator = xp.sqrt(v / (one - dt(beta_2_power))) + dt(epsilon)
    param -= m_hat * dt(lr) / denominator


def adamax(param, grad, m, u, lr, beta_1, beta_2, epsilon, beta_1_power, *, rows):
    """Adamax: `u = max(beta_2 u, sum of |rows|)`."""
    xp, dt = devices.xp_of(param), param.dtype.type
    m += (grad - m) * dt(1.0 - beta_1)
    xp.maximum(u * dt(beta_2), rows.dense(xp.abs), out=u)
    param -= m * dt(lr) / ((u + dt(epsilon)) * (dt(1) - dt(beta_1_power)))


def rmsprop(param, grad, velocity, lr, rho, epsilon, momentum_buf=None, momentum=0.0,
            average_grad=None, *, rows):
    """RMSprop: `velocity` from squared rows; the increment scattered row by row."""
    xp, dt = devices.xp_of(param), param.dtype.type
    velocity *= dt(rho)
    velocity += rows.dense(lambda g: dt(1.0 - rho) * xp.square(g))
    if average_grad is not None:
        average_grad *= dt(rho)
        average_grad += rows.dense(lambda g: dt(1.0 - rho) * g)
        denominator = velocity - xp.square(average_grad) + dt(epsilon)
    else:
        denominator = velocity + dt(epsilon)
    increment = rows.values * dt(lr) / xp.sqrt(denominator[rows.indices])
    if momentum_buf is None:
        _scatter_add(param, rows, -increment)
        return
    momentum_buf *= dt(momentum)
    momentum_buf += rows.with_values(increment).dense()
    param -= momentum_buf


def adagrad(param, grad, accumulator, lr, epsilon, *, rows):
    """Adagrad: squared rows scattered into the accumulator, then the step row by row."""
    xp, dt = devices.xp_of(param), param.dtype.type
    _scatter_add(accumulator, rows, xp.square(rows.values))
    denominator = xp.sqrt(accumulator[rows.indices] + dt(epsilon))
    _scatter_add(param, rows, -(rows.values * dt(lr) / denominator))


def adadelta(param, grad, accumulated_grad, accumulated_delta, lr, rho, epsilon, *, rows):
    """Adadelta: both accumulators from squared rows, the step scattered row by row."""
    xp, dt = devices.xp_of(param), param.dtype.type
    eps = dt(epsilon)
    accumulated_grad *= dt(rho)
    accumulated_grad += rows.dense(lambda g: dt(1.0 - rho) * xp.square(g))
    rms_delta = xp.sqrt(accumulated_delta[rows.indices] + eps)
    rms_grad = xp.sqrt(accumulated_grad[rows.indices] + eps)
    delta = -(rms_delta * rows.values / rms_grad)
    accumulated_delta *= dt(rho)
    accumulated_delta += rows.with_values(delta).dense(lambda d: dt(1.0 - rho) * xp.square(d))
    _scatter_add(param, rows, delta * dt(lr))


def sgd(param, grad, momentum_buf, lr, momentum=0.0, nesterov=False, *, rows):
    """SGD: without momentum the scaled rows are scattered; with it they are summed."""
    dt = param.dtype.type
    scaled = rows.values * dt(lr)
    if momentum_buf is None:
        _scatter_add(param, rows, -scaled)
        return
    step = rows.with_values(scaled).dense()
    momentum_buf *= dt(momentum)
    momentum_buf -= step
    if nesterov:
        param += momentum_buf * dt(momentum) - step
    else:
        param += momentum_buf


def adafactor(param, rows, v, alpha, clip_threshold):
    """Adafactor's step for rows (`v` already from the squared rows): `u = g / sqrt(v)`
    row by row, its RMS over the rows and the table's size (Keras's sparse `mean`),
    then the clipped step scattered row by row."""
    xp, dt = devices.xp_of(param), param.dtype.type
    u = rows.values / xp.sqrt(v)[rows.indices]
    rms = xp.sqrt(xp.sum(xp.square(u)) / dt(param.size))
    u = u / xp.maximum(dt(1), rms / dt(clip_threshold))
    _scatter_add(param, rows, -(alpha * u))
