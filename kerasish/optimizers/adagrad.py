"""Adagrad: `keras.optimizers.Adagrad`."""
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


class Adagrad(Optimizer):
    """Adagrad: per-parameter rates scaled by the accumulated squared gradients.

    `acc += g^2`; `w -= lr g / sqrt(acc + epsilon)`, with `acc` starting at
    `initial_accumulator_value`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        initial_accumulator_value: starting value of the accumulators. Defaults to 0.1.
        epsilon: numerical-stability constant. Defaults to 1e-7.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Adagrad(learning_rate=0.1)
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, var_list):
        """Creates one `accumulator` slot per variable, filled with the initial value."""
        if self.built:
            return
        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(
            var_list, "accumulator", initializer=self.initial_accumulator_value)

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Adagrad rule to one variable in place."""
        index = self._get_variable_index(variable)
        update, grad = self._update_rule(gradient, variable, "adagrad_update", row_updates.adagrad)
        update(variable._value, grad,
               self._accumulators[index]._value, self._lr_scalar(learning_rate, variable),
               self.epsilon)

    def get_config(self):
        config = super().get_config()
        config.update({"initial_accumulator_value": self.initial_accumulator_value,
                       "epsilon": self.epsilon})
        return config
