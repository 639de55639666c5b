"""FTRL-proximal: `keras.optimizers.Ftrl`."""
from kerasish.autodiff.indexed_slices import slices_of
from kerasish.optimizers.optimizer import Optimizer


def _check_sign(name, value, negative):
    if (value > 0) if negative else (value < 0):
        need = "negative or zero" if negative else "positive or zero"
        raise ValueError(f"`{name}` needs to be {need}. Received: {name}={value}.")


class Ftrl(Optimizer):
    """Follow-The-Regularized-Leader (McMahan et al., 2013), as Keras's `Ftrl`.

    With `n` the accumulated squared gradients (starting at
    `initial_accumulator_value`), `p = -learning_rate_power` and
    `g' = g + 2 * l2_shrinkage * w`:
    `n' = n + g^2`; `z += g' - (n'^p - n^p) / lr * w`;
    `w = (clip(z, -l1, l1) - z) / (n'^p / lr + 2 * (l2 + beta / (2 lr)))`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        learning_rate_power: how the rate decays with the accumulator (<= 0). Defaults to -0.5.
        initial_accumulator_value: starting accumulator value (>= 0). Defaults to 0.1.
        l1_regularization_strength: L1 strength (>= 0). Defaults to 0.
        l2_regularization_strength: L2 strength (>= 0). Defaults to 0.
        l2_shrinkage_regularization_strength: L2 shrinkage on the gradient (>= 0). Defaults to 0.
        beta: the FTRL beta, added to L2 as `beta / (2 lr)`. Defaults to 0.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Ftrl(learning_rate=0.5)
        >>> w = keras.Variable([1.0, 2.0])
        >>> opt.apply_gradients([(np.array([1.0, 6.0]), w)])   # w ~ [0.2218, 1.3954]
    """

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        _check_sign("initial_accumulator_value", initial_accumulator_value, negative=False)
        _check_sign("learning_rate_power", learning_rate_power, negative=True)
        _check_sign("l1_regularization_strength", l1_regularization_strength, negative=False)
        _check_sign("l2_regularization_strength", l2_regularization_strength, negative=False)
        _check_sign("l2_shrinkage_regularization_strength",
                    l2_shrinkage_regularization_strength, negative=False)
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list):
        """Creates the `accumulator` and `linear` slots of each variable."""
        if self.built:
            return
        super().build(var_list)
        # Interleaved per variable, as Keras: a_accumulator, a_linear, b_accumulator...
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"],
            initializer=[self.initial_accumulator_value, "zeros"])

    def update_step(self, gradient, variable, learning_rate):
        """Applies the FTRL-proximal rule to one variable in place."""
        index = self._get_variable_index(variable)
        xp = variable._device.xp
        w = variable._value
        dt = w.dtype.type
        lr = dt(self._lr_scalar(learning_rate, variable))
        g = xp.asarray(self._gradient_array(gradient, variable), dtype=w.dtype)
        accum, linear = self._accumulators[index]._value, self._linears[index]._value
        power = dt(-self.learning_rate_power)
        l1, l2 = dt(self.l1_regularization_strength), dt(self.l2_regularization_strength)
        l2 = l2 + dt(self.beta) / (dt(2.0) * lr)
        shrunk = g + dt(2.0 * self.l2_shrinkage_regularization_strength) * w
        rows = slices_of(gradient)  # Keras squares a lookup gradient's rows before summing
        new_accum = accum + (g * g if rows is None else rows.dense(xp.square))
        new_power = self._step_power(xp, new_accum, power)
        # Keras's assign_add: linear + (shrunk - ...), not (linear + shrunk) - ...
        linear[...] = linear + (shrunk - (new_power - self._step_power(xp, accum, power)) / lr * w)
        quadratic = new_power / lr + dt(2.0) * l2
        w[...] = (xp.clip(linear, -l1, l1) - linear) / quadratic
        accum[...] = new_accum

    def get_config(self):
        config = super().get_config()
        config.update({
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta,
        })
        return config
