"""Tensor (an immutable array on a device) and Variable (mutable state).

Python operators (`+`, `@`, `[]`, `<`, ...) are attached by
`kerasish.ops._operators` so that they dispatch to differentiable ops.
"""
import threading

import numpy as np

from kerasish.autodiff.keras_tensor import in_trace
from kerasish.backend import config, devices as _device
from kerasish.utils import naming

# The active `StatelessScope` (kerasish.autodiff.stateless_scope sets it): while one is
# active, assignments go to the scope's copies, never to the variables' own arrays.
_stateless = threading.local()
_scopes = threading.local()


def path_scopes():
    """This thread's name-scope stack, outermost first (the mutable list itself).

    Layers push their names while they build and run, `keras.name_scope`
    pushes its name; a Variable made inside gets the joined scopes as its
    path prefix (`encoder/dense/my_var`), as Keras's `current_path()`.

    Returns:
        list of str.
    """
    scopes = getattr(_scopes, "stack", None)
    if scopes is None:
        scopes = _scopes.stack = []
    return scopes


class DTypeName(str):
    """A tensor's dtype: the name ("float32"), equal to and used as that string,
    but printed as TensorFlow's `tf.DType` (`<dtype: 'float32'>`, repr `tf.float32`),
    which is what a Keras program on the TensorFlow backend prints for `x.dtype`."""

    __slots__ = ()

    @property
    def name(self):
        return str.__str__(self)

    def __str__(self):
        return f"<dtype: '{str.__str__(self)}'>"

    def __repr__(self):
        return f"tf.{str.__str__(self)}"

    def __format__(self, spec):
        return format(str(self), spec)

    def __reduce__(self):
        return (str, (str.__str__(self),))

    def __eq__(self, other):
        if isinstance(other, str) or other is None:
            return str.__eq__(self, other)
        try:   # as tf.DType's: a numpy dtype or scalar type compares by its name
            return str.__eq__(self, np.dtype(other).name)
        except Exception:  # noqa: BLE001 - not a dtype at all
            return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__


_DTYPES = {}


def _encoded_strings(array):
    """A numpy unicode array as tf.string's numpy form: an object array of bytes."""
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    flat[:] = [s.encode("utf-8") for s in array.reshape(-1).tolist()]
    return out


class TensorShape(tuple):
    """A tensor's or variable's shape: a tuple of ints, printed as TensorFlow's
    `tf.TensorShape` (repr `TensorShape([2, 3])`, str `(2, 3)`), which is what a
    Keras program on the TensorFlow backend gets for `x.shape` of an eager
    tensor or a variable (a KerasTensor's shape stays a plain tuple).

    Slicing and `+` give TensorShapes; `as_list`, `rank`, `ndims`,
    `num_elements`, `is_fully_defined` and `concatenate` work as TensorFlow's;
    it equals the tuple (or list) of its dims.

    Example:
        >>> s = keras.ops.ones((2, 3)).shape
        >>> s, str(s), s == (2, 3), s.as_list()
        (TensorShape([2, 3]), '(2, 3)', True, [2, 3])
    """

    __slots__ = ()

    def __repr__(self):
        return f"TensorShape({list(self)!r})"

    def __str__(self):
        return tuple.__repr__(self)

    def __format__(self, spec):
        return format(str(self), spec)

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return TensorShape(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return TensorShape(tuple(self) + tuple(other))

    def __radd__(self, other):
        return TensorShape(tuple(other) + tuple(self))

    def __eq__(self, other):
        return tuple.__eq__(self, tuple(other) if isinstance(other, list) else other)

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__

    def __reduce__(self):
        return (tuple, (tuple(self),))

    @property
    def rank(self):
        return len(self)

    ndims = rank

    def as_list(self):
        return list(self)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self:
            n *= d
        return n

    def is_fully_defined(self):
        return all(d is not None for d in self)

    def concatenate(self, other):
        return self + other


class Tensor:
    """An array (numpy or cupy) on a device, recorded by GradientTape when watched.

    Tensors are treated as immutable: ops return new tensors. Use
    `ops.convert_to_tensor` to make one from Python or numpy data.

    Args:
        value: a numpy or cupy array.
        device: the `Device` that owns it (derived from the array if None).

    Example:
        >>> t = keras.ops.convert_to_tensor([[1.0, 2.0]])
        >>> t.shape, t.dtype
        (TensorShape([1, 2]), tf.float32)
    """

    # `_indexed_slices`: set only on a lookup's gradient (see indexed_slices.py);
    # `_keras_logits`: only on a softmax's or sigmoid's output (see ops/crossentropy.py).
    __slots__ = ("_value", "_device", "_keras_mask", "_indexed_slices", "_keras_logits",
                 "__weakref__")
    __array_priority__ = 100  # numpy defers `ndarray + Tensor` to Tensor.__radd__
    __hash__ = object.__hash__  # by identity, although `==` is elementwise

    def __init__(self, value, device=None):
        self._value = value
        self._device = device or _device.device_of_array(value)
        self._keras_mask = None

    # Properties -----------------------------------------------------------
    @property
    def value(self):
        """The raw backend array (numpy or cupy)."""
        return self._value

    @property
    def shape(self):
        """The shape: a tuple of ints (a `TensorShape`, printed as TensorFlow's)."""
        return TensorShape(self._value.shape)

    @property
    def dtype(self):
        """The dtype's canonical name, e.g. "float32" (a `str`; it prints as
        TensorFlow's `<dtype: 'float32'>`, as Keras's tensors do)."""
        name = config.standardize_dtype(self._value.dtype)
        try:
            return _DTYPES[name]
        except KeyError:
            return _DTYPES.setdefault(name, DTypeName(name))

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def size(self):
        return self._value.size

    @property
    def device(self):
        """The name of the device that holds this tensor, e.g. "cpu:0"."""
        return self._device.name

    # Conversions ----------------------------------------------------------
    def numpy(self):
        """Returns the value as a numpy array (copied from the GPU if needed).

        String tensors give what a TensorFlow string tensor gives: an object
        array of UTF-8 `bytes` (a `bytes` object for a scalar)."""
        array = _device.to_host(self._value)
        if array.dtype.kind == "U":
            encoded = _encoded_strings(array)
            return encoded.item() if encoded.ndim == 0 else encoded
        return array

    def __array__(self, dtype=None, copy=None):
        array = _device.to_host(self._value)
        if array.dtype.kind == "U":
            array = _encoded_strings(array)
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array

    def _host(self):
        """The raw value on the host (strings as numpy unicode)."""
        return _device.to_host(self._value)

    def item(self):
        value = self.numpy()
        return value if isinstance(value, bytes) else value.item()

    def tolist(self):
        value = self.numpy()
        return value if isinstance(value, bytes) else value.tolist()

    def __float__(self):
        return float(self._host())

    def __int__(self):
        return int(self._host())

    def __index__(self):
        if not config.is_int_dtype(self.dtype):
            raise TypeError(
                f"Only integer tensors can be used as an index; got dtype {self.dtype}."
            )
        return int(self._host())

    def __bool__(self):
        if self._value.size != 1:
            raise ValueError(
                f"The truth value of a tensor with shape {self.shape} is ambiguous. "
                "Use ops.any() or ops.all()."
            )
        return bool(self._host())

    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("len() of a 0-d tensor (a scalar).")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("Iteration over a 0-d tensor (a scalar).")
        for i in range(self._value.shape[0]):
            yield self[i]

    # print(), repr() and f"{}" give the text Keras's TensorFlow backend prints
    # (`tf.Tensor(...)`), so that programs print the same under both.
    def __repr__(self):
        array = _as_printed(self._host())
        text = repr(array.item()) if array.ndim == 0 else repr(array)
        if "\n" in text:
            text = "\n" + text
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={text}>"

    def __str__(self):
        text = str(_as_printed(self._host()))
        if "\n" in text:
            text = "\n" + text
        return f"tf.Tensor({text}, shape={self.shape}, dtype={self.dtype.name})"

    def __format__(self, spec):
        if self._value.ndim == 0:
            return format(self._host().item(), spec)
        return self._host().__format__(spec)

    def __reduce__(self):  # pickling moves data to the host
        return (_rebuild_tensor, (self._host(),))


def _as_printed(array):
    """String arrays print as TensorFlow's: bytes in an object array."""
    if array.dtype.kind not in "US":
        return array
    flat = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in array.reshape(-1)]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(array.shape)


def _rebuild_tensor(array):
    dev = _device.current_device()
    return Tensor(dev.send(array), dev)


class Variable(Tensor):
    """Mutable state owned by a layer or optimizer, usable wherever a Tensor is.

    `assign`, `assign_add` and `assign_sub` update the array in place, so
    references held by optimizers and views stay valid. Trainable variables
    are watched automatically by an active `GradientTape`.

    Args:
        initializer: initial value (array, number, Tensor) or an initializer
            (callable taking `shape` and `dtype`). A string name works once
            `kerasish.initializers` is imported (it installs the name lookup).
        shape: the shape; required when `initializer` is a callable.
        dtype: dtype name; defaults to the dtype of an array or tensor `initializer`
            (as Keras: `np.ones(2)` gives float64), else `floatx()` for Python floats
            and int32 for Python ints.
        trainable: whether gradients are computed for it and optimizers update it.
        name: a short name, e.g. "kernel".
        constraint: optional callable applied after each optimizer update.
        aggregation: how replicas combine it ("none", "mean", "sum", "only_first_replica").

    Attributes:
        overwrite_with_gradient: when True, optimizers set the variable to its
            gradient instead of updating it (Keras's float8 scale bookkeeping);
            False by default.

    Example:
        >>> v = keras.Variable(3.0)
        >>> v.assign_add(1.0)
        >>> float(v)
        4.0
    """

    __slots__ = ("trainable", "name", "path", "constraint", "regularizer",
                 "aggregation", "synchronization", "autocast", "_layout",
                 "_replicas", "overwrite_with_gradient")

    def __init__(self, initializer, shape=None, dtype=None, trainable=True,
                 autocast=True, aggregation="none", synchronization="auto",
                 name=None, constraint=None):
        dev = _device.current_device()
        array = _initial_array(initializer, shape, dtype, dev)
        super().__init__(array, dev)
        self.trainable = bool(trainable)
        self.name = name or naming.auto_name("variable")
        scopes = path_scopes()
        self.path = "/".join(scopes + [self.name]) if scopes else self.name
        self.constraint = constraint
        self.regularizer = None
        self.aggregation = aggregation
        self.synchronization = synchronization
        self.autocast = autocast
        self.overwrite_with_gradient = False
        self._layout = None
        self._replicas = None

    @property
    def dtype(self):
        """The dtype's name, a plain `str` (Keras's variables print "float32")."""
        return config.standardize_dtype(self._value.dtype)

    def numpy(self):
        """Returns a copy of the current value as a numpy array."""
        return np.array(_device.to_host(self._value), copy=True)

    def __array__(self, dtype=None, copy=None):
        return np.array(self.numpy(), dtype=dtype)

    def _new_array(self, value, op):
        if isinstance(value, Tensor):
            array = value._value if value._device is self._device else self._device.send(value._value)
        else:
            host = _device.to_host(value) if _device.is_array(value) else np.asarray(value)
            array = self._device.send(host)
        if array.shape != self._value.shape:
            try:
                array = self._device.xp.broadcast_to(array, self._value.shape)
            except ValueError:
                raise ValueError(
                    f"Variable.{op}: value of shape {tuple(array.shape)} does not "
                    f"match variable '{self.path}' of shape {self.shape}."
                ) from None
        return array

    def assign(self, value):
        """Sets the value in place (cast to this variable's dtype). Returns self."""
        if in_trace():  # tracing an output spec: Keras's stateless scope drops updates
            return self
        self._protect()
        self._value[...] = self._new_array(value, "assign")
        return self

    def assign_add(self, delta):
        """Adds `delta` in place. Returns self."""
        if in_trace():  # tracing an output spec: Keras's stateless scope drops updates
            return self
        self._protect()
        self._value += self._new_array(delta, "assign_add").astype(self._value.dtype, copy=False)
        return self

    def assign_sub(self, delta):
        """Subtracts `delta` in place. Returns self."""
        if in_trace():  # tracing an output spec: Keras's stateless scope drops updates
            return self
        self._protect()
        self._value -= self._new_array(delta, "assign_sub").astype(self._value.dtype, copy=False)
        return self

    def _protect(self):
        """Inside a `StatelessScope`, makes the writes that follow go to the scope's copy."""
        scope = getattr(_stateless, "scope", None)
        if scope is not None:
            scope._protect(self)

    def _direct_set(self, array):
        """Replaces the backing array (used when moving between devices)."""
        self._value = array
        self._device = _device.device_of_array(array)

    def __repr__(self):
        return (f"<Variable path={self.path}, shape={self.shape}, "
                f"dtype={self.dtype}, value={self.numpy()}>")

    # Keras's variables define only __repr__, so print(v) and f"{v}" show it.
    __str__ = __repr__

    def __format__(self, spec):
        return repr(self) if not spec else super().__format__(spec)

    def __reduce__(self):
        return (_rebuild_variable, (self.numpy(), self.trainable, self.name))


def _rebuild_variable(array, trainable, name):
    return Variable(array, trainable=trainable, name=name)


_initializer_lookup = []  # [fn(name) -> initializer], installed by kerasish.initializers


def set_initializer_lookup(lookup):
    """Installs how `Variable` resolves a string initializer (done by `kerasish.initializers`).

    Name resolution lives above autodiff; this keeps `Variable("zeros", shape)`
    working without autodiff importing the initializers.

    Args:
        lookup: fn(name) -> initializer callable.
    """
    _initializer_lookup[:] = [lookup]


def _resolve_initializer(initializer):
    if isinstance(initializer, str):
        if not _initializer_lookup:
            raise ValueError(
                f"Variable: the initializer name {initializer!r} needs kerasish.initializers "
                "(import kerasish); or pass an initializer callable.")
        return _initializer_lookup[0](initializer)
    return initializer() if isinstance(initializer, type) else initializer


def _initial_array(initializer, shape, dtype, dev):
    """Materialises a Variable's first value on `dev`."""
    if isinstance(initializer, str) or (callable(initializer) and not isinstance(initializer, Tensor)):
        init = _resolve_initializer(initializer)
        if shape is None:
            raise ValueError(
                "Variable: `shape` is required when `initializer` is a callable "
                f"or a name. Received initializer={initializer!r}"
            )
        dtype = config.standardize_dtype(dtype)
        with _device.device(dev):
            value = init(tuple(shape), dtype=dtype)
        array = value._value if isinstance(value, Tensor) else dev.send(value)
        return array.astype(config.to_numpy_dtype(dtype), copy=False)
    if isinstance(initializer, Tensor):
        array = dev.send(initializer._value)
    else:
        array = dev.send(np.asarray(initializer))
    if dtype is None and hasattr(initializer, "dtype"):
        # Keras: an array or tensor keeps its dtype (np.ones(2) gives float64)
        dtype = config.standardize_dtype(array.dtype)
    elif dtype is None:  # Python numbers and lists: floatx / int32
        dtype = (config.floatx() if array.dtype.kind in "fc"
                 else config.standardize_dtype(array.dtype))
        if array.dtype.kind == "i" and array.dtype.itemsize == 8:
            dtype = "int32"
    array = array.astype(config.to_numpy_dtype(dtype), copy=True)
    if shape is not None and tuple(shape) != array.shape:
        raise ValueError(
            f"Variable: initial value has shape {array.shape} but shape={tuple(shape)} was given."
        )
    return array
