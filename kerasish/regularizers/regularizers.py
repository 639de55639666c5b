"""Weight penalties (`keras.regularizers`): L1, L2, L1L2, OrthogonalRegularizer."""
import math
import numbers

from kerasish import ops


def validate_float_arg(value, name):
    """Checks that a penalty factor is a finite non-negative number.

    Args:
        value: the factor.
        name: the argument name, for the error message.

    Returns:
        float(value).

    Example:
        >>> validate_float_arg(0.01, "l2")
        0.01
    """
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value < 0):
        raise ValueError(
            f"Invalid value for argument {name}: expected a non-negative float. "
            f"Received: {name}={value!r}"
        )
    return float(value)


class Regularizer:
    """Base class: `penalty = regularizer(weight)` returns a scalar Tensor.

    A layer adds the penalties of its weights to `layer.losses`; any
    function `weight -> scalar` works as a regularizer too.

    Example:
        >>> class Sum(keras.regularizers.Regularizer):
        ...     def __call__(self, x):
        ...         return keras.ops.sum(x)
    """

    def __call__(self, x):
        """Returns the penalty of `x` (0.0 for the base class).

        Args:
            x: weight tensor.

        Returns:
            Scalar Tensor.
        """
        return ops.convert_to_tensor(0.0)

    def get_config(self):
        """Returns the constructor arguments as a dict.

        Returns:
            dict.
        """
        raise NotImplementedError(f"{self!r} does not implement get_config()")   # Keras's text

    @classmethod
    def from_config(cls, config):
        """Rebuilds a regularizer from `get_config()`'s output.

        Args:
            config: dict of constructor arguments.

        Returns:
            A new instance.
        """
        return cls(**config)

    def __repr__(self):
        if type(self).get_config is Regularizer.get_config:   # no config: Python's default
            return object.__repr__(self)
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _factor(factor, dtype):
    """Keras's `ops.cast(factor, x.dtype)`: TensorFlow first makes a Python float a
    float32 tensor, so a float64 weight is penalised by float32(factor)."""
    return ops.cast(ops.convert_to_tensor(factor, dtype="float32"), dtype)


def _l1_penalty(x, factor):
    x = ops.convert_to_tensor(x)
    return ops.multiply(_factor(factor, x.dtype), ops.sum(ops.absolute(x)))


def _l2_penalty(x, factor):
    x = ops.convert_to_tensor(x)
    return ops.multiply(_factor(factor, x.dtype), ops.sum(ops.square(x)))


class L1(Regularizer):
    """`l1 * sum(abs(x))`.

    Args:
        l1: non-negative factor (0.01; None also means 0.01).

    Example:
        >>> keras.regularizers.L1(0.1)(keras.ops.ones((2, 2)))   # 0.4
    """

    def __init__(self, l1=0.01):
        validate_float_arg(0.01 if l1 is None else l1, name="l1")
        # Keras keeps L1's factor (only L1's) as a float32 tensor: a float64 weight is
        # penalised by float32(l1), and get_config reads 0.009999999776482582 back
        self.l1 = ops.convert_to_tensor(0.01 if l1 is None else l1)

    def __call__(self, x):
        return _l1_penalty(x, self.l1)

    def get_config(self):
        return {"l1": float(self.l1)}


class L2(Regularizer):
    """`l2 * sum(square(x))` (no factor 1/2, as Keras).

    Args:
        l2: non-negative factor (0.01; None also means 0.01).

    Example:
        >>> keras.regularizers.L2(2.0)(keras.ops.ones((5, 5)))   # 50.0
    """

    def __init__(self, l2=0.01):
        self.l2 = validate_float_arg(0.01 if l2 is None else l2, name="l2")

    def __call__(self, x):
        return _l2_penalty(x, self.l2)

    def get_config(self):
        return {"l2": self.l2}


class L1L2(Regularizer):
    """`l1 * sum(abs(x)) + l2 * sum(square(x))`.

    Args:
        l1: non-negative L1 factor (0.0).
        l2: non-negative L2 factor (0.0).

    Example:
        >>> keras.regularizers.L1L2(l1=0.1, l2=0.2)(keras.ops.ones((2,)))   # 0.6
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = validate_float_arg(0.0 if l1 is None else l1, name="l1")
        self.l2 = validate_float_arg(0.0 if l2 is None else l2, name="l2")

    def __call__(self, x):
        x = ops.convert_to_tensor(x)
        penalty = ops.zeros((), dtype=x.dtype)
        if self.l1:
            penalty = ops.add(penalty, _l1_penalty(x, self.l1))
        if self.l2:
            penalty = ops.add(penalty, _l2_penalty(x, self.l2))
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Penalises non-orthogonal rows (or columns) of a 2-D weight.

    `factor * 0.5 * sum(|P - diag(P)|) / (n (n - 1) / 2)` where `P` is the
    Gram matrix of the L2-normalised rows (mode "rows") or columns
    (mode "columns") and `n` their number.

    Args:
        factor: non-negative factor (0.01).
        mode: "rows" (default) or "columns".

    Example:
        >>> reg = keras.regularizers.OrthogonalRegularizer(factor=0.01)
        >>> reg(keras.ops.eye(3))   # 0.0
    """

    def __init__(self, factor=0.01, mode="rows"):
        validate_float_arg(factor, name="factor")
        # Keras keeps the factor as a float32 tensor: get_config reads it back rounded.
        self.factor = ops.convert_to_tensor(factor)
        if mode not in ("rows", "columns"):
            raise ValueError(
                'Invalid value for argument `mode`. Expected one of {"rows", "columns"}. '
                f"Received: mode={mode}"
            )
        self.mode = mode

    def __call__(self, inputs):
        inputs = ops.convert_to_tensor(inputs)
        if len(inputs.shape) != 2:
            raise ValueError(
                "Inputs to OrthogonalRegularizer must have rank 2. "
                f"Received: inputs.shape={tuple(inputs.shape)}"
            )
        if self.mode == "rows":
            unit = ops.normalize(inputs, axis=1)
            product, size = ops.matmul(unit, ops.transpose(unit)), inputs.shape[0]
        else:
            unit = ops.normalize(inputs, axis=0)
            product, size = ops.matmul(ops.transpose(unit), unit), inputs.shape[1]
        off_diagonal = ops.multiply(product, ops.subtract(1.0, ops.eye(size, dtype=inputs.dtype)))
        num_pairs = size * (size - 1.0) / 2.0
        penalty = ops.multiply(ops.multiply(self.factor, 0.5), ops.sum(ops.absolute(off_diagonal)))
        return ops.divide(penalty, num_pairs)

    def get_config(self):
        return {"factor": float(self.factor), "mode": self.mode}
