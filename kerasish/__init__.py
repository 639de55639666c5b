"""kerasish: a Keras-style deep-learning library on numpy (CPU) and cupy (GPU).

    import kerasish as keras
"""
from kerasish import (activations, backend, callbacks, config, constraints, data,
                      datasets, distribute, dtype_policies, initializers, layers, losses,
                      metrics, models, ops, optimizers, random, regularizers, saving, utils)
from kerasish.autodiff import GradientTape, Tensor, Variable
from kerasish.backend import device
from kerasish.dtype_policies import DTypePolicy
from kerasish.layers import Input, InputSpec, Layer
from kerasish.models import Model, Sequential

__version__ = "0.1.0"
version = __version__
