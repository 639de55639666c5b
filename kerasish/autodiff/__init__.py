"""Tensors, Variables and the GradientTape."""
from kerasish.autodiff.op import Op
from kerasish.autodiff.tape import GradientTape
from kerasish.autodiff.tensor import Tensor, Variable

__all__ = ["GradientTape", "Op", "Tensor", "Variable"]
