"""`keras.optimizers.Optimizer`: the class to subclass for a custom optimizer."""
from kerasish.optimizers.base_optimizer import BaseOptimizer


class Optimizer(BaseOptimizer):
    __doc__ = BaseOptimizer.__doc__
