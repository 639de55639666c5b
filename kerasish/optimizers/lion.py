"""Lion: `keras.optimizers.Lion`."""
from kerasish.optimizers.optimizer import Optimizer


class Lion(Optimizer):
    """Lion (Chen et al., 2023): sign-of-momentum updates.

    `w -= lr sign(beta_1 m + (1 - beta_1) g)`; `m = beta_2 m + (1 - beta_2) g`.
    Use a 3-10x smaller learning rate than for AdamW.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        beta_1: interpolation factor of the update direction, in (0, 1]. Defaults to 0.9.
        beta_2: decay rate of the momentum. Defaults to 0.99.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Lion(learning_rate=1e-4)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(
                "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer "
                f"degenerates to SignSGD. Received: beta_1={beta_1}."
            )

    def build(self, var_list):
        """Creates one `momentum` slot per variable."""
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Lion rule to one variable in place."""
        index = self._get_variable_index(variable)
        variable._device.kernel("lion_update")(
            variable._value, self._gradient_array(gradient, variable),
            self._momentums[index]._value, self._lr_scalar(learning_rate, variable),
            self.beta_1, self.beta_2)

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2})
        return config
