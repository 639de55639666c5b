"""cupy implementations of the fused kernels (compiled on first use).

Imported only when a GPU device asks for a kernel, so kerasish never needs
cupy to import.
"""
import cupy
import cupyx

_sigmoid = cupy.ElementwiseKernel(
    "T x", "T y", "y = x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x))",
    "kerasish_sigmoid")


def sigmoid(x):
    """Logistic function in one fused pass."""
    return _sigmoid(x)


def index_add(target, index, values):
    """`target[index] += values` with atomic adds for repeated indices."""
    cupyx.scatter_add(target, index, values)
