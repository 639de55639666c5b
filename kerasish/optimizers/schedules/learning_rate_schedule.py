"""Learning-rate schedules (`keras.optimizers.schedules`), Keras 3 formulas.

A schedule maps the optimizer step to a learning rate. The built-in ones
compute with `kerasish.ops` in the initial learning rate's dtype (float32 by
default), in the same operation order as Keras, so values match Keras's to
the last float32 bit in practice. The result is a 0-d Tensor on the step's
device (the optimizer's `iterations` device), so no device sync is needed.
"""
import math

import numpy as np

from kerasish import ops
from kerasish.backend import config
from kerasish.utils import registry


class LearningRateSchedule:
    """Base class of learning-rate schedules.

    Subclasses implement `__call__(step)` (step: the optimizer's iteration
    count, an int or a scalar integer tensor) and `get_config()`.

    Example:
        >>> class InverseStep(keras.optimizers.schedules.LearningRateSchedule):
        ...     def __init__(self, initial_learning_rate):
        ...         self.initial_learning_rate = initial_learning_rate
        ...     def __call__(self, step):
        ...         return self.initial_learning_rate / (step + 1)
        ...     def get_config(self):
        ...         return {"initial_learning_rate": self.initial_learning_rate}
        >>> optimizer = keras.optimizers.SGD(learning_rate=InverseStep(0.1))
    """

    def __call__(self, step):
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override "
            "`__call__(self, step)`."
        )

    def get_config(self):
        """Returns the constructor arguments as a dict (for serialization)."""
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override "
            "`get_config()` in order to be serializable."
        )

    @classmethod
    def from_config(cls, config):
        """Re-creates a schedule from `get_config()`'s output.

        Args:
            config: the dict returned by `get_config()`.

        Returns:
            LearningRateSchedule: a new instance.
        """
        return cls(**config)


def _dtype_of(value):
    """The numpy scalar type Keras would compute in for a Python/numpy number."""
    if isinstance(value, np.generic):
        return value.dtype.type
    if isinstance(value, (bool, int)) and not isinstance(value, float):
        return np.int32
    return config.to_numpy_dtype(config.floatx()).type


def _float_step(step, dtype):
    """The step as a 0-d tensor of `dtype` (on the step's device)."""
    return ops.cast(step, np.dtype(dtype).name)


def _check_decay_steps(name, value):
    if value <= 0:
        raise ValueError(f"Argument `{name}` must be > 0. Received: {name}={value}")


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ^ (step / decay_steps)`.

    Args:
        initial_learning_rate: float, the learning rate at step 0.
        decay_steps: int > 0, the decay period.
        decay_rate: float, the decay factor per period.
        staircase: if True, `step / decay_steps` is floored (decays in steps).
        name: name of the schedule. Defaults to "ExponentialDecay".

    Returns:
        A callable giving the learning rate (0-d float tensor) for a step.

    Example:
        >>> lr = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
        >>> float(lr(10))
        0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate,
                 staircase=False, name="ExponentialDecay"):
        super().__init__()
        _check_decay_steps("decay_steps", decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        dt = _dtype_of(self.initial_learning_rate)
        p = _float_step(step, dt) / dt(self.decay_steps)
        if self.staircase:
            p = ops.floor(p)
        return ops.multiply(dt(self.initial_learning_rate), ops.power(dt(self.decay_rate), p))

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """A piecewise constant learning rate.

    The result is `values[0]` while `step <= boundaries[0]`, `values[1]`
    while `boundaries[0] < step <= boundaries[1]`, ..., and `values[-1]`
    once `step > boundaries[-1]`.

    Args:
        boundaries: increasing list of step numbers.
        values: list with one more element than `boundaries`.
        name: name of the schedule. Defaults to "PiecewiseConstant".

    Returns:
        A callable giving the learning rate (0-d tensor) for a step.

    Example:
        >>> lr = keras.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
        >>> [float(lr(s)) for s in (10, 11, 21)]
        [1.0, 0.5, 0.1]
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        super().__init__()
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of "
                f"values. Received: boundaries={boundaries} of length "
                f"{len(boundaries)}, and values={values} of length {len(values)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        dt = _dtype_of(self.values[0])
        dtype = np.dtype(dt).name
        step = ops.convert_to_tensor(step)
        step_type = config.to_numpy_dtype(step.dtype).type
        bounds = [step_type(b) for b in self.boundaries]  # cast to the step's dtype, as Keras
        result = ops.cast(ops.less_equal(step, bounds[0]), dtype) * dt(self.values[0])
        above = ops.cast(ops.greater(step, bounds[-1]), dtype) * dt(self.values[-1])
        result = result + above
        for low, high, value in zip(bounds[:-1], bounds[1:], self.values[1:-1]):
            inside = ops.logical_and(ops.greater(step, low), ops.less_equal(step, high))
            result = result + ops.cast(inside, dtype) * dt(value)
        return result

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """Polynomial decay from `initial_learning_rate` to `end_learning_rate`.

    `(initial - end) * (1 - min(step, decay_steps) / decay_steps) ^ power + end`;
    with `cycle=True` the decay period is `decay_steps` times the first
    multiple that is >= step (and 1 at step 0).

    Args:
        initial_learning_rate: float, the learning rate at step 0.
        decay_steps: int > 0, steps to reach `end_learning_rate`.
        end_learning_rate: float, the final learning rate. Defaults to 1e-4.
        power: float, the polynomial's power. Defaults to 1.0.
        cycle: whether to restart the decay after `decay_steps`.
        name: name of the schedule. Defaults to "PolynomialDecay".

    Returns:
        A callable giving the learning rate (0-d float tensor) for a step.

    Example:
        >>> lr = keras.optimizers.schedules.PolynomialDecay(0.1, 10, 0.0)
        >>> round(float(lr(5)), 6)
        0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001,
                 power=1.0, cycle=False, name="PolynomialDecay"):
        super().__init__()
        _check_decay_steps("decay_steps", decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        dt = _dtype_of(self.initial_learning_rate)
        initial, end = dt(self.initial_learning_rate), dt(self.end_learning_rate)
        step = _float_step(step, dt)
        decay_steps = dt(self.decay_steps)
        if self.cycle:
            multiplier = ops.where(ops.equal(step, 0), dt(1), ops.ceil(step / decay_steps))
            decay_steps = ops.multiply(decay_steps, multiplier)
        else:
            step = ops.minimum(step, decay_steps)
        p = ops.divide(step, decay_steps)
        decayed = ops.power(ops.subtract(dt(1), p), dt(self.power))
        return ops.add(ops.multiply(initial - end, decayed), end)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)`.

    Args:
        initial_learning_rate: float, the learning rate at step 0.
        decay_steps: how often to apply the decay (> 0).
        decay_rate: float, the decay rate.
        staircase: if True, `step / decay_steps` is floored.
        name: name of the schedule. Defaults to "InverseTimeDecay".

    Returns:
        A callable giving the learning rate (0-d float tensor) for a step.

    Example:
        >>> lr = keras.optimizers.schedules.InverseTimeDecay(0.1, 1, 0.5)
        >>> round(float(lr(2)), 6)
        0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate,
                 staircase=False, name="InverseTimeDecay"):
        super().__init__()
        _check_decay_steps("decay_steps", decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        dt = _dtype_of(self.initial_learning_rate)
        p = _float_step(step, dt) / dt(self.decay_steps)
        if self.staircase:
            p = ops.floor(p)
        denom = ops.add(dt(1), ops.multiply(dt(self.decay_rate), p))
        return ops.divide(dt(self.initial_learning_rate), denom)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


def _cosine_decay(step, decay_steps, decay_from, alpha, dt):
    """`decay_from * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)`."""
    fraction = ops.divide(step, decay_steps)
    cosine = dt(0.5) * (dt(1) + ops.cos(ops.multiply(dt(math.pi), fraction)))
    decayed = dt(1 - alpha) * cosine + dt(alpha)
    return ops.multiply(decay_from, decayed)


class CosineDecay(LearningRateSchedule):
    """Cosine decay (SGDR without restarts), with an optional linear warmup.

    Without warmup: `initial * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)`
    with `s = min(step, decay_steps)`. With `warmup_target`, the rate first
    rises linearly from `initial_learning_rate` to `warmup_target` over
    `warmup_steps`, then decays from `warmup_target` over `decay_steps`.

    Args:
        initial_learning_rate: float, the learning rate at step 0.
        decay_steps: int > 0, steps to decay over.
        alpha: minimum learning rate as a fraction of the decay's start.
        name: name of the schedule. Defaults to "CosineDecay".
        warmup_target: float or None, the rate reached after warmup.
        warmup_steps: int, number of warmup steps.

    Returns:
        A callable giving the learning rate (0-d float tensor) for a step.

    Example:
        >>> lr = keras.optimizers.schedules.CosineDecay(0.1, 100)
        >>> round(float(lr(50)), 6)
        0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        super().__init__()
        _check_decay_steps("decay_steps", decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target

    def __call__(self, step):
        dt = _dtype_of(self.initial_learning_rate)
        initial = dt(self.initial_learning_rate)
        decay_steps = dt(self.decay_steps)
        step = _float_step(step, dt)
        if self.warmup_target is None:
            step = ops.minimum(step, decay_steps)
            return _cosine_decay(step, decay_steps, initial, self.alpha, dt)
        target, warmup_steps = dt(self.warmup_target), dt(self.warmup_steps)
        step = ops.minimum(step, decay_steps + warmup_steps)
        decayed = _cosine_decay(step - warmup_steps, decay_steps, target, self.alpha, dt)
        if self.warmup_steps <= 0:
            return decayed
        warmup = (target - initial) * (step / warmup_steps) + initial
        return ops.where(ops.less(step, warmup_steps), warmup, decayed)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter 2016).

    The multiplier decays from 1 to `alpha` over `first_decay_steps`; then
    the schedule restarts, each period `t_mul` times longer and starting
    from `m_mul` times the previous period's initial rate.

    Args:
        initial_learning_rate: float, the learning rate at step 0.
        first_decay_steps: int > 0, length of the first period.
        t_mul: float, period length factor. Defaults to 2.0.
        m_mul: float, initial rate factor per period. Defaults to 1.0.
        alpha: minimum learning rate as a fraction of `initial_learning_rate`.
        name: name of the schedule. Defaults to "SGDRDecay".

    Returns:
        A callable giving the learning rate (0-d float tensor) for a step.

    Example:
        >>> lr = keras.optimizers.schedules.CosineDecayRestarts(0.1, 10)
        >>> round(float(lr(10)), 6)   # first restart
        0.1
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        super().__init__()
        _check_decay_steps("first_decay_steps", first_decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def _restart(self, fraction, dt):
        """(restart index, fraction completed within the current period)."""
        t_mul = dt(self._t_mul)
        if t_mul == dt(1):
            i_restart = ops.floor(fraction)
            return i_restart, fraction - i_restart
        log_t_mul = dt(np.log(t_mul))
        i_restart = ops.floor(ops.log(dt(1) - fraction * (dt(1) - t_mul)) / log_t_mul)
        sum_r = ops.divide(dt(1) - ops.power(t_mul, i_restart), dt(1) - t_mul)
        return i_restart, ops.divide(fraction - sum_r, ops.power(t_mul, i_restart))

    def __call__(self, step):
        dt = _dtype_of(self.initial_learning_rate)
        alpha = dt(self.alpha)
        fraction = _float_step(step, dt) / dt(self.first_decay_steps)
        i_restart, fraction = self._restart(fraction, dt)
        m_fac = ops.power(dt(self._m_mul), i_restart)
        cosine = dt(0.5) * m_fac * (dt(1) + ops.cos(ops.multiply(dt(math.pi), fraction)))
        decayed = ops.add(ops.multiply(dt(1) - alpha, cosine), alpha)
        return ops.multiply(dt(self.initial_learning_rate), decayed)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul,
            "m_mul": self._m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


ALL_SCHEDULES = (ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay,
                 InverseTimeDecay, CosineDecay, CosineDecayRestarts)
_CATALOG = registry.ScheduleCatalog(
    "learning rate schedule", {cls.__name__: cls for cls in ALL_SCHEDULES},
    base=LearningRateSchedule, module="keras.optimizers.schedules", label="a LearningRateSchedule")


def serialize(learning_rate_schedule):
    """Returns a schedule's Keras-format config dict.

    Args:
        learning_rate_schedule: a `LearningRateSchedule` instance.

    Returns:
        dict: `{"module", "class_name", "config", "registered_name"}` as Keras.

    Example:
        >>> keras.optimizers.schedules.serialize(
        ...     keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9))["class_name"]
        'ExponentialDecay'
    """
    return _CATALOG.serialize(learning_rate_schedule)


def deserialize(config, custom_objects=None):
    """Re-creates a schedule from `serialize`'s output.

    Args:
        config: a dict with "class_name" and "config".
        custom_objects: optional dict mapping names to custom schedule classes.

    Returns:
        LearningRateSchedule: the schedule.

    Example:
        >>> s = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
        >>> keras.optimizers.schedules.deserialize(
        ...     keras.optimizers.schedules.serialize(s)).decay_rate
        0.9
    """
    return _CATALOG.deserialize(config, custom_objects)

