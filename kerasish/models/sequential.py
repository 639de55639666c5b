"""Sequential: a plain stack of layers, each with one input and one output.

Once the input shape is known (a `keras.Input` first, a first layer given
`input_shape=`, `build(shape)`, or a first call on one array) the stack is
traced into an inner `Functional` model (`_functional`, as in Keras), which
then runs every call. A stack called on a dict or a list of arrays, or whose
layers cannot be traced symbolically, stays untraced: its layers are then
applied one after the other.
"""
from kerasish.autodiff.keras_tensor import not_tracing
from kerasish.layers import symbolic
from kerasish.layers.core.input_layer import InputLayer
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer, _context
from kerasish.models.functional import Functional
from kerasish.models.model import Model
from kerasish.saving import serialization
from kerasish.utils import naming, tree


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
        self._functional = None
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
        else:
            self._unbuild()

    def pop(self, rebuild=True):
        """Removes and returns the last layer.

        As in Keras, an `InputLayer` counts as a layer here, and a rebuild
        that leaves no layer at all raises `IndexError` (the layer is still
        removed).
        """
        if not self._stack:
            raise IndexError("list index out of range")
        layer = self._stack.pop()
        self._unbuild()
        if rebuild:
            if not self._stack:
                raise IndexError("list index out of range")
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

    def _unbuild(self):
        self.built = False
        self._functional = None

    def _maybe_rebuild(self):
        self._unbuild()
        if len(self._stack) < 2:
            return
        if isinstance(self._stack[0], InputLayer):
            self.build(self._stack[0].batch_shape)
        elif _known_input_shape(self._stack[0]) is not None:
            # As in Keras: a first layer with an `input_shape` (a built model) builds the stack.
            self.build(_known_input_shape(self._stack[0]))

    def build(self, input_shape=None):
        """Traces the stack into its inner functional model for `input_shape`.

        A structure of shapes (dict or list inputs) or a layer that cannot
        be traced symbolically leaves the stack untraced; it is still marked
        built and then runs its layers one after the other, as in Keras.
        """
        if not self._stack:
            raise ValueError(
                f"Sequential model {self.name} cannot be built because it has no layers. "
                "Call `model.add(layer)`."
            )
        if input_shape is not None and not _is_single_shape(input_shape):
            return
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
            # As Keras: the Input takes the first layer's compute dtype (integer data
            # keeps its own dtype, so that indices reach e.g. an Embedding exactly).
            dtype = getattr(self._stack[0], "_input_dtype_hint", None) or \
                self._stack[0].compute_dtype
            input_layer = InputLayer(batch_shape=tuple(input_shape), dtype=dtype)
            self._stack.insert(0, input_layer)
        for layer in self.layers:
            _check_single_positional(layer)
        with not_tracing():  # the inner graph needs real nodes, even inside a parent's trace
            outputs = self._trace_stack(input_layer.output)
            if outputs is None:
                return  # a layer without symbolic shape inference: run the layers one by one
            self._functional = Functional(inputs=input_layer.output, outputs=outputs)
        self._build_shapes = tuple(input_layer.batch_shape)
        self.built = True

    def _trace_stack(self, x):
        """The stack's output KerasTensor from `x`, or None when a layer cannot say."""
        ctx = _context()
        # Keras's name scopes skip a layer already innermost (building from a
        # symbolic call runs inside this model's scope): one "sequential/" prefix.
        push = not ctx.scopes or ctx.scopes[-1] != self.name
        if push:
            ctx.scopes.append(self.name)
        try:
            for layer in self.layers:
                x = layer(x)
        except NotImplementedError:
            return None
        finally:
            if push:
                ctx.scopes.pop()
        return x

    def call(self, inputs, training=None, mask=None, **kwargs):
        # `**kwargs` as Keras's signature (it shows in call errors); kerasish layers
        # take no other context arguments, so they are not passed on
        if self._functional is not None:
            return self._functional.call(inputs, training=training, mask=mask)
        x = inputs
        # As Keras: a set mode reaches every layer as an argument (so it overrides
        # what an earlier layer's own calls left in the call context).
        kwargs = {} if training is None else {"training": training}
        for layer in self.layers:
            x = layer(x, **kwargs)
        return x

    def _build_from_inputs(self, args, kwargs, sig):
        first = args[0] if args else kwargs.get(sig.first)
        if isinstance(first, KerasTensor) or first is None:
            return
        if not hasattr(first, "shape"):
            # dict / list inputs: no single input to trace the stack on (as Keras).
            self.build(tree.map_structure(lambda t: tuple(getattr(t, "shape", ())), first))
            return
        hint = first.dtype if first.dtype.startswith("int") else None
        if self.layers:
            self.layers[0]._input_dtype_hint = hint
        self.build(tuple(first.shape))

    def _traced(self, what):
        if self._functional is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")
        return self._functional

    @property
    def inputs(self):
        return self._traced("inputs").inputs

    @property
    def outputs(self):
        return self._traced("outputs").outputs

    @property
    def input_shape(self):
        return self._traced("input shape").input_shape

    @property
    def output_shape(self):
        return self._traced("output shape").output_shape

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
        if self._functional is not None:
            config["build_input_shape"] = tuple(self._stack[0].batch_shape)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for entry in config["layers"]:
            layer = serialization.deserialize_keras_object(entry, custom_objects=custom_objects)
            build = entry.get("build_config") if isinstance(entry, dict) else None
            if build and not layer.built and not isinstance(layer, Model):
                # as Keras's deserialize_keras_object: built here, outside the model's
                # name scope (a loaded model's paths are "dense/kernel")
                layer.build_from_config(build)
            model.add(layer, rebuild=False)
        model._maybe_rebuild()
        if model._functional is None and config.get("build_input_shape"):
            model.build(tuple(config["build_input_shape"]))
        return model


def _is_single_shape(shape):
    """A shape tuple/list of ints and Nones (not a structure of shapes)."""
    return isinstance(shape, (tuple, list)) and \
        all(d is None or isinstance(d, int) for d in shape)


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

