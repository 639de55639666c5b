"""Sequential: a plain stack of layers, each with one input and one output."""
from kerasish.layers import symbolic
from kerasish.layers.core.input_layer import InputLayer
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer, _context
from kerasish.models.model import Model
from kerasish.saving import serialization
from kerasish.utils import naming


class Sequential(Model):
    """A linear stack of layers.

    Built immediately when it starts with `keras.Input(...)` (or its first
    layer got `input_shape=`), otherwise on the first call on data.

    Args:
        layers: optional list of layers.
        trainable: whether the layers are trainable.
        name: model name ("sequential" by default).

    Example:
        >>> model = keras.Sequential([keras.Input(shape=(784,)),
        ...                           keras.layers.Dense(10, activation="softmax")])
    """

    _saves_layers_as_list = True   # the `.keras` format stores its layers as a "layers" list

    def __init__(self, layers=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name or naming.auto_name("Sequential"), **kwargs)
        self._stack = []
        self._graph_outputs = None
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    def add(self, layer, rebuild=True):
        """Appends a layer (or a `keras.Input` tensor) to the stack.

        Args:
            layer: a Layer or a KerasTensor from `keras.Input`.
            rebuild: rebuild the graph now if the input shape is known.
        """
        if isinstance(layer, KerasTensor):
            layer = layer._keras_history[0]
        if not isinstance(layer, Layer):
            raise ValueError(
                "Only instances of `keras.Layer` can be added to a Sequential model. "
                f"Received: {layer} (of type {type(layer)})"
            )
        if isinstance(layer, InputLayer) and self._stack:
            raise ValueError(
                f"Sequential model '{self.name}' has already been configured to use an input "
                "shape; an InputLayer can only be the first layer."
            )
        if not self._stack and getattr(layer, "_input_shape_arg", None) is not None \
                and not isinstance(layer, InputLayer):
            self._stack.append(InputLayer(batch_shape=layer._input_shape_arg))
        names = {l.name for l in self._stack}
        if layer.name in names:
            raise ValueError(
                f"All layers added to a Sequential model should have unique names. Name "
                f"'{layer.name}' is already the name of a layer in this model. Update the `name` "
                "argument to pass a unique name."
            )
        self._stack.append(layer)
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild=True):
        """Removes and returns the last layer."""
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        self.built = False
        self._graph_outputs = None
        if rebuild:
            self._maybe_rebuild()
        return layer

    @property
    def layers(self):
        return [l for l in self._stack if not isinstance(l, InputLayer)]

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Sequential.layers` is read-only. Use `add()` and `pop()` to "
                             "change the layers of a Sequential model.")

    @property
    def _layers(self):
        return self.layers

    def _maybe_rebuild(self):
        self.built = False
        self._graph_outputs = None
        if len(self._stack) < 2:
            return
        if isinstance(self._stack[0], InputLayer):
            self.build(self._stack[0].batch_shape)
        elif _known_input_shape(self._stack[0]) is not None:
            # As in Keras: a first layer with an `input_shape` (a built model) builds the stack.
            self.build(_known_input_shape(self._stack[0]))

    def build(self, input_shape=None):
        """Builds every layer by running the stack symbolically on `input_shape`."""
        if not self._stack:
            raise ValueError(
                f"Sequential model {self.name} cannot be built because it has no layers. "
                "Call `model.add(layer)`."
            )
        if isinstance(self._stack[0], InputLayer):
            input_layer = self._stack[0]
            if input_shape is not None and not _compatible(input_shape, input_layer.batch_shape):
                raise ValueError(
                    f"Sequential model '{self.name}' has already been configured to use input "
                    f"shape {tuple(input_layer.batch_shape)}. You cannot build it with "
                    f"input_shape {tuple(input_shape)}")
        else:
            if input_shape is None:
                raise ValueError(f"Sequential model {self.name}: build() needs an input shape.")
            dtype = getattr(self._stack[0], "_input_dtype_hint", None)
            input_layer = InputLayer(batch_shape=tuple(input_shape), dtype=dtype)
            self._stack.insert(0, input_layer)
        for layer in self.layers:
            _check_single_positional(layer)
        x = input_layer.output
        ctx = _context()
        ctx.scopes.append(self.name)
        try:
            for layer in self.layers:
                x = layer(x)
        finally:
            ctx.scopes.pop()
        self._graph_outputs = x
        self._build_shapes = tuple(input_layer.batch_shape)
        self.built = True
        # Keras builds an inner Functional here, which takes a "functional_N" name:
        # take it too, so later unnamed models are numbered as in Keras.
        naming.auto_name("Functional")

    def call(self, inputs, training=None, mask=None):
        x = inputs
        for layer in self.layers:
            x = layer(x)
        return x

    def _build_from_inputs(self, args, kwargs, sig):
        first = args[0] if args else kwargs.get(sig.first)
        if isinstance(first, KerasTensor) or first is None:
            return
        hint = first.dtype if first.dtype.startswith("int") else None
        if self.layers:
            self.layers[0]._input_dtype_hint = hint
        self.build(tuple(first.shape))

    def _built_attr(self, what):
        if not self.built:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")

    @property
    def inputs(self):
        self._built_attr("inputs")
        return [self._stack[0].output]

    @property
    def outputs(self):
        self._built_attr("outputs")
        return [self._graph_outputs]

    @property
    def input_shape(self):
        self._built_attr("input shape")
        return self._stack[0].batch_shape

    @property
    def output_shape(self):
        self._built_attr("output shape")
        return self._graph_outputs.shape

    def compute_output_spec(self, *args, **kwargs):
        return symbolic.output_spec(self, args, kwargs)

    def get_config(self):
        layers = [serialization.serialize_keras_object(l) for l in self._stack]
        for entry, layer in zip(layers, self._stack):
            build = layer.get_build_config() if not isinstance(layer, InputLayer) else None
            if build is not None:
                entry["build_config"] = build
        config = Model.get_config(self)
        config = {"name": self.name, "trainable": self.trainable, "dtype": config["dtype"],
                  "layers": layers}
        if self._build_shapes is not None:
            config["build_input_shape"] = tuple(self._build_shapes)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for entry in config["layers"]:
            layer = serialization.deserialize_keras_object(entry, custom_objects=custom_objects)
            model.add(layer, rebuild=False)
        model._maybe_rebuild()
        if not model.built and config.get("build_input_shape"):
            model.build(tuple(config["build_input_shape"]))
        return model


def _known_input_shape(layer):
    """The input shape of a layer that knows it (a built model), else None."""
    if not isinstance(layer, Model) or not layer.built:
        return None
    try:
        shape = layer.input_shape
    except (AttributeError, ValueError):
        return None
    if not isinstance(shape, tuple) or not all(d is None or isinstance(d, int) for d in shape):
        return None  # several inputs: not a plain stack
    return shape


def _compatible(shape, configured):
    """Whether a build shape fits the InputLayer's (None matches any size)."""
    shape, configured = tuple(shape), tuple(configured)
    return len(shape) == len(configured) and all(
        a is None or b is None or a == b for a, b in zip(shape, configured))


def _check_single_positional(layer):
    """Keras: a layer in a Sequential model takes one positional argument (the input)."""
    import inspect
    try:
        params = list(inspect.signature(layer.call).parameters.values())
    except (TypeError, ValueError):
        return
    required = [p.name for p in params[1:] if p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if required:
        raise ValueError(
            "Layers added to a Sequential model can only have a single positional argument, "
            f"the input tensor. Layer {layer.name} has multiple positional arguments: "
            f"{[params[0].name] + required}")

