"""What `Layer.__call__` reads off a call: the `call` signature and the input masks."""
import contextlib
import inspect

import numpy as np

from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor
from kerasish.backend.switches import is_traceback_filtering_enabled
from kerasish.utils import tree


class CallSignature:
    """The parts of a layer's `call` signature that `Layer.__call__` needs."""

    def __init__(self, cls):
        params = inspect.signature(cls.call).parameters
        names = [p for p in params if p != "self"]
        self.first = names[0] if names else None
        self.names = [p for p in names if params[p].kind in (
            params[p].POSITIONAL_ONLY, params[p].POSITIONAL_OR_KEYWORD, params[p].KEYWORD_ONLY)]
        self.mask_args = {p[:-len("_mask")] for p in names if p.endswith("_mask")}
        # as Keras's `_call_has_training_arg`: a `**kwargs` does not take `training`
        self.has_training = "training" in params
        self.has_mask = "mask" in params
        self.keyword_names = None if any(p.kind == p.VAR_KEYWORD for p in params.values()) \
            else frozenset(p for p in names if params[p].kind != params[p].VAR_POSITIONAL)
        default = params["training"].default if "training" in params else None
        self.training_default = None if default is inspect.Parameter.empty else default


_signatures = {}


def call_signature(cls):
    """What `cls.call` accepts (first argument, `training`, `mask`), cached per class."""
    sig = _signatures.get(cls)
    if sig is None:
        sig = _signatures[cls] = CallSignature(cls)
    return sig


def check_keywords(sig, kwargs):
    """Keras's `CallSpec` binding of the call's keyword arguments: one that `call` does
    not take (`training` aside, dropped when not taken) raises its TypeError.

    Args:
        sig: the layer's `call_signature`.
        kwargs: the keyword arguments given to `__call__`.
    """
    if sig.keyword_names is None:
        return
    for name in kwargs:
        if name not in sig.keyword_names and name != "training":
            raise TypeError(f"got an unexpected keyword argument '{name}'")


def tensor_arguments(sig, args, kwargs):
    """The call's tensor arguments by name, as Keras's CallSpec counts them: a tensor (or a
    numpy array, which Keras converts first) or a non-empty structure of them; `training`
    and `mask` are not among them."""
    found = {}
    named = list(zip(sig.names, args)) + list(kwargs.items())
    for name, value in named:
        if name in ("training", "mask"):
            continue
        if _is_tensor(value) or (isinstance(value, (list, tuple, dict)) and value and all(
                v is None or _is_tensor(v) for v in tree.flatten(value))):
            found[name] = value
    extra = args[len(sig.names):]
    for j, value in enumerate(extra):  # *args beyond the named parameters
        if _is_tensor(value):
            found[f"args{j}"] = value
    return found


def _is_tensor(x):
    return isinstance(x, (Tensor, KerasTensor, np.ndarray))


def get_mask(x):
    """The Keras mask(s) carried by tensor(s) (`_keras_mask`), None when there are none."""
    if isinstance(x, (Tensor, KerasTensor)):
        return x._keras_mask
    if isinstance(x, (list, tuple)):
        masks = [get_mask(v) for v in x]
        return masks if any(m is not None for m in masks) else None
    return None


# Errors raised inside `call` ---------------------------------------------------------
def with_call_info(error, layer, args, kwargs, symbolic=False):
    """`error` re-made as Keras re-raises an exception escaping `layer.call`.

    Keras (with traceback filtering on) rewrites the message of the innermost
    failing call as "Exception encountered when calling <Class>.call(). ...
    Arguments received by <Class>.call(): • name=value ...", with tensors shown
    as `tf.Tensor(shape=..., dtype=...)`; a symbolic call lists `args`/`kwargs`,
    and a user layer without `compute_output_shape` adds that its output spec
    could not be inferred. Exceptions already rewritten, or whose class cannot
    be made from one message (then a RuntimeError, as Keras), are handled as Keras does.

    Args:
        error: the exception raised by the call.
        layer: the layer.
        args, kwargs: the arguments `call` (or the symbolic call) received.
        symbolic: whether it was a symbolic call.

    Returns:
        The exception to raise (`error` itself when nothing is to be added).
    """
    if getattr(error, "_keras_call_info_injected", False) or \
            not is_traceback_filtering_enabled():
        return error
    name = f"{type(layer).__name__}.call()"
    if symbolic:
        lines = [f"  • args={tuple(_map_format(a) for a in args)}",
                 f"  • kwargs={_map_format(kwargs) if kwargs else inspect.Parameter.empty}"]
    else:
        try:
            signature = inspect.signature(layer.call)
            bound = signature.bind(*args, **kwargs).arguments
        except (TypeError, ValueError):
            return error
        bound = _with_filled_mask(signature, bound)
        lines = [f"  • {p}={_map_format(bound[p]) if p in bound else param.default}"
                 for p, param in signature.parameters.items()]
        if not lines:
            return error
    message = error.args[0] if error.args else ""
    if symbolic and _infers_by_tracing(layer):
        cls = type(layer).__name__
        message = (f"Could not automatically infer the output shape / dtype of '{layer.name}' "
                   f"(of type {cls}). Either the `{cls}.call()` method is incorrect, or you "
                   f"need to implement the `{cls}.compute_output_spec() / "
                   f"compute_output_shape()` method. Error encountered:\n\n{message}")
    message = (f"Exception encountered when calling {name}.\n\n\x1b[1m{message}\x1b[0m\n\n"
               f"Arguments received by {name}:\n" + "\n".join(lines))
    try:
        new = type(error)(message)
    except Exception:  # noqa: BLE001 - a class that takes other arguments, as Keras
        new = RuntimeError(message)
    new._keras_call_info_injected = True
    return new.with_traceback(error.__traceback__)


def _with_filled_mask(signature, bound):
    """The bound arguments with `mask` as Keras's `__call__` fills it in when not given:
    the structure of the only tensor argument's masks (`(None, None)` for two inputs),
    which the message lists; a single tensor's mask stays one value."""
    if "mask" not in signature.parameters or bound.get("mask") is not None:
        return bound
    # (numpy arrays are no tensors to Keras's CallSpec: a functional model, which
    # converts none of its inputs, gets no mask filled for numpy inputs)
    structured = [v for p, v in bound.items() if p not in ("training", "mask") and
                  isinstance(v, (list, tuple, dict)) and v and
                  all(isinstance(t, (Tensor, KerasTensor)) for t in tree.flatten(v))]
    others = [v for p, v in bound.items() if p not in ("training", "mask") and
              isinstance(v, (Tensor, KerasTensor))]
    if len(structured) != 1 or others:
        return bound
    return dict(bound, mask=tree.map_structure(lambda t: None, structured[0]))


def _format_value(value):
    if isinstance(value, Tensor) and not hasattr(value, "assign"):  # not a Variable
        return f"tf.Tensor(shape={traced_shape(value.shape)}, dtype={value.dtype.name})"
    return repr(value)


# Keras's traced steps ----------------------------------------------------------------
_STEPS = []   # (graph names of the step's input tensors by id, batch dimension or _REAL)
_REAL = object()


@contextlib.contextmanager
def traced_step(batch_size=_REAL):
    """While a fit/evaluate/predict step runs: Keras runs it as a TensorFlow graph, so
    the messages of errors raised in it show its tensors as graph tensors. The step's
    input tensors are the graph's arguments `data:0`, `data_1:0`, ... (named when the
    outermost functional model receives them, see `name_step_inputs`); with
    `batch_size` given (fit and evaluate, which trace on the dataset's spec), shapes
    show that batch dimension (None when unknown).

    Args:
        batch_size: the traced batch dimension; left out, the real shapes are shown.
    """
    _STEPS.append(({}, batch_size))
    try:
        yield
    finally:
        _STEPS.pop()


def name_step_inputs(inputs):
    """The first model inputs received in a traced step (by the outermost functional
    model, after `__call__` converted them) are the graph's `data:0`, `data_1:0`, ...
    in their flattened order (a dict's values in its own order, as Keras 3.15.1 names
    them)."""
    if not _STEPS or _STEPS[-1][0]:
        return
    names = _STEPS[-1][0]
    for i, leaf in enumerate(_leaves_in_order(inputs)):
        if leaf is not None:
            names[id(leaf)] = "data" if i == 0 else f"data_{i}"
    names[None] = None   # named once per step


def _leaves_in_order(structure):
    if isinstance(structure, dict):
        return [leaf for v in structure.values() for leaf in _leaves_in_order(v)]
    if isinstance(structure, (list, tuple)):
        return [leaf for v in structure for leaf in _leaves_in_order(v)]
    return [structure]


def traced_shape(shape):
    """`shape` (a tuple) as the running traced step shows it (see `traced_step`)."""
    shape = tuple(shape)
    if _STEPS and _STEPS[-1][1] is not _REAL and shape:
        return (_STEPS[-1][1],) + shape[1:]
    return shape


def describe_input(x, converted):
    """How Keras's messages print a model input `x` (the step's graph tensor inside a
    traced step, else the tensor's values); `converted` is it as a Tensor."""
    name = _STEPS[-1][0].get(id(x)) if _STEPS else None
    if name is None:
        return f"{converted}"
    return (f'Tensor("{name}:0", shape={traced_shape(converted.shape)}, '
            f"dtype={converted.dtype.name})")


def _map_format(value):
    """Keras's `tree.map_structure(format_argument_value, value)`."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_map_format(v) for v in value)
    if isinstance(value, dict):
        return {k: _map_format(v) for k, v in value.items()}
    return _format_value(value)


def _infers_by_tracing(layer):
    """Whether Keras would infer `layer`'s output spec by running `call`: a user's
    layer that inherits `compute_output_shape`/`compute_output_spec` from the base
    classes (kerasish's own layers all declare their shapes, as Keras's do)."""
    cls = type(layer)
    if cls.__module__.startswith("kerasish."):
        return False
    for klass in cls.__mro__:
        if klass.__module__.startswith("kerasish."):
            return klass.__name__ in ("Layer", "Model")
        if "compute_output_shape" in vars(klass) or "compute_output_spec" in vars(klass):
            return False
    return False
