"""ScheduleFreeAdamW: `keras.optimizers.ScheduleFreeAdamW`."""
from kerasish.optimizers.optimizer import Optimizer


class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW (Defazio et al., 2024): no learning-rate schedule needed.

    Keeps `z` (the `momentum` slot, starting at the weights) moved by Adam-scaled gradient
    steps, and an average `x` of the `z` iterates (weight `1/step`); the variable holds the
    interpolation `y = (1 - beta_1) z + beta_1 x` where gradients are taken. Keras stores
    only `y` and `z` and recovers `x` from them. `warmup_steps` ramps the learning rate up
    linearly.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.0025.
        beta_1: interpolation between `z` and the average `x`. Defaults to 0.9.
        beta_2: decay of the second moment. Defaults to 0.999.
        epsilon: added to the root of the second moment. Defaults to 1e-8.
        warmup_steps: steps of linear learning-rate warm-up. Defaults to 0.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.ScheduleFreeAdamW(learning_rate=0.0025, warmup_steps=100)
    """

    def __init__(self, learning_rate=0.0025, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                 warmup_steps=0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.warmup_steps = warmup_steps

    def build(self, var_list):
        """Creates `momentum` (z, a copy of each variable) and `velocity` slots.

        Built by `fit` / `train_on_batch` (not `run_eagerly`), `momentum` starts
        at zeros instead, as in Keras 3.15.1 on TensorFlow (see `_in_traced_build`).
        """
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        if self._in_traced_build():
            return  # Keras's copy is lost in the traced step: `momentum` starts at zeros
        for z, variable in zip(self._momentums, var_list):
            if z is not None:
                z._value[...] = variable._value

    def update_step(self, gradient, variable, learning_rate):
        """One schedule-free step on one variable, in place."""
        index = self._get_variable_index(variable)
        xp, y = variable._device.xp, variable._value
        dtype = y.dtype.type
        g = self._gradient_array(gradient, variable).astype(y.dtype, copy=False)
        step = self._local_step(variable)
        lr = self._lr_scalar(learning_rate, variable)
        if self.warmup_steps > 0:
            lr = lr * xp.minimum(step / dtype(self.warmup_steps), dtype(1.0))
        z, v = self._momentums[index]._value, self._velocities[index]._value
        beta_2 = dtype(self.beta_2)
        v += (g * g - v) * (dtype(1) - beta_2)  # 1 - beta_2 in the variable's dtype, as Keras
        denominator = xp.sqrt(v / (dtype(1) - xp.power(beta_2, step))) \
            + dtype(self.epsilon)
        z -= lr * g / denominator
        weight = dtype(1.0) / step
        beta_1 = dtype(self.beta_1)
        # Keras 3.15.1 on TensorFlow reads `momentum.value` after the in-place update, so
        # the average is recovered from the *new* z; we follow it (see docs/optimizers.md).
        x_old = (y - (dtype(1) - beta_1) * z) / beta_1
        x_new = (dtype(1) - weight) * x_old + weight * z
        y[...] = (dtype(1) - beta_1) * z + beta_1 * x_new

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                       "warmup_steps": self.warmup_steps})
        return config
