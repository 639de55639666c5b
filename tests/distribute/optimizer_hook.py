"""The one-line optimizer hook distribution needs, installed for the tests.

`BaseOptimizer.apply` must start with
`if distribute_lib.replica_apply(self, grads, trainable_variables): return`
so that an update made inside `strategy.run` is deferred to the strategy
(one all-reduce, one identical update). Until that line is in
kerasish/optimizers/base_optimizer.py, `install()` wraps `apply` with it;
once it is there, `install()` does nothing.
"""
import inspect

from kerasish.distribute import distribute_lib, strategy
from kerasish.optimizers import base_optimizer


def install():
    """Wraps `BaseOptimizer.apply` with the distribution hook if it lacks it."""
    original = base_optimizer.BaseOptimizer.apply
    if "replica_apply" in inspect.getsource(original):
        return
    def apply(self, grads, trainable_variables=None):  # noqa: E306
        grads = list(grads)
        if grads and distribute_lib.replica_apply(self, grads, trainable_variables):
            return None
        return original(self, grads, trainable_variables)
    apply.__doc__ = original.__doc__
    base_optimizer.BaseOptimizer.apply = apply
    strategy._hook.clear()
