"""Lambda: wraps an arbitrary expression as a layer."""
import inspect

from kerasish import ops
from kerasish.autodiff.keras_tensor import in_trace
from kerasish.ops import symbolic
from kerasish.layers.layer import Layer
from kerasish import tree as keras_tree
from kerasish.utils import registry, tree


class Lambda(Layer):
    """Wraps a function of tensors as a layer (not saveable safely, as in Keras).

    Args:
        function: callable `f(inputs, **arguments)`.
        output_shape: optional output shape (or function of the input shape).
        mask: optional mask or function `(inputs, mask) -> mask`.
        arguments: dict of extra keyword arguments for `function`.

    Example:
        >>> keras.layers.Lambda(lambda x: x * 2)(np.ones(3))   # [2., 2., 2.]
    """

    _output_shape_known = True  # Keras implements compute_output_shape; kerasish traces `call`

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self._output_shape = output_shape
        self._mask = mask
        self.supports_masking = mask is not None
        self._fn_training = "training" in inspect.signature(function).parameters \
            if callable(function) else False

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, previous_mask=None):
        if callable(self._mask):
            return self._mask(inputs, previous_mask)
        return self._mask

    def compute_output_shape(self, input_shape):
        """As Keras: `output_shape(input_shape)` when callable, `(batch,) + output_shape`
        when given, else inferred by running the function."""
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        # Keras takes the batch size from the first input's shape and maps
        # `output_shape` as a (possibly nested) structure of per-output shapes.
        batch_size = tree.flatten(input_shape)[0]
        return keras_tree.map_shape_structure(lambda shape: (batch_size,) + tuple(shape),
                                              self._output_shape)

    def get_config(self):
        config = super().get_config()
        config["function"] = _serialize_function(self.function)
        if self._output_shape is not None:
            config["output_shape"] = _serialize_function(self._output_shape) \
                if callable(self._output_shape) else self._output_shape
        if self._mask is not None:
            config["mask"] = _serialize_function(self._mask) if callable(self._mask) \
                else self._mask
        config["arguments"] = self.arguments
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        if safe_mode is None:
            safe_mode = registry.in_safe_mode()
        config = dict(config)
        function = _deserialize_function(config.pop("function"), custom_objects, safe_mode)
        for key in ("output_shape", "mask"):
            value = config.get(key)
            if isinstance(value, dict):
                config[key] = _deserialize_function(value, custom_objects, safe_mode)
            elif isinstance(value, list):
                config[key] = tuple(value)
        return cls(function, **config)


def _serialize_function(fn):
    """Keras's config of a function: for a lambda, its marshalled code (base64 in
    76-character lines, as Keras's `func_dump`), defaults and closure values;
    for a named function, its name."""
    import codecs
    import marshal
    if getattr(fn, "__name__", "") == "<lambda>":
        closure = tuple(cell.cell_contents for cell in fn.__closure__) \
            if fn.__closure__ else None
        return {"class_name": "__lambda__", "config": {
            "code": codecs.encode(marshal.dumps(fn.__code__), "base64").decode("ascii"),
            "defaults": fn.__defaults__, "closure": closure}}
    # as Keras: `serialize_keras_object` (a registered function by its registered name)
    return registry.serialize_object_as_keras(fn)


def _deserialize_function(config, custom_objects, safe_mode):
    if config.get("class_name") == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a `Lambda` layer whose `function` is a Python "
                "lambda. This carries a potential risk of arbitrary code execution and thus it is "
                "disallowed by default. If you trust the source of the artifact, you can override "
                "this error by passing `safe_mode=False` to the loading function, or calling "
                "`keras.config.enable_unsafe_deserialization()`."
            )
        import base64
        import marshal
        import types
        fn_config = config["config"]
        code = marshal.loads(base64.b64decode(fn_config["code"]))
        defaults, closure = fn_config.get("defaults"), fn_config.get("closure")
        return types.FunctionType(
            code, globals(), code.co_name,
            tuple(defaults) if defaults is not None else None,
            tuple(types.CellType(v) for v in closure) if closure is not None else None)
    # as Keras: `deserialize_keras_object` (custom objects, registered functions, then
    # Keras's own functions by name)
    return registry.deserialize_object_as_keras(config, custom_objects=custom_objects)


class SymbolicOp(Layer):
    """An op applied to KerasTensors (e.g. `x + 1` or `ops.sum(x)` in a functional model).

    Keras records such calls as operations (not layers): they appear in the
    model summary under the op's class name (`add (Add)`, `not_equal
    (NotEqual)`) but not in `model.layers`. `SymbolicOp.for_op("Add")` gives the
    subclass named after the op, so names and summaries read as in Keras.

    Args:
        fn: callable on tensors.
        kwargs: fixed (non-tensor) keyword arguments.
        tensor_kwarg_names: names of keyword arguments passed as trailing
            positional tensors (so they are graph inputs).
    """

    _is_operation = True
    _classes = {}

    def __init__(self, fn, kwargs=None, tensor_kwarg_names=(), **layer_kwargs):
        layer_kwargs.setdefault("autocast", False)  # ops keep their inputs' dtypes (Keras)
        super().__init__(**layer_kwargs)
        self.fn = fn
        self.fn_kwargs = kwargs or {}
        self.tensor_kwarg_names = tuple(tensor_kwarg_names)

    @classmethod
    def for_op(cls, op_name, fn=None):
        """The SymbolicOp subclass named `op_name` (e.g. "NotEqual"), made once.

        Its module reads as Keras's (`keras.src.ops.numpy`, `.nn`, `.core`), so a
        saved functional config names ops as Keras does.
        """
        sub = cls._classes.get(op_name)
        if sub is None:
            family = (getattr(fn, "__module__", "") or "").rsplit(".", 1)[-1]
            family = "core" if family == "control_flow" else family  # map, scan, ... (Keras)
            module = f"keras.src.ops.{family if family in ('nn', 'core') else 'numpy'}"
            sub = cls._classes[op_name] = type(op_name, (cls,), {"__module__": module})
        return sub

    def get_config(self):
        """`{"name", **fixed keyword arguments}`, Keras's form of an op's config."""
        if self.tensor_kwarg_names or _op_function(type(self).__name__) is not self.fn:
            raise NotImplementedError(
                f"The op '{self.name}' ({type(self).__name__}) cannot be serialized: it was "
                "called in a way kerasish cannot rebuild from a config.")
        return {"name": self.name, **{k: _serialize_argument(v) for k, v in self.fn_kwargs.items()}}

    @classmethod
    def from_config(cls, config):
        fn = _op_function(cls.__name__)
        if fn is None:
            raise ValueError(f"Unknown op '{cls.__name__}': kerasish.ops has no function for it.")
        config = {k: _deserialize_argument(v) for k, v in config.items()}
        name = config.pop("name", None)
        return cls(fn, config, name=name)

    def __repr__(self):
        return f"<Operation name={self.name}>"  # as Keras prints an op of a graph

    def call(self, *args):
        if type(self).__name__ == "GetItem" and len(args) == 2 and isinstance(args[1], list):
            args = (args[0], tuple(args[1]))  # Keras's GetItem.call: a list key is a tuple
        n = len(self.tensor_kwarg_names)
        kwargs = self.fn_kwargs
        if n:
            args, extra = args[:-n], dict(zip(self.tensor_kwarg_names, args[-n:]))
            kwargs = {**kwargs, **extra}
        names = _positional_names(self.fn, tuple(self.fn_kwargs))
        if names:  # a fixed argument precedes the tensors (`vectorized_map(function, x)`)
            args, kwargs = (), {**kwargs, **dict(zip(names, args))}
        if in_trace():  # traced for its output spec (kerasish.ops.symbolic)
            return symbolic.traced(self.fn, args, kwargs)
        return self.fn(*args, **kwargs)


def _serialize_argument(value):
    """A function argument of an op (e.g. `vectorized_map`'s) in Keras's config form."""
    if callable(value) and inspect.isfunction(value):
        return registry.serialize_keras_object(value)
    return value


def _deserialize_argument(value):
    if isinstance(value, dict) and value.get("class_name") == "function":
        return registry.deserialize_keras_object(value)
    return value


_POSITIONAL_NAMES = {}


def _positional_names(fn, fixed):
    """The names the positional inputs of `fn` take when a fixed keyword argument comes
    before them in its signature; None when they can be passed positionally."""
    key = (fn, fixed)
    if key not in _POSITIONAL_NAMES:
        try:
            params = [p for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        free = [p.name for p in params if p.name not in fixed]
        first_free = next((i for i, p in enumerate(params) if p.name not in fixed), len(params))
        _POSITIONAL_NAMES[key] = free if any(p.name in fixed for p in params[:first_free]) \
            else None
    return _POSITIONAL_NAMES[key]


def _op_function(op_name):
    """The (unwrapped) kerasish.ops function of a Keras op class name: "NotEqual" -> not_equal."""
    import re

    name = re.sub(r"(?<!^)(?=[A-Z])", "_", op_name).lower()
    fn = getattr(ops, name, None)
    return getattr(fn, "__wrapped__", fn)
