"""kerasish: a Keras-style deep-learning library on numpy (CPU) and cupy (GPU).

    import kerasish as keras
"""
from kerasish import backend, ops
from kerasish.autodiff import GradientTape, Tensor, Variable
from kerasish.backend import device

__version__ = "0.1.0"
