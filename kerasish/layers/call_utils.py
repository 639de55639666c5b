"""What `Layer.__call__` reads off a call: the `call` signature and the input masks."""
import inspect

from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor


class CallSignature:
    """The parts of a layer's `call` signature that `Layer.__call__` needs."""

    def __init__(self, cls):
        params = inspect.signature(cls.call).parameters
        names = [p for p in params if p != "self"]
        self.first = names[0] if names else None
        self.has_training = "training" in params or any(
            p.kind == p.VAR_KEYWORD for p in params.values())
        self.has_mask = "mask" in params
        default = params["training"].default if "training" in params else None
        self.training_default = None if default is inspect.Parameter.empty else default


_signatures = {}


def call_signature(cls):
    """What `cls.call` accepts (first argument, `training`, `mask`), cached per class."""
    sig = _signatures.get(cls)
    if sig is None:
        sig = _signatures[cls] = CallSignature(cls)
    return sig


def get_mask(x):
    """The Keras mask(s) carried by tensor(s) (`_keras_mask`), None when there are none."""
    if isinstance(x, (Tensor, KerasTensor)):
        return x._keras_mask
    if isinstance(x, (list, tuple)):
        masks = [get_mask(v) for v in x]
        return masks if any(m is not None for m in masks) else None
    return None
