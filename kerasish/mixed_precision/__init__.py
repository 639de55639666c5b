"""kerasish.mixed_precision: Keras's `keras.mixed_precision` names in one place.

Example:
    >>> keras.mixed_precision.set_global_policy("mixed_float16")
    >>> keras.layers.Dense(2).compute_dtype
    'float16'
    >>> keras.mixed_precision.set_global_policy("float32")
"""
from kerasish.dtype_policies import DTypePolicy, get as dtype_policy_get, global_policy, \
    set_global_policy
from kerasish.optimizers.loss_scale_optimizer import LossScaleOptimizer

Policy = DTypePolicy


def dtype_policy():
    """The global dtype policy (Keras's `keras.mixed_precision.dtype_policy()`)."""
    return global_policy()


def set_dtype_policy(policy):
    """Sets the global dtype policy (alias of `set_global_policy`)."""
    set_global_policy(policy)


__all__ = ["DTypePolicy", "LossScaleOptimizer", "Policy", "dtype_policy", "dtype_policy_get",
           "global_policy", "set_dtype_policy", "set_global_policy"]
