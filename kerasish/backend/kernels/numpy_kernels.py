"""Vectorised numpy kernels (the CPU implementations and the reference).

Every function is written against `xp` (taken from its array arguments), so
it also runs on cupy arrays where no cupy-specific kernel exists.
"""
from kerasish.backend.devices import xp_of

__all__ = ["index_add", "sigmoid"]


def sigmoid(x):
    """Numerically stable logistic function for any float array."""
    xp = xp_of(x)
    out = xp.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + xp.exp(-x[pos]))
    ex = xp.exp(x[~pos])
    out[~pos] = ex / (1.0 + ex)
    return out


def index_add(target, index, values):
    """`target[index] += values` with repeated indices accumulated (in place)."""
    xp_of(target).add.at(target, index, values)
