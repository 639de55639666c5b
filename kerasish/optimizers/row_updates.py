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

`rows` is an `IndexedSlices` in the variable's dtype; the other arguments are
the dense kernels' (slot arrays and 0-d scalars).
"""
from kerasish.backend import devices


def _scatter_add(target, rows, values):
    devices.device_of_array(target).kernel("index_add")(target, rows.indices, values)


def adam(param, rows, m, v, alpha, beta_1, beta_2, epsilon, v_hat=None):
    """Adam / AMSGrad (`Adam.update_step`): `v` from the sum of squared rows."""
    xp, dt = devices.xp_of(param), param.dtype.type
    m += (rows.dense() - m) * dt(1.0 - beta_1)
    v += (rows.dense(xp.square) - v) * dt(1.0 - beta_2)
    if v_hat is not None:
        xp.maximum(v_hat, v, out=v_hat)
        v = v_hat
    param -= (m * alpha) / (xp.sqrt(v) + dt(epsilon))


def nadam(param, rows, m, v, lr, beta_1, beta_2, epsilon, u_t, u_t_1, u_product_t,
          u_product_t_1, beta_2_power):
    """Nadam: `v` from squared rows; the gradient term of `m_hat` summed from scaled rows."""
    xp, dt = devices.xp_of(param), param.dtype.type
    one = dt(1)
    m += (rows.dense() - m) * (one - dt(beta_1))
    v += (rows.dense(xp.square) - v) * (one - dt(beta_2))
    m_hat = m * dt(u_t_1) / (one - dt(u_product_t_1))
    m_hat += rows.dense(lambda g: g * (one - dt(u_t)) / (one - dt(u_product_t)))
    denominator = xp.sqrt(v / (one - dt(beta_2_power))) + dt(epsilon)
    param -= m_hat * dt(lr) / denominator


def adamax(param, rows, m, u, lr, beta_1, beta_2, epsilon, beta_1_power):
    """Adamax: `u = max(beta_2 u, sum of |rows|)`."""
    xp, dt = devices.xp_of(param), param.dtype.type
    m += (rows.dense() - m) * dt(1.0 - beta_1)
    xp.maximum(u * dt(beta_2), rows.dense(xp.abs), out=u)
    param -= m * dt(lr) / ((u + dt(epsilon)) * (dt(1) - dt(beta_1_power)))


def rmsprop(param, rows, velocity, lr, rho, epsilon, momentum_buf=None, momentum=0.0,
            average_grad=None):
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
    increment = rows.values * dt(lr) / xp.sqrt(denominator)[rows.indices]
    if momentum_buf is None:
        _scatter_add(param, rows, -increment)
        return
    momentum_buf *= dt(momentum)
    momentum_buf += rows.with_values(increment).dense()
    param -= momentum_buf


def adagrad(param, rows, accumulator, lr, epsilon):
    """Adagrad: squared rows scattered into the accumulator, then the step row by row."""
    xp, dt = devices.xp_of(param), param.dtype.type
    _scatter_add(accumulator, rows, xp.square(rows.values))
    denominator = xp.sqrt(accumulator[rows.indices] + dt(epsilon))
    _scatter_add(param, rows, -(rows.values * dt(lr) / denominator))


def adadelta(param, rows, accumulated_grad, accumulated_delta, lr, rho, epsilon):
    """Adadelta: both accumulators from squared rows, the step scattered row by row."""
    xp, dt = devices.xp_of(param), param.dtype.type
    eps = dt(epsilon)
    accumulated_grad *= dt(rho)
    accumulated_grad += rows.dense(lambda g: dt(1.0 - rho) * xp.square(g))
    rms_delta = xp.sqrt(accumulated_delta + eps)[rows.indices]
    rms_grad = xp.sqrt(accumulated_grad + eps)[rows.indices]
    delta = -(rms_delta * rows.values / rms_grad)
    accumulated_delta *= dt(rho)
    accumulated_delta += rows.with_values(delta).dense(lambda d: dt(1.0 - rho) * xp.square(d))
    _scatter_add(param, rows, delta * dt(lr))


def sgd(param, rows, momentum_buf, lr, momentum=0.0, nesterov=False):
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
