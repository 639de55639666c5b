"""RMSprop: `keras.optimizers.RMSprop`."""
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running RMS of recent gradients.

    `v = rho v + (1 - rho) g^2`; centered: `a = rho a + (1 - rho) g` and
    `denom = v - a^2 + epsilon`, else `denom = v + epsilon` (epsilon inside
    the square root); `inc = lr g / sqrt(denom)`; with momentum
    `mom = momentum mom + inc; w -= mom`, else `w -= inc`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        rho: discount factor of the running average. Defaults to 0.9.
        momentum: momentum factor; > 0 adds a `momentum` slot. Defaults to 0.0.
        epsilon: numerical-stability constant. Defaults to 1e-7.
        centered: normalize by the estimated variance. Defaults to False.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.RMSprop(learning_rate=0.01, momentum=0.9)
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list):
        """Creates `velocity` slots, then `momentum` and `average_gradient` if used."""
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = []
        if self.momentum > 0:
            self._momentums = self.add_optimizer_variables(var_list, "momentum")
        self._average_gradients = []
        if self.centered:
            self._average_gradients = self.add_optimizer_variables(var_list, "average_gradient")

    def update_step(self, gradient, variable, learning_rate):
        """Applies the RMSprop rule to one variable in place."""
        index = self._get_variable_index(variable)
        momentum = self._momentums[index]._value if self.momentum > 0 else None
        average = self._average_gradients[index]._value if self.centered else None
        update, grad = self._update_rule(gradient, variable, "rmsprop_update", row_updates.rmsprop)
        update(variable._value, grad,
               self._velocities[index]._value, self._lr_scalar(learning_rate, variable),
               self.rho, self.epsilon, momentum, self.momentum, average)

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "momentum": self.momentum,
                       "epsilon": self.epsilon, "centered": self.centered})
        return config
