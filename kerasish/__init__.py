"""kerasish: a Keras-style deep-learning library on numpy (CPU) and cupy (GPU).

    import kerasish as keras
"""
from kerasish import (activations, backend, callbacks, config, constraints, data,
                      datasets, distribute, distribution, dtype_policies, initializers,
                      layers, losses, metrics, models, ops, optimizers, random,
                      regularizers, saving, summary, utils)
from kerasish.autodiff import GradientTape, Tensor, Variable
from kerasish.backend import device
from kerasish.backend.symbolic_scope import SymbolicScope
from kerasish.dtype_policies import DTypePolicy, FloatDTypePolicy
from kerasish.initializers import Initializer
from kerasish.layers import Input, InputSpec, Layer
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.name_scope import name_scope
from kerasish.losses import Loss
from kerasish.metrics import Metric
from kerasish.models import Model, Sequential
from kerasish.ops.remat import remat
from kerasish.optimizers import Optimizer
from kerasish.regularizers import Regularizer
from kerasish import tree
from kerasish.utils import naming


def _export_merge_functions():
    """`keras.layers.add`, `concatenate`, ...: the lower-case functional merge forms."""
    import importlib
    from kerasish.layers import merging
    for name in merging.FUNCTIONAL_FORMS:
        if not hasattr(layers, name):
            setattr(layers, name, getattr(
                importlib.import_module(f"kerasish.layers.merging.{name}"), name))


_export_merge_functions()


def _symbolic_ops():
    """`keras.ops.*` called on KerasTensors (functional API) record graph ops, as in
    Keras (`ops.sum(x, axis=1)` between layers); on real tensors nothing changes."""
    from kerasish.layers import symbolic
    symbolic.install_symbolic_dispatch(ops)


_symbolic_ops()

__version__ = "0.1.0"


def version():
    """kerasish's version string (Keras's `keras.version()`).

    Example:
        >>> keras.version()
        '0.1.0'
    """
    return __version__


def _complete_backend_namespace():
    """`keras.backend` names that live above the backend floor."""
    backend.get_uid = naming.get_uid
    backend.is_keras_tensor = utils.is_keras_tensor


_complete_backend_namespace()


def __getattr__(name):
    """`keras.wrappers` loads on first use: it imports scikit-learn."""
    if name == "wrappers":
        import importlib  # optional dependency: kerasish.wrappers needs scikit-learn
        return importlib.import_module("kerasish.wrappers")
    raise AttributeError(f"module 'kerasish' has no attribute {name!r}")
