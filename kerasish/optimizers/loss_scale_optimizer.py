"""LossScaleOptimizer: dynamic loss scaling for mixed_float16 training (Keras's rules).

The loss is multiplied by a scale before differentiation so that small float16
gradients do not flush to zero. Each `apply` then checks the gradients: if all
are finite they are divided by the scale and handed to the inner optimizer, and
after `dynamic_growth_steps` such steps in a row the scale doubles; if any is
inf/NaN the update is skipped, the scale halves and the count restarts.
"""
import numpy as np

from kerasish.autodiff.indexed_slices import slices_of

from kerasish import ops
from kerasish.backend import keras_graph
from kerasish.optimizers import base_optimizer
from kerasish.optimizers.base_optimizer import BaseOptimizer
from kerasish import optimizers as _optimizers  # the package (serialize); used at call time

_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                  "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


class LossScaleOptimizer(BaseOptimizer):
    """Wraps an optimizer with dynamic loss scaling, as `keras.optimizers.LossScaleOptimizer`.

    `Model.compile` wraps the optimizer in one automatically when the model's
    dtype policy is "mixed_float16" (unless `auto_scale_loss=False`).

    Args:
        inner_optimizer: the optimizer that applies the unscaled gradients.
        initial_scale: the starting loss scale (default 2**15).
        dynamic_growth_steps: finite steps in a row before the scale doubles.
        name: the optimizer's name.

    Example:
        >>> opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1))
        >>> float(opt.scale_loss(1.0))
        32768.0
    """

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000,
                 name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, "
                             "simply set `loss_scale_factor` directly on the `inner_optimizer`.")
        for arg, default in _BASE_DEFAULTS.items():
            if arg in kwargs and kwargs.pop(arg) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{arg}`. Instead, set "
                                 f"`{arg}` on the `inner_optimizer`.")
        if kwargs:
            raise ValueError("LossScaleOptimizer does not support arguments: "
                             f"`{'`, `'.join(kwargs)}`.")
        if not isinstance(inner_optimizer, BaseOptimizer):
            raise ValueError("LossScaleOptimizer: `inner_optimizer` must be an optimizer "
                             f"instance. Received: inner_optimizer={inner_optimizer!r}")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.inner_optimizer.loss_scale_factor = None  # never scale twice

    def build(self, variables):
        """Creates the step counter and the scale, then builds the inner optimizer."""
        with base_optimizer.no_automatic_tracking():  # as Keras's decorated `build`
            self.step_counter = self.add_variable((), initializer="zeros", dtype="int64",
                                                  name="step_counter")
            self.dynamic_scale = self.add_variable((), initializer=float(self.initial_scale),
                                                   dtype="float32", name="dynamic_scale")
            self.inner_optimizer.build(variables)
            super().build(variables)

    @property
    def variables(self):
        """Own variables (iteration, learning_rate, step_counter, dynamic_scale), then inner's."""
        return self._variables[:] + self.inner_optimizer.variables

    def apply(self, grads, trainable_variables=None):
        """Applies the unscaled gradients if all are finite; adjusts the scale either way.

        Args:
            grads: gradients of the scaled loss, one per variable (or None).
            trainable_variables: the variables (optional once built).
        """
        grads = list(grads)
        if not self.built:
            self._build_in_name_scope(trainable_variables if trainable_variables is not None
                                      else self.inner_optimizer._trainable_variables,
                                      traced=keras_graph.active())
        if not self.check_finite(grads):
            self.step_counter.assign(0)
            self.dynamic_scale.assign(self.dynamic_scale.numpy() * np.float32(0.5))
            return
        scale = self.dynamic_scale.numpy()
        unscaled = [None if g is None else _unscaled(g, scale) for g in grads]
        self.inner_optimizer.apply(unscaled, trainable_variables)
        if int(self.step_counter.numpy()) == self.dynamic_growth_steps - 1:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(scale * np.float32(2.0))
        else:
            self.step_counter.assign(self.step_counter.numpy() + 1)

    def check_finite(self, grads):
        """True when every gradient (None ones skipped) is free of inf and NaN."""
        return all(bool(ops.all(ops.isfinite(g))) for g in grads if g is not None)

    def scale_loss(self, loss):
        """The loss times the current scale (`initial_scale` before the first step)."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        return ops.multiply(loss, scale)

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        if "inner_optimizer" in self.__dict__:
            self.inner_optimizer.learning_rate = learning_rate
        else:  # BaseOptimizer.__init__ sets up the (unused) own learning rate
            BaseOptimizer.learning_rate.fset(self, learning_rate)

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    def finalize_variable_values(self, var_list):
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self):
        return {"name": self.name,
                "inner_optimizer": _optimizers.serialize(self.inner_optimizer),
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        inner = _optimizers.deserialize(config.pop("inner_optimizer"),
                                       custom_objects=custom_objects)
        return cls(inner, **config)


def _unscaled(gradient, scale):
    """`gradient / scale`; a lookup gradient's rows are divided too, as Keras's
    sparse-aware divide does on TensorFlow (see autodiff/indexed_slices.py)."""
    result = ops.divide(gradient, ops.convert_to_tensor(scale))
    rows = slices_of(gradient)
    if rows is not None:
        result._indexed_slices = rows.with_values(rows.values / rows.values.dtype.type(scale))
    return result
