"""`keras.Operation`: the base class of everything that can sit in a symbolic graph.

An Operation defines `call` (the computation on tensors) and, optionally,
`compute_output_spec` (output KerasTensors for symbolic inputs). Calling it
on KerasTensors records a graph `Node` and returns KerasTensors, computing
nothing; calling it on tensors or arrays runs `call`. `Layer` subclasses it,
as in Keras, and `keras.Function` is an Operation made of a graph of them.

Not to be confused with `keras.ops.Op`, kerasish's differentiable primitive
(forward on raw arrays, backward written with ops): an Operation's `call`
is written with `keras.ops`, so it is differentiable through them.
"""
import inspect
import math

from kerasish.autodiff.keras_tensor import KerasTensor, any_symbolic, in_trace, tracing
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import remat as _remat
from kerasish.ops.node import Node
from kerasish.utils import naming, tree


class Operation:
    """Base class of graph operations (layers, `keras.Function`, custom ops).

    Subclasses define `call`; `compute_output_spec` defaults to running
    `call` on the KerasTensors themselves (every `keras.ops` function
    answers them with its shape rule), so it is needed only when `call`
    reads values.

    Args:
        name: the operation's name (default: the snake-case class name,
            numbered when taken: "square", "square_1", ...).

    Example:
        >>> class Square(keras.Operation):
        ...     def call(self, x):
        ...         return keras.ops.multiply(x, x)
        >>> square = Square()
        >>> square(keras.Input((3,))).shape       # symbolic: a KerasTensor
        (None, 3)
        >>> square(np.array([2.0, 3.0]))          # eager: runs `call`
    """

    _is_operation = True  # in a functional model: an op, not one of `model.layers`

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        obj.__dict__["_init_args"] = (args, dict(kwargs))  # for the auto-generated config
        return obj

    def __init__(self, name=None):
        if name is None:
            name = naming.auto_name(type(self).__name__)
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name} (of type {type(name)})")
        self.name = name
        self._inbound_nodes = []
        self._remat_mode = _remat.get_current_remat_mode()

    def __call__(self, *args, **kwargs):
        if any_symbolic(*args, **kwargs):
            return self.symbolic_call(*args, **kwargs)
        call = self.call if getattr(self, "quantization_mode", None) is None \
            else self.quantized_call  # as Keras: a subclass may define its quantized path
        return self._rematerialized_call(call, args, kwargs)(*args, **kwargs)

    def symbolic_call(self, *args, **kwargs):
        """Output KerasTensors for symbolic arguments; records a graph `Node`
        (not inside a trace, where only output specs are wanted).

        Args:
            *args, **kwargs: the call's arguments, KerasTensors among them.

        Returns:
            the output KerasTensor(s), structured as `call`'s outputs.
        """
        outputs = self.compute_output_spec(*args, **kwargs)
        if not in_trace():
            Node(self, args, kwargs, outputs)
        return outputs

    def call(self, *args, **kwargs):
        """The computation on tensors (subclasses define it)."""
        raise NotImplementedError(f"{type(self).__name__} does not define `call()`.")

    def quantized_call(self, *args, **kwargs):
        """The computation when `quantization_mode` is set (subclasses that quantize define it)."""
        raise NotImplementedError(f"{type(self).__name__} does not define `quantized_call()`.")

    def compute_output_spec(self, *args, **kwargs):
        """Output KerasTensor(s) for symbolic inputs: `call` traced on the KerasTensors.

        Args:
            *args, **kwargs: the call's arguments, KerasTensors among them.

        Returns:
            fresh KerasTensor(s) describing the outputs.
        """
        try:
            with tracing():
                outputs = self.call(*args, **kwargs)
        except Exception as e:
            name = type(self).__name__
            raise e.__class__(
                f"Could not automatically infer the output shape / dtype of '{self.name}' (of "
                f"type {name}). Either the `{name}.call()` method is incorrect, or you need to "
                f"implement the `{name}.compute_output_spec() / compute_output_shape()` method. "
                f"Error encountered:\n\n{e}").with_traceback(e.__traceback__) from None
        return tree.map_structure(_fresh_spec, outputs)

    def _rematerialized_call(self, call, args, kwargs):
        """`call`, or `keras.remat(call)` as the `RematScope` active at creation asks
        (an Operation knows the "full" and "larger_than" modes, as Keras's)."""
        mode = getattr(self, "_remat_mode", None)
        if not mode or not mode.mode:
            return call
        if mode.mode == "full":
            return _remat.remat(call)
        if mode.mode == "larger_than" and \
                self._output_size(args, kwargs) > mode.output_size_threshold:
            return _remat.remat(call)
        return call

    def _output_size(self, args, kwargs):
        """Number of output values (unknown sizes count 1), from the output spec."""
        def spec(x):
            return KerasTensor(tuple(x.shape), x.dtype) if isinstance(x, Tensor) else x
        outputs = self.compute_output_spec(*tree.map_structure(spec, list(args)),
                                           **tree.map_structure(spec, dict(kwargs)))
        return sum(math.prod(d or 1 for d in o.shape) for o in tree.flatten(outputs)
                   if isinstance(o, KerasTensor))

    # Graph accessors --------------------------------------------------------
    def _node_tensors(self, attr):
        if not self._inbound_nodes:
            raise AttributeError(
                f"The layer {self.name} has never been called and thus has no defined {attr}.")
        node = self._inbound_nodes[0]
        # As Keras: the flat list of the first call's tensors, or the tensor when alone
        tensors = node.input_tensors if attr == "input" else node.output_tensors
        return tensors[0] if len(tensors) == 1 else list(tensors)

    @property
    def input(self):
        """The input tensor(s) of the operation's first call on KerasTensors."""
        return self._node_tensors("input")

    @property
    def output(self):
        """The output tensor(s) of the operation's first call on KerasTensors."""
        return self._node_tensors("output")

    # Config ----------------------------------------------------------------
    def get_config(self):
        """`{"name": ...}` plus, for a subclass that does not override it, its
        constructor arguments when they are plain values (Keras's auto-config).

        Returns:
            a JSON-friendly dict that `from_config` turns back into the operation.
        """
        config = {"name": self.name}
        if getattr(type(self).get_config, "_kerasish_default", False):
            config.update(auto_config(self))
            params = inspect.signature(type(self).__init__).parameters
            if "name" not in params and not any(p.kind == p.VAR_KEYWORD for p in params.values()):
                config.pop("name", None)
        return config

    get_config._kerasish_default = True

    @classmethod
    def from_config(cls, config):
        """Creates the operation from `get_config()`'s output.

        Args:
            config: the dict `get_config` returned.

        Returns:
            a new instance.
        """
        try:
            return cls(**config)
        except Exception as e:  # Keras reports any constructor failure as a TypeError
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using "
                            f"config={config}.\n\nException encountered: {e}") from e

    def __repr__(self):
        return f"<Operation name={self.name}>"


def _fresh_spec(x):
    """A new KerasTensor like `x` (outputs must never be the inputs' own tensors)."""
    if isinstance(x, (KerasTensor, Tensor)) or hasattr(x, "shape") and hasattr(x, "dtype"):
        return KerasTensor(tuple(x.shape), x.dtype)
    return x


def auto_config(obj, normalize=None):
    """Keras's auto-generated config: the constructor arguments recorded at creation.

    Args:
        obj: an Operation (or Layer) created with plain-valued arguments.
        normalize: optional callable applied to the bound arguments dict (a
            Layer serializes a `DTypePolicy` given as `dtype` there).

    Returns:
        {argument: value}, defaults included, without `self` and `name`.

    Raises:
        NotImplementedError: Keras's message, when an argument is not a plain
            value (str, int, float, bool, None, lists/dicts of them) or the
            constructor takes positional-only or `*args` arguments.
    """
    args, kwargs = obj._init_args
    cls = type(obj)
    signature = inspect.signature(cls.__init__)
    argspec = inspect.getfullargspec(cls.__init__)
    error = None
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:
        bound, error = None, "values"
    if bound is not None and any(p.kind == p.POSITIONAL_ONLY for n, p in
                                 signature.parameters.items() if n != argspec.args[0]):
        bound, error = None, "positional"
    config = {}
    if bound is not None:
        bound.apply_defaults()
        config = dict(bound.arguments)
        config.update(config.pop(argspec.varkw, {}) if argspec.varkw else {})
        config.pop(argspec.args[0])
        config.pop("name", None)
        if argspec.varargs is not None and config.pop(argspec.varargs):
            error = "positional"
        if normalize is not None:
            config = normalize(config)
        if error is None and not all(isinstance(v, (str, int, float, bool, type(None)))
                                     for v in tree.flatten(config)):
            error = "values"
    if error is not None:
        raise NotImplementedError(auto_config_error(cls.__name__, error))
    return config


_AUTO_CONFIG_EXAMPLE = """
class CustomLayer(keras.layers.Layer):
    def __init__(self, arg1, arg2, **kwargs):
        super().__init__(**kwargs)
        self.arg1 = arg1
        self.arg2 = arg2

    def get_config(self):
        config = super().get_config()
        config.update({
            "arg1": self.arg1,
            "arg2": self.arg2,
        })
        return config
"""


def auto_config_error(class_name, kind):
    """Keras's message when a config cannot be generated from the constructor arguments."""
    if kind == "positional":
        head = (f"Object {class_name} was created by passing\npositional only or variadic "
                "positional arguments (e.g.,\n`*args`) to `__init__()`, which is not supported "
                "by the\nautomatic config generation. Please remove all positional\nonly and "
                "variadic arguments from `__init__()`\nor override `get_config()` and "
                "`from_config()` to make\nthe object serializatble.")
    else:
        head = (f"Object {class_name} was created by passing\nnon-serializable argument values "
                "in `__init__()`,\nand therefore the object must override `get_config()` in\n"
                "order to be serializable. Please implement `get_config()`.")
    return f"\n{head}\n\nExample:\n\n{_AUTO_CONFIG_EXAMPLE}"
