"""The `Metric` base class: state in non-trainable Variables on the device.

A metric accumulates statistics batch after batch with `update_state`,
reports them with `result()` (a Tensor, still on the device) and starts over
with `reset_state()`. Its state lives in `kerasish.Variable`s made by
`add_variable`, listed by `metric.variables` (saving reads them).
"""
from kerasish import initializers
from kerasish.autodiff.tensor import Variable, path_scopes
from kerasish.backend import config
from kerasish.ops import creation, elementwise
from kerasish.utils import naming


def _initial_value(initializer, shape, dtype):
    """The first value of a metric variable as a Tensor on the current device."""
    if not isinstance(initializer, str) and hasattr(initializer, "shape"):  # a starting value
        return creation.array(initializer, dtype=dtype)
    if initializer is None or initializer in ("zeros", "Zeros"):
        return creation.zeros(shape, dtype=dtype)
    if initializer in ("ones", "Ones"):
        return creation.ones(shape, dtype=dtype)
    if callable(initializer):
        return initializer(tuple(shape), dtype=dtype)
    return initializers.get(initializer)(tuple(shape), dtype=dtype)


def _snapshot(variable):
    """A copy of a variable's current value (assign writes in place)."""
    return elementwise.copy(variable.value)


def _leaves(value):
    """Items of (nested) lists, tuples and dicts, or the value itself."""
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    return [value]


class Metric:
    """Encapsulates a metric's state and logic.

    Subclasses create their state in `__init__` with `self.add_variable(...)`,
    update it in `update_state` with `assign`/`assign_add`, and compute the
    value in `result()`.

    Args:
        dtype: dtype of the state and result (default `floatx()`).
        name: the metric name (a snake-case class name by default).

    Example:
        >>> class Total(keras.metrics.Metric):
        ...     def __init__(self, name="total", **kwargs):
        ...         super().__init__(name=name, **kwargs)
        ...         self.total = self.add_variable((), "zeros", name="total")
        ...     def update_state(self, values):
        ...         self.total.assign_add(keras.ops.sum(values))
        ...     def result(self):
        ...         return keras.ops.convert_to_tensor(self.total)
        >>> m = Total()
        >>> float(m([1.0, 2.0]))
        3.0
    """

    def __init__(self, dtype=None, name=None):
        self.name = name or naming.auto_name(type(self).__name__)
        self._dtype = config.standardize_dtype(getattr(dtype, "compute_dtype", dtype)
                                               or config.floatx())
        self._variables = []
        self._metrics = []

    @property
    def dtype(self):
        """The dtype of the state and result, e.g. "float32"."""
        return self._dtype

    @property
    def variables(self):
        """The state variables: this metric's, Variables assigned as attributes (also
        inside lists/dicts), then those of inner metrics (also inside lists/dicts)."""
        out = list(self._variables)
        seen = {id(v) for v in out}
        metrics = list(self._metrics)
        for name, value in vars(self).items():
            if name.startswith("_"):
                continue
            for leaf in _leaves(value):
                if isinstance(leaf, Variable) and id(leaf) not in seen:
                    seen.add(id(leaf))
                    out.append(leaf)
                elif isinstance(leaf, Metric) and all(leaf is not m for m in metrics):
                    metrics.append(leaf)
        for metric in metrics:
            out.extend(v for v in metric.variables if id(v) not in seen)
        return out

    def stateless_update_state(self, metric_variables, *args, **kwargs):
        """`update_state` on the given state values; the metric's own state is unchanged.

        Args:
            metric_variables: one value per `self.variables`.
            *args, **kwargs: `update_state`'s arguments.

        Returns:
            list of the updated state values (Tensors).
        """
        return self._with_state(metric_variables,
                                lambda: (self.update_state(*args, **kwargs), None)[1])[1]

    def stateless_result(self, metric_variables):
        """`result()` computed from the given state values (the metric is unchanged)."""
        return self._with_state(metric_variables, self.result)[0]

    def stateless_reset_state(self):
        """The state values `reset_state()` would give, without changing the metric."""
        return self._with_state([_snapshot(v) for v in self.variables],
                                lambda: (self.reset_state(), None)[1])[1]

    def _with_state(self, values, fn):
        variables = self.variables
        if len(values) != len(variables):
            raise ValueError(f"{type(self).__name__}: expected {len(variables)} state values "
                             f"(one per metric variable), received {len(values)}.")
        saved = [_snapshot(v) for v in variables]
        try:
            for variable, value in zip(variables, values):
                variable.assign(value)
            result = fn()
            return result, [_snapshot(v) for v in variables]
        finally:
            for variable, value in zip(variables, saved):
                variable.assign(value)

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="sum", name=None):
        """Creates a non-trainable state Variable on the current device.

        Args:
            shape: the variable's shape.
            initializer: "zeros" (default), "ones", an initializer or a callable
                `(shape, dtype) -> value`.
            dtype: its dtype (default: the metric's dtype).
            aggregation: how replicas combine it ("sum" by default).
            name: a short name, e.g. "total".

        Returns:
            The `Variable`.
        """
        self._check_super_called()
        dtype = dtype or self.dtype
        shape = tuple(int(n) for n in shape)
        value = _initial_value(initializer, shape, dtype)
        variable = Variable(value, dtype=dtype, trainable=False, aggregation=aggregation,
                            name=name)
        # inside a layer's build/call the path starts with its scope, as Keras's name_scope
        variable.path = "/".join(path_scopes() + [self.name.replace("/", ">"), variable.name])
        self._variables.append(variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """Alias of `add_variable` kept for backward compatibility."""
        return self.add_variable(shape, initializer, dtype=dtype, name=name)

    def __setattr__(self, name, value):
        # Inner metrics assigned as attributes contribute their variables.
        if isinstance(value, Metric) and "_metrics" in self.__dict__ \
                and all(value is not m for m in self._metrics):
            self._metrics.append(value)
        super().__setattr__(name, value)

    def update_state(self, *args, **kwargs):
        """Accumulates statistics; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement `update_state`.")

    def result(self):
        """The current value (a Tensor, or a dict of Tensors); subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement `result`.")

    def reset_state(self):
        """Sets every state variable back to zero."""
        for variable in self.variables:
            variable.assign(0)

    def __call__(self, *args, **kwargs):
        """`update_state(*args, **kwargs)` then `result()`."""
        self._check_super_called()
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        """The constructor arguments as a dict."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config_dict):
        """Rebuilds a metric from `get_config()`'s output."""
        return cls(**config_dict)

    def _check_super_called(self):
        if "_variables" not in self.__dict__:
            raise RuntimeError(
                f"{type(self).__name__}: you forgot to call `super().__init__()` in "
                "`__init__()`."
            )

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__
