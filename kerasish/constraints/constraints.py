"""Weight constraints (`keras.constraints`): projections applied after each update."""
from kerasish import ops
from kerasish.backend import config


class Constraint:
    """Base class: `constraint(w)` returns the projected weight (the identity here).

    The optimizer assigns the result back to the variable after each update.

    Example:
        >>> class NonNegative(keras.constraints.Constraint):
        ...     def __call__(self, w):
        ...         return keras.ops.maximum(w, 0.0)
    """

    def __call__(self, w):
        """Returns the projection of `w` (unchanged for the base class).

        Args:
            w: weight tensor.

        Returns:
            Tensor of the same shape.
        """
        return w

    def get_config(self):
        """Returns the constructor arguments as a dict.

        Returns:
            dict (empty for argument-free constraints).
        """
        return {}

    @classmethod
    def from_config(cls, config):
        """Rebuilds a constraint from `get_config()`'s output.

        Args:
            config: dict of constructor arguments.

        Returns:
            A new instance.
        """
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _axis(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def _norms(w, axis):
    """L2 norms of `w` along `axis`, keeping dims."""
    return ops.sqrt(ops.sum(ops.square(w), axis=_axis(axis), keepdims=True))


def _rescale(w, norms, desired):
    """`w * desired / (epsilon + norms)`, Keras's epsilon placement."""
    return ops.multiply(w, ops.divide(desired, ops.add(norms, config.epsilon())))


class MaxNorm(Constraint):
    """Rescales slices along `axis` whose L2 norm exceeds `max_value`.

    `w * clip(norm, 0, max_value) / (epsilon + norm)`.

    Args:
        max_value: largest allowed norm (2).
        axis: axis or axes the norm is taken over (0: each column of a
            Dense kernel; [0, 1, 2] for each Conv2D filter).

    Example:
        >>> keras.constraints.MaxNorm(1.0)(keras.ops.convert_to_tensor([[3.0], [4.0]]))
        # [[0.6], [0.8]]
    """

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = ops.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        return _rescale(w, norms, ops.clip(norms, 0.0, self.max_value))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Sets negative weights to 0: `maximum(w, 0)`.

    Example:
        >>> keras.constraints.NonNeg()(keras.ops.convert_to_tensor([-1.0, 2.0]))   # [0., 2.]
    """

    def __call__(self, w):
        return ops.maximum(ops.convert_to_tensor(w), 0.0)


class UnitNorm(Constraint):
    """Scales slices along `axis` to unit L2 norm: `w / (epsilon + norm)`.

    Args:
        axis: axis or axes the norm is taken over (0).

    Example:
        >>> keras.constraints.UnitNorm()(keras.ops.convert_to_tensor([[3.0], [4.0]]))
        # [[0.6], [0.8]]
    """

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = ops.convert_to_tensor(w)
        return ops.divide(w, ops.add(_norms(w, self.axis), config.epsilon()))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves slice norms along `axis` into [min_value, max_value] at `rate`.

    desired = rate * clip(norm, min_value, max_value) + (1 - rate) * norm;
    result = `w * desired / (epsilon + norm)`.

    Args:
        min_value: smallest allowed norm (0.0).
        max_value: largest allowed norm (1.0).
        rate: 1.0 enforces strictly; smaller values move part of the way.
        axis: axis or axes the norm is taken over (0).

    Example:
        >>> keras.constraints.MinMaxNorm(1.0, 2.0)(keras.ops.convert_to_tensor([[0.3], [0.4]]))
        # [[0.6], [0.8]]
    """

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = ops.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = ops.clip(norms, self.min_value, self.max_value)
        desired = ops.add(ops.multiply(clipped, self.rate), ops.multiply(norms, 1 - self.rate))
        return _rescale(w, norms, desired)

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value,
                "rate": self.rate, "axis": self.axis}
