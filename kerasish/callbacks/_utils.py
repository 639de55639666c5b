"""Private helpers shared by the callbacks: console output and learning rates."""
import numpy as np

from kerasish.optimizers.schedules import LearningRateSchedule
from kerasish.utils.progbar import write

_SCHEDULE_LR_ERROR = (
    "This optimizer was created with a `LearningRateSchedule` object as its "
    "`learning_rate` constructor argument, hence its learning rate is not "
    "settable. If you need the learning rate to be settable, you should "
    "instantiate the optimizer with a float `learning_rate` argument."
)


def print_msg(message, line_break=True):
    """Writes `message` to stdout and flushes (Keras's `io_utils.print_msg`).

    Args:
        message: the text to print.
        line_break: whether to end it with a newline.
    """
    write(str(message) + ("\n" if line_break else ""))


def to_python_float(value):
    """A Python float from a number, numpy scalar, 0-d array or Tensor.

    Args:
        value: anything `float()` or `np.asarray` understands.

    Returns:
        The value as a Python float.
    """
    try:
        return float(value)
    except TypeError:
        return float(np.asarray(value))


def _is_schedule(value):
    """True for a learning-rate schedule (a callable that is not a Variable)."""
    if value is None or hasattr(value, "assign"):
        return False
    if isinstance(value, LearningRateSchedule):
        return True
    return callable(value) and not isinstance(value, (int, float, np.number))


def get_learning_rate(optimizer):
    """The optimizer's current learning rate as a Python float.

    A schedule is evaluated at `optimizer.iterations`, as Keras's
    `optimizer.learning_rate` property does.

    Args:
        optimizer: an optimizer with a `learning_rate` attribute.

    Returns:
        A float (`float32` variables give e.g. `0.0010000000474974513`).
    """
    if not hasattr(optimizer, "learning_rate"):
        raise ValueError('Optimizer must have a "learning_rate" attribute.')
    lr = optimizer.learning_rate
    if _is_schedule(lr):
        lr = lr(getattr(optimizer, "iterations", 0))
    return to_python_float(lr)


def set_learning_rate(optimizer, value):
    """Sets the optimizer's learning rate in place.

    Args:
        optimizer: an optimizer whose `learning_rate` is a Variable (assigned
            in place) or a plain attribute (replaced).
        value: the new learning rate (a float).

    Raises:
        TypeError: when the optimizer was built with a learning-rate schedule,
            with Keras's message.
    """
    if not hasattr(optimizer, "learning_rate"):
        raise ValueError('Optimizer must have a "learning_rate" attribute.')
    lr = optimizer.learning_rate
    if _is_schedule(lr) or _is_schedule(getattr(optimizer, "_learning_rate", None)):
        raise TypeError(_SCHEDULE_LR_ERROR)
    if hasattr(lr, "assign"):
        lr.assign(value)
    else:
        optimizer.learning_rate = value
