"""Adafactor: `keras.optimizers.Adafactor`."""
from kerasish.autodiff.indexed_slices import slices_of
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import devices
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


def _rms(x):
    return ew.sqrt(reduction.mean(ew.square(x)))


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern, 2018): second moments kept as row and column
    averages for variables of rank >= 2, as Keras's `Adafactor`.

    With `t` the step, `rho = min(lr, 1/sqrt(t))` (the learning rate itself is
    also capped at `1/sqrt(t)` when `relative_step` and it is not a schedule),
    `g2 = g^2 + epsilon_1` and `b = 1 - t^beta_2_decay`: rank >= 2 variables
    update `r = b r + (1-b) mean(g2, -1)`, `c = b c + (1-b) mean(g2, -2)` and
    `v = r / mean(r) (x) c`; smaller ones `v = b v + (1-b) g2`. Then
    `u = g / sqrt(v)`, `u /= max(1, rms(u) / clip_threshold)` and
    `w -= max(epsilon_2, rms(w)) * rho * u`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        beta_2_decay: decay exponent of the second-moment rate. Defaults to -0.8.
        epsilon_1: added to the squared gradients. Defaults to 1e-30.
        epsilon_2: floor of the parameter scale. Defaults to 1e-3.
        clip_threshold: update clipping threshold. Defaults to 1.0.
        relative_step: cap the learning rate at `1/sqrt(t)`. Defaults to True.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Adafactor(learning_rate=0.01)
    """

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3,
                 clip_threshold=1.0, relative_step=True, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def build(self, var_list):
        """Creates the row (`r`) and column (`c`) factors of rank >= 2 variables and a
        `velocity` per variable, in Keras's order."""
        if self.built:
            return
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for var in var_list:
            skip = self._overwrite_variable_with_gradient(var)
            with devices.device(var._device):
                if len(var.shape) < 2:  # unused int32 placeholders, listed as in Keras
                    for factors in (self._r, self._c):
                        placeholder = self._new_variable(0, "int32", var.name, var._device)
                        placeholder.path = self._bare_path(placeholder)  # a bare Variable
                        self._track_bare_variable(placeholder)
                        factors.append(placeholder)
                elif skip:
                    self._r.append(None)
                    self._c.append(None)
                else:
                    r_shape, c_shape = var.shape[:-1], var.shape[:-2] + (var.shape[-1],)
                    self._r.append(self.add_variable(r_shape, dtype=var.dtype, name=var.name))
                    self._c.append(self.add_variable(c_shape, dtype=var.dtype, name=var.name))
            self._v.append(None if skip else self.add_variable_from_reference(var, "velocity"))

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Adafactor rule to one variable."""
        index = self._get_variable_index(variable)
        dtype = variable.dtype
        gradient = core.cast(gradient, dtype)
        lr = core.cast(learning_rate, dtype)
        step = core.cast(ew.add(self.iterations, 1), dtype)
        inv_sqrt_step = ew.divide(1.0, ew.sqrt(step))
        if self.relative_step and not callable(self._learning_rate):
            lr = ew.minimum(lr, inv_sqrt_step)
        rho = ew.minimum(lr, inv_sqrt_step)
        alpha = ew.multiply(ew.maximum(core.cast(self.epsilon_2, dtype), _rms(variable)), rho)
        rows = slices_of(gradient)  # Keras squares a lookup gradient's rows before summing
        grad_sq = ew.add(ew.square(gradient) if rows is None
                         else Tensor(rows.dense(variable._device.xp.square)), self.epsilon_1)
        beta = ew.subtract(1.0, ew.power(step, self.beta_2_decay))
        v = self._v[index]
        if len(variable.shape) >= 2:
            r, c = self._r[index], self._c[index]
            r.assign(ew.add(ew.multiply(beta, r), ew.multiply(ew.subtract(1.0, beta),
                                                              reduction.mean(grad_sq, axis=-1))))
            c.assign(ew.add(ew.multiply(beta, c), ew.multiply(ew.subtract(1.0, beta),
                                                              reduction.mean(grad_sq, axis=-2))))
            row = ew.divide(r, reduction.mean(r, axis=-1, keepdims=True))
            v.assign(ew.multiply(shape_ops.expand_dims(row, -1), shape_ops.expand_dims(c, -2)))
        else:
            v.assign(ew.add(ew.multiply(beta, v), ew.multiply(ew.subtract(1.0, beta), grad_sq)))
        if rows is not None:
            row_updates.adafactor(variable._value, rows, v._value, alpha._value,
                                  self.clip_threshold)
            return
        update = ew.divide(gradient, ew.sqrt(v))
        update = ew.divide(update, ew.maximum(1.0, ew.divide(_rms(update), self.clip_threshold)))
        variable.assign_sub(ew.multiply(alpha, update))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_2_decay": self.beta_2_decay, "epsilon_1": self.epsilon_1,
                       "epsilon_2": self.epsilon_2, "clip_threshold": self.clip_threshold,
                       "relative_step": self.relative_step})
        return config
