"""SGD with optional (Nesterov) momentum: `keras.optimizers.SGD`."""
from kerasish.optimizers import base_optimizer
from kerasish.optimizers import row_updates
from kerasish.optimizers.optimizer import Optimizer


class SGD(Optimizer):
    """Gradient descent, with optional momentum and Nesterov momentum.

    Without momentum: `w -= learning_rate * g`. With momentum:
    `velocity = momentum * velocity - learning_rate * g; w += velocity`;
    with Nesterov: `w += momentum * velocity - learning_rate * g`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.01.
        momentum: float in [0, 1]. Defaults to 0.0 (no momentum slot).
        nesterov: whether to use Nesterov momentum. Defaults to False.
        **kwargs: the common optimizer arguments (`weight_decay`, `clipnorm`,
            `clipvalue`, `global_clipnorm`, `use_ema`, `ema_momentum`,
            `ema_overwrite_frequency`, `loss_scale_factor`,
            `gradient_accumulation_steps`, `name`), see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
        >>> w = keras.Variable([1.0, 2.0])
        >>> opt.apply_gradients([(keras.ops.convert_to_tensor([1.0, 1.0]), w)])
        >>> w.numpy()
        array([0.9, 1.9], dtype=float32)
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        if not base_optimizer._is_number(momentum) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables):
        """Creates one `momentum` slot per variable when `momentum != 0`."""
        if self.built:
            return
        super().build(variables)
        self.momentums = []
        if self.momentum != 0:
            self.momentums = self.add_optimizer_variables(variables, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        """Applies the (momentum) SGD rule to one variable in place."""
        lr = self._lr_scalar(learning_rate, variable)
        m = None
        if self.momentum != 0:
            m = self.momentums[self._get_variable_index(variable)]._value
        update, grad = self._update_rule(gradient, variable, "sgd_update", row_updates.sgd)
        update(variable._value, grad, m, lr, self.momentum, self.nesterov)

    def _fused_update(self, grads, variables, learning_rate):
        """All variables in one `sgd_update_multi` call (same numbers as `update_step`)."""
        if type(self).update_step is not SGD.update_step or not self._one_cpu_dtype(variables):
            return False
        lr = self._lr_scalar(learning_rate, variables[0])
        buffers = None
        if self.momentum != 0:
            buffers = [self.momentums[self._get_variable_index(v)]._value for v in variables]
        variables[0]._device.kernel("sgd_update_multi")(
            [v._value for v in variables], grads, buffers, lr, self.momentum, self.nesterov)
        return True

    def get_config(self):
        config = super().get_config()
        config.update({"momentum": self.momentum, "nesterov": self.nesterov})
        return config
