"""Lamb: `keras.optimizers.Lamb`."""
from kerasish.autodiff.indexed_slices import slices_of
from kerasish.optimizers.optimizer import Optimizer


class Lamb(Optimizer):
    """Lamb (You et al., 2019): Adam's direction scaled per variable by a trust ratio.

    With bias-corrected moments `m_hat`, `v_hat`, the update is
    `u = m_hat / (sqrt(v_hat) + epsilon)` and the variable moves by
    `lr * (||w|| / ||u||) * u` (the ratio is 1 when either norm is 0).

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        beta_1: decay of the first moment. Defaults to 0.9.
        beta_2: decay of the second moment. Defaults to 0.999.
        epsilon: added to the root of the second moment. Defaults to 1e-7.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Lamb(learning_rate=1e-3)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list):
        """Creates a `momentum` and a `velocity` slot per variable (interleaved, as Keras)."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Lamb rule to one variable in place."""
        index = self._get_variable_index(variable)
        xp, w = variable._device.xp, variable._value
        dtype = w.dtype
        g = self._gradient_array(gradient, variable).astype(dtype, copy=False)
        lr = self._lr_scalar(learning_rate, variable)
        step = self._local_step(variable)
        m, v = self._momentums[index]._value, self._velocities[index]._value
        m += (g - m) * dtype.type(1 - self.beta_1)
        rows = slices_of(gradient)  # Keras squares a lookup gradient's rows before summing
        v += ((g * g if rows is None else rows.dense(xp.square)) - v) * dtype.type(1 - self.beta_2)
        m_hat = m / (dtype.type(1.0) - self._step_power(xp, dtype.type(self.beta_1), step))
        beta_2_power = self._step_power(xp, dtype.type(self.beta_2), step)
        v_root = xp.sqrt(v / (dtype.type(1.0) - beta_2_power))
        update = m_hat / (v_root + dtype.type(self.epsilon))
        # Keras: sqrt(sum(power(x, 2))), TensorFlow's Pow (not x * x) summed in Eigen's order
        total = variable._device.kernel("ordered_sum")
        two = dtype.type(2)
        w_norm = xp.sqrt(total(self._step_power(xp, w, two), tuple(range(w.ndim))))
        u_norm = xp.sqrt(total(self._step_power(xp, update, two), tuple(range(w.ndim))))
        ratio = xp.where(w_norm > 0, xp.where(u_norm > 0, w_norm / u_norm, 1.0), 1.0)
        w -= (ratio * lr * update).astype(dtype, copy=False)

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
