"""Nadam: `keras.optimizers.Nadam`."""
from kerasish.autodiff.tensor import Variable
from kerasish.backend import config as backend_config
from kerasish.backend import devices
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


class Nadam(Optimizer):
    """Nadam: Adam with Nesterov momentum (Dozat, 2015), as in Keras.

    With the momentum schedule `u_t = beta_1 (1 - 0.5 * 0.96^t)` and its
    running product `u_product`:
    `m_hat = u_{t+1} m / (1 - u_product u_{t+1}) + (1 - u_t) g / (1 - u_product)`,
    `v_hat = v / (1 - beta_2^t)`, `w -= lr m_hat / (sqrt(v_hat) + epsilon)`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        beta_1: decay rate of the first moment. Defaults to 0.9.
        beta_2: decay rate of the second moment. Defaults to 0.999.
        epsilon: numerical-stability constant. Defaults to 1e-7.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Nadam(learning_rate=0.01)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list):
        """Creates `momentum`/`velocity` slots and the `u_product` scalar (last, as Keras)."""
        if self.built:
            return
        var_list = list(var_list)
        dtype = var_list[0].dtype if var_list else backend_config.floatx()
        device = var_list[0]._device if var_list else devices.current_device()
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        with devices.device(device):
            u_product = Variable(1.0, dtype=dtype, trainable=False)
        u_product.path = self._bare_path(u_product)
        self._u_product = u_product

    def _backend_update_step(self, grads, variables, learning_rate):
        """Advances `u_product` by this step's `u_t`, then updates every variable."""
        u_product = self._u_product
        xp, dt = u_product._device.xp, u_product._value.dtype.type
        t = self._local_step(u_product)
        factor = dt(1.0) - dt(0.5) * self._step_power(xp, dt(0.96), t)
        u_product._value[...] = u_product._value * dt(self.beta_1) * factor
        super()._backend_update_step(grads, variables, learning_rate)

    def _prepare_step(self, learning_rate, variable):
        scalars = super()._prepare_step(learning_rate, variable)
        xp, dt, device = variable._device.xp, variable._value.dtype.type, variable._device
        beta_1, decay, one, half = dt(self.beta_1), dt(0.96), dt(1.0), dt(0.5)
        u_t = beta_1 * (one - half * self._step_power(xp, decay, self._local_step(variable, 1)))
        u_t_1 = beta_1 * (one - half * self._step_power(xp, decay, self._local_step(variable, 2)))
        u_product = self._u_product._value
        if self._u_product._device is not device:
            u_product = device.send(u_product)
        u_product_t = u_product.astype(variable._value.dtype)
        beta_2_power = self._step_power(xp, dt(self.beta_2), self._local_step(variable))
        scalars.update(u_t=u_t, u_t_1=u_t_1, u_product_t=u_product_t,
                       u_product_t_1=u_product_t * u_t_1, beta_2_power=beta_2_power)
        return scalars

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Nadam rule to one variable in place."""
        index = self._get_variable_index(variable)
        s = self._step_scalars(learning_rate, variable)
        update, grad = self._update_rule(gradient, variable, "nadam_update", row_updates.nadam)
        update(variable._value, grad,
               self._momentums[index]._value, self._velocities[index]._value, s["lr"],
               self.beta_1, self.beta_2, self.epsilon, s["u_t"], s["u_t_1"],
               s["u_product_t"], s["u_product_t_1"], s["beta_2_power"])

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
