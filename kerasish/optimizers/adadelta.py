"""Adadelta: `keras.optimizers.Adadelta`."""
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012): adaptive rates from running averages of updates.

    `ag = rho ag + (1 - rho) g^2`; `delta = -sqrt(ad + eps) g / sqrt(ag + eps)`;
    `ad = rho ad + (1 - rho) delta^2`; `w += lr delta`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        rho: decay rate. Defaults to 0.95.
        epsilon: numerical-stability constant. Defaults to 1e-7.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Adadelta(learning_rate=1.0)
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def build(self, var_list):
        """Creates `accumulated_grad` and `accumulated_delta_var` slots (interleaved)."""
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"])

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Adadelta rule to one variable in place."""
        index = self._get_variable_index(variable)
        update, grad = self._update_rule(gradient, variable, "adadelta_update", row_updates.adadelta)
        update(variable._value, grad,
               self._accumulated_grads[index]._value, self._accumulated_delta_vars[index]._value,
               self._lr_scalar(learning_rate, variable), self.rho, self.epsilon)

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "epsilon": self.epsilon})
        return config
