"""What `Layer.__call__` reads off a call: the `call` signature and the input masks."""
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


def _format_value(value):
    if isinstance(value, Tensor) and not hasattr(value, "assign"):  # not a Variable
        return f"tf.Tensor(shape={tuple(value.shape)}, dtype={value.dtype.name})"
    return repr(value)


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
