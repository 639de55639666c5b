"""Adamax: `keras.optimizers.Adamax`."""
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm (Kingma & Ba, 2014, section 7).

    `m += (g - m)(1 - beta_1)`; `u = max(beta_2 u, |g|)`;
    `w -= lr m / ((1 - beta_1^t)(u + epsilon))`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        beta_1: decay rate of the first moment. Defaults to 0.9.
        beta_2: decay rate of the infinity norm. Defaults to 0.999.
        epsilon: numerical-stability constant. Defaults to 1e-7.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Adamax(learning_rate=0.01)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list):
        """Creates `momentum` and `norm` slots (interleaved per variable)."""
        if self.built:
            return
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def _prepare_step(self, learning_rate, variable):
        scalars = super()._prepare_step(learning_rate, variable)
        dt = variable._value.dtype.type
        scalars["beta_1_power"] = self._step_power(variable._device.xp, dt(self.beta_1),
                                           self._local_step(variable))
        return scalars

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Adamax rule to one variable in place."""
        index = self._get_variable_index(variable)
        scalars = self._step_scalars(learning_rate, variable)
        update, grad = self._update_rule(gradient, variable, "adamax_update", row_updates.adamax)
        update(variable._value, grad,
               self._m[index]._value, self._u[index]._value, scalars["lr"],
               self.beta_1, self.beta_2, self.epsilon, scalars["beta_1_power"])

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
