"""`keras.StatelessScope`: run code without changing any Variable.

Inside a scope, a variable named in `state_mapping` reads as its mapped value,
and every assignment (`assign`, `assign_add`, `assign_sub`, an optimizer's
update) goes to a copy held by the scope: the variables' own arrays are never
written. On exit each variable gets its own array back, and the values it had
at the end of the scope are read with `scope.get_current_value(variable)`.
"""
import numpy as np

from kerasish.autodiff import tensor as _tensor
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend import config


class StatelessScope:
    """Scope that prevents any update to Variables (Keras 3's `StatelessScope`).

    Args:
        state_mapping: optional list of `(variable, value)` pairs: inside the
            scope the variable reads as `value` (cast to its dtype; the shapes
            must match).
        collect_losses: if True, losses added with `layer.add_loss` inside the
            scope are collected in `scope.losses` (they are never added to the
            layers).
        initialize_variables: accepted for Keras compatibility (kerasish
            variables are always initialized when created).

    Example:
        >>> v = keras.Variable(1.0)
        >>> with keras.StatelessScope([(v, 5.0)]) as scope:
        ...     v.assign_add(1.0)
        ...     float(v)
        6.0
        >>> float(v), float(scope.get_current_value(v))
        (1.0, 6.0)
    """

    def __init__(self, state_mapping=None, collect_losses=False, initialize_variables=True):
        self.collect_losses = collect_losses
        self.initialize_variables = initialize_variables
        self.losses = []
        self.state_mapping = {}
        self._variables = {}   # id -> the Variable (for the mapping's keys)
        self._originals = {}   # id -> (variable, its own array) while the scope is active
        self._active = False
        for k, v in state_mapping or ():
            if not isinstance(k, Variable):
                raise ValueError(
                    "Invalid reference variable in StatelessScope: all keys in argument "
                    f"`mapping` must be Variable instances. Received instead: {k}")
            array = _as_array(v, k)
            if tuple(array.shape) != tuple(k.shape):
                raise ValueError(
                    "Invalid variable value in StatelessScope: all values in argument "
                    "`mapping` must be tensors with a shape that matches the corresponding "
                    f"variable shape. For variable {k!r}, received invalid value {v} with shape "
                    f"{tuple(array.shape)}.")
            self.state_mapping[id(k)] = array
            self._variables[id(k)] = k

    def __enter__(self):
        self.original_scope = get_stateless_scope()
        _tensor._stateless.scope = self
        self._active = True
        for key, variable in self._variables.items():
            self._swap_in(variable, self.state_mapping[key])
        return self

    def __exit__(self, *exc):
        for key, (variable, own) in reversed(list(self._originals.items())):
            self.state_mapping[key] = variable._value
            self._variables[key] = variable
            variable._value = own
        self._originals.clear()
        self._active = False
        _tensor._stateless.scope = self.original_scope
        return False

    def add_loss(self, loss):
        """Collects a loss (layers call it when `collect_losses` is True)."""
        self.losses.append(loss)

    def add_update(self, update):
        """Records `(variable, value)` as the variable's current value in the scope."""
        variable, value = update
        array = _as_array(value, variable)
        self.state_mapping[id(variable)] = array
        self._variables[id(variable)] = variable
        if self._active:
            self._swap_in(variable, array)

    def get_current_value(self, variable):
        """The variable's value in the scope (mapped or assigned), or None.

        Args:
            variable: a `Variable`.

        Returns:
            A Tensor, or None if the scope neither mapped nor updated it.
        """
        key = id(variable)
        if key in self._originals:
            return Tensor(variable._value.copy(), variable._device)
        array = self.state_mapping.get(key)
        return None if array is None else Tensor(array, variable._device)

    def _protect(self, variable):
        """Gives `variable` a private copy of its current value before it is written."""
        if id(variable) not in self._originals:
            self._swap_in(variable, variable._value.copy())

    def _swap_in(self, variable, array):
        key = id(variable)
        if key not in self._originals:
            self._originals[key] = (variable, variable._value)
        variable._value = array if array is not self._originals[key][1] else array.copy()


def _as_array(value, variable):
    """`value` as an array of `variable`'s dtype on its device (a fresh copy)."""
    dtype = config.to_numpy_dtype(variable.dtype)
    if isinstance(value, Tensor):
        array = value._value if value._device is variable._device \
            else variable._device.send(value._value)
        return array.astype(dtype, copy=True)
    host = np.asarray(value, dtype=dtype)
    return variable._device.send(np.array(host, copy=True))


def in_stateless_scope():
    """True inside a `StatelessScope`."""
    return get_stateless_scope() is not None


def get_stateless_scope():
    """The innermost active `StatelessScope`, or None."""
    return getattr(_tensor._stateless, "scope", None)


def protect(variables):
    """Inside a `StatelessScope`, gives each variable a private copy before code that
    writes arrays in place (an optimizer's fused update); outside, does nothing."""
    scope = get_stateless_scope()
    if scope is not None:
        for variable in variables:
            scope._protect(variable)
