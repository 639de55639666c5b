"""Adafactor: `keras.optimizers.Adafactor`."""
from kerasish.optimizers.optimizer import Optimizer


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern, 2018): Adam-like steps with a factored second moment.

    For a variable of rank >= 2 the second moment is kept as row and column means (`r`, `c`
    over the last two axes) and rebuilt as their outer product over the row mean; lower
    ranks keep a full one. The step is relative to the variable's RMS (at least
    `epsilon_2`) times `min(lr, 1/sqrt(step))`, and updates whose RMS exceeds
    `clip_threshold` are scaled down.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        beta_2_decay: the second moment decays by `1 - step**beta_2_decay`. Defaults to -0.8.
        epsilon_1: added to squared gradients. Defaults to 1e-30.
        epsilon_2: the smallest variable RMS the step is scaled by. Defaults to 1e-3.
        clip_threshold: the largest update RMS. Defaults to 1.0.
        relative_step: with a constant learning rate, use `min(lr, 1/sqrt(step))`.
            Defaults to True.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Adafactor(learning_rate=0.01)
    """

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3,
                 clip_threshold=1.0, relative_step=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def build(self, var_list):
        """Creates the row (`r`), column (`c`) and full (`velocity`) second-moment slots."""
        if self.built:
            return
        super().build(var_list)
        self._r, self._c = [], []
        for variable in var_list:
            shape = tuple(variable.shape)
            factored = len(shape) >= 2
            self._r.append(self.add_variable(shape[:-1] if factored else (), dtype=variable.dtype,
                                             name=variable.name))
            self._c.append(self.add_variable(shape[:-2] + shape[-1:] if factored else (),
                                             dtype=variable.dtype, name=variable.name))
        self._v = self.add_optimizer_variables(var_list, "velocity")

    def update_step(self, gradient, variable, learning_rate):
        """Applies the Adafactor rule to one variable in place."""
        index = self._get_variable_index(variable)
        xp, w = variable._device.xp, variable._value
        one = w.dtype.type(1.0)
        g = self._gradient_array(gradient, variable).astype(w.dtype, copy=False)
        step = self._local_step(variable)
        lr = self._lr_scalar(learning_rate, variable)
        if not callable(self._learning_rate) and self.relative_step:
            lr = xp.minimum(lr, one / xp.sqrt(step))
        rho = xp.minimum(lr, one / xp.sqrt(step))
        alpha = xp.maximum(w.dtype.type(self.epsilon_2), _rms(xp, w)) * rho
        squared = g * g + w.dtype.type(self.epsilon_1)
        beta = one - xp.power(step, w.dtype.type(self.beta_2_decay))
        v = self._v[index]._value
        if w.ndim >= 2:
            r, c = self._r[index]._value, self._c[index]._value
            r[...] = beta * r + (one - beta) * squared.mean(axis=-1)
            c[...] = beta * c + (one - beta) * squared.mean(axis=-2)
            v[...] = (r / r.mean(axis=-1, keepdims=True))[..., None] * c[..., None, :]
        else:
            v[...] = beta * v + (one - beta) * squared
        u = g / xp.sqrt(v)
        u_hat = u / xp.maximum(one, _rms(xp, u) / w.dtype.type(self.clip_threshold))
        w -= (alpha * u_hat).astype(w.dtype, copy=False)

    def get_config(self):
        config = super().get_config()
        config.update({"beta_2_decay": self.beta_2_decay, "epsilon_1": self.epsilon_1,
                       "epsilon_2": self.epsilon_2, "clip_threshold": self.clip_threshold,
                       "relative_step": self.relative_step})
        return config


def _rms(xp, x):
    return xp.sqrt(xp.mean(x * x))
