"""The `Initializer` base class (`keras.initializers.Initializer`)."""


class Initializer:
    """Base class of all initializers: `init(shape, dtype=None) -> Tensor`.

    Subclasses implement `__call__` and, when their constructor takes
    arguments, `get_config` (the default `from_config` calls `cls(**config)`).

    Example:
        >>> class Halves(keras.initializers.Initializer):
        ...     def __call__(self, shape, dtype=None):
        ...         return keras.ops.full(shape, 0.5, dtype=dtype)
        >>> Halves()((2, 2)).numpy()   # [[0.5, 0.5], [0.5, 0.5]]
    """

    def __call__(self, shape, dtype=None):
        """Returns a Tensor of `shape` and `dtype` (floatx when None).

        Args:
            shape: tuple of ints.
            dtype: dtype name or None.

        Returns:
            Tensor.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement `__call__(shape, dtype=None)`."
        )

    def get_config(self):
        """Returns the constructor arguments as a JSON-friendly dict.

        Returns:
            dict (empty for argument-free initializers).
        """
        return {}

    @classmethod
    def from_config(cls, config):
        """Rebuilds an initializer from `get_config()`'s output.

        Args:
            config: dict of constructor arguments.

        Returns:
            A new instance.

        Example:
            >>> init = RandomUniform.from_config({"minval": -1.0, "maxval": 1.0, "seed": None})
        """
        return cls(**config)

    def clone(self):
        """Returns a new instance with the same config."""
        return self.__class__.from_config(self.get_config())

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"
