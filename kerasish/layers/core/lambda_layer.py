"""Lambda: wraps an arbitrary expression as a layer."""
import inspect

from kerasish.layers.layer import Layer


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

    def get_config(self):
        config = super().get_config()
        import base64
        import marshal
        code = getattr(self.function, "__code__", None)
        config.update({
            "function": {"class_name": "__lambda__", "config": {
                "code": base64.b64encode(marshal.dumps(code)).decode("ascii") if code else None,
                "defaults": None, "closure": None}},
            "arguments": self.arguments,
        })
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        from kerasish.saving import serialization
        if safe_mode is None:
            safe_mode = serialization.in_safe_mode()
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
        config = dict(config)
        fn_config = config.pop("function")["config"]
        code = marshal.loads(base64.b64decode(fn_config["code"]))
        function = types.FunctionType(code, globals())
        config.pop("output_shape", None)
        return cls(function, **config)


class SymbolicOp(Layer):
    """An op applied to KerasTensors (e.g. `x + 1` in a functional model).

    Args:
        fn: callable on tensors.
        kwargs: fixed keyword arguments.
    """

    def __init__(self, fn, kwargs=None, **layer_kwargs):
        super().__init__(**layer_kwargs)
        self.fn = fn
        self.fn_kwargs = kwargs or {}

    def call(self, *args):
        return self.fn(*args, **self.fn_kwargs)
