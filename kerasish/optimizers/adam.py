"""Adam: `keras.optimizers.Adam`."""
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


class Adam(Optimizer):
    """Adam: adaptive moment estimation (Kingma & Ba, 2014).

    `m += (g - m)(1 - beta_1)`, `v += (g^2 - v)(1 - beta_2)`,
    `alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)`,
    `w -= alpha * m / (sqrt(v) + epsilon)`. Epsilon is the paper's
    "epsilon hat": it is added outside the bias correction (PyTorch adds it
    to the bias-corrected `sqrt(v_hat)`), so the numbers differ from
    PyTorch's Adam while gradients are tiny.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        beta_1: decay rate of the first moment. Defaults to 0.9.
        beta_2: decay rate of the second moment. Defaults to 0.999.
        epsilon: numerical-stability constant. Defaults to 1e-7.
        amsgrad: use AMSGrad (running max of `v`). Defaults to False.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Adam(learning_rate=0.01)
        >>> w = keras.Variable([1.0])
        >>> opt.apply_gradients([(keras.ops.convert_to_tensor([0.5]), w)])
        >>> round(float(w[0]), 4)
        0.99
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, var_list):
        """Creates `momentum` and `velocity` slots (and `velocity_hat` for AMSGrad)."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def _prepare_step(self, learning_rate, variable):
        scalars = super()._prepare_step(learning_rate, variable)
        xp, dt = variable._device.xp, variable._value.dtype.type
        t = self._local_step(variable)
        beta_1_power = self._step_power(xp, dt(self.beta_1), t)
        beta_2_power = self._step_power(xp, dt(self.beta_2), t)
        scalars["alpha"] = scalars["lr"] * xp.sqrt(dt(1) - beta_2_power) / (dt(1) - beta_1_power)
        return scalars

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Adam rule to one variable in place."""
        index = self._get_variable_index(variable)
        alpha = self._step_scalars(learning_rate, variable)["alpha"]
        v_hat = self._velocity_hats[index]._value if self.amsgrad else None
        update, grad = self._update_rule(gradient, variable, "adam_update", row_updates.adam)
        update(variable._value, grad,
               self._momentums[index]._value, self._velocities[index]._value,
               alpha, self.beta_1, self.beta_2, self.epsilon, v_hat)

    def _fused_update(self, grads, variables, learning_rate):
        """All variables in one `adam_update_multi` call (same numbers as `update_step`)."""
        if type(self).update_step is not Adam.update_step or not self._one_cpu_dtype(variables):
            return False
        alpha = self._step_scalars(learning_rate, variables[0])["alpha"]
        index = [self._get_variable_index(v) for v in variables]
        v_hats = [self._velocity_hats[i]._value for i in index] if self.amsgrad else None
        variables[0]._device.kernel("adam_update_multi")(
            [v._value for v in variables], grads, [self._momentums[i]._value for i in index],
            [self._velocities[i]._value for i in index], alpha, self.beta_1, self.beta_2,
            self.epsilon, v_hats)
        return True

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2,
                       "epsilon": self.epsilon, "amsgrad": self.amsgrad})
        return config
