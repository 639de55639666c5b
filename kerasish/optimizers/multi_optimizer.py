"""`MultiOptimizer` and `OptimizerMap`: different optimizers for different variables."""
import collections.abc
import re

from kerasish import optimizers as _optimizers  # the package (serialize); used at call time
from kerasish.optimizers import base_optimizer
from kerasish.optimizers.optimizer import Optimizer


def _refuse_wrappers(optimizer, what):
    name = type(optimizer).__name__
    if name == "LossScaleOptimizer":
        raise ValueError(f"{what} cannot be LossScaleOptimizer.")
    if isinstance(optimizer, MultiOptimizer):
        raise ValueError(f"{what} cannot be MultiOptimizer.")


class OptimizerMap(collections.abc.MutableMapping):
    """Variable-path patterns -> optimizers, with a default for unmatched variables.

    A variable's optimizer is the one stored under its exact path, else the one whose
    pattern matches the whole path (`re.fullmatch`), else `default_optimizer`; two
    matching patterns are an error.

    Args:
        default_optimizer: the optimizer of unmatched variables.
        optimizer_map: an optional dict pattern -> optimizer.

    Example:
        >>> mapping = keras.optimizers.OptimizerMap(keras.optimizers.SGD(),
        ...                                         {"encoder/.*": keras.optimizers.Adam()})
    """

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, base_optimizer.BaseOptimizer):
            raise TypeError("default_optimizer must be a Keras Optimizer instance. "
                            f"Received: {default_optimizer}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = {}
        for key, optimizer in (optimizer_map or {}).items():
            self[key] = optimizer

    @property
    def default_optimizer(self):
        """The optimizer of variables no pattern matches."""
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matches = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(matches) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        return self._optimizer_map[matches[0]] if matches else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value "
                             f"{self._optimizer_map[key]}. Please make sure to not use "
                             "duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        if not isinstance(optimizer, base_optimizer.BaseOptimizer):
            raise ValueError(f"optimizer must be a Keras Optimizer instance. Received: {optimizer}")
        _refuse_wrappers(optimizer, "optimizer")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        return self[variable.path]

    def get_config(self):
        save = _optimizers.serialize
        return {"default_optimizer": save(self._default_optimizer),
                "optimizer_map": {k: save(v) for k, v in self._optimizer_map.items()}}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        def load(item, objects):
            return _optimizers.deserialize(item, custom_objects=objects)
        return cls(load(config["default_optimizer"], custom_objects),
                   {k: load(v, custom_objects) for k, v in config["optimizer_map"].items()})


class MultiOptimizer(Optimizer):
    """Applies each variable's gradient with the optimizer an `OptimizerMap` (or a function
    `variable -> optimizer`) picks for it.

    The sub-optimizers keep their own learning rates, slots and iteration counters; the
    MultiOptimizer counts its own steps and has no learning rate of its own (reading or
    setting it raises). `variables` lists its own variables, then each sub-optimizer's.

    Args:
        optimizer_map: an `OptimizerMap`, or a callable `variable -> optimizer`.
        loss_scale_factor: passed on to every sub-optimizer.
        name: the optimizer's name.

    Example:
        >>> optimizer = keras.optimizers.MultiOptimizer(keras.optimizers.OptimizerMap(
        ...     keras.optimizers.SGD(0.1), {".*/bias": keras.optimizers.Adam()}))
    """

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        self._inner_optimizers = []
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        self._optimizer_map = optimizer_map
        for optimizer in list(getattr(optimizer_map, "values", lambda: [])()) + [
                getattr(optimizer_map, "default_optimizer", None)]:
            if optimizer is not None and optimizer not in self._inner_optimizers:
                optimizer.loss_scale_factor = loss_scale_factor
                self._inner_optimizers.append(optimizer)

    @property
    def optimizers(self):
        """The sub-optimizers."""
        return list(self._inner_optimizers)

    @property
    def variables(self):
        own = list(self._variables)
        for optimizer in self._inner_optimizers:
            own.extend(optimizer.variables)
        return own

    @property
    def learning_rate(self):
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access the "
                             "learning rate on the individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the "
                             "learning rate on the individual sub-optimizers instead.")

    @property
    def loss_scale_factor(self):
        return self.__dict__.get("_loss_scale_factor")

    @loss_scale_factor.setter
    def loss_scale_factor(self, value):
        self.__dict__["_loss_scale_factor"] = value
        for optimizer in self.__dict__.get("_inner_optimizers", []):
            optimizer.loss_scale_factor = value

    def _optimizer_for(self, variable):
        optimizer = self._optimizer_map(variable)
        if not isinstance(optimizer, base_optimizer.BaseOptimizer):
            raise ValueError(f"Optimizer for variable {variable.path} is not an Optimizer "
                             "instance.")
        _refuse_wrappers(optimizer, "The optimizer inside a MultiOptimizer")
        if optimizer not in self._inner_optimizers:
            optimizer.loss_scale_factor = self.loss_scale_factor
            self._inner_optimizers.append(optimizer)
        return optimizer

    def build(self, var_list):
        """Assigns every variable to its sub-optimizer and builds each on its variables."""
        if self.built:
            return
        var_list = list(var_list)
        self._owner = {id(v): self._optimizer_for(v) for v in var_list}
        for optimizer in self._inner_optimizers:
            mine = [v for v in var_list if self._owner[id(v)] is optimizer]
            if mine:
                optimizer.build(mine)
        super().build(var_list)

    def apply(self, grads, trainable_variables=None):
        """Hands each (gradient, variable) pair to its sub-optimizer, then counts one step."""
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer "
                                 "must already be built on a list of variables. Call "
                                 "`optimizer.build(trainable_variables)` first.")
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
        if len(grads) != len(self._trainable_variables):
            raise ValueError("Gradients must match trainable variables one-to-one. Received "
                             f"{len(grads)} gradients and {len(self._trainable_variables)} "
                             "variables.")
        for optimizer in self._inner_optimizers:
            pairs = [(g, v) for g, v in zip(grads, trainable_variables)
                     if self._owner[id(v)] is optimizer]
            if pairs:
                optimizer.apply([g for g, _ in pairs], [v for _, v in pairs])
        self._iterations._value += 1

    def finalize_variable_values(self, var_list):
        """Lets each sub-optimizer finalise its own variables (EMA swaps)."""
        for optimizer in self._inner_optimizers:
            mine = [v for v in var_list if self._owner.get(id(v)) is optimizer]
            if mine:
                optimizer.finalize_variable_values(mine)

    def set_weights(self, weights):
        """Sets its own variables, then each sub-optimizer's, from one list (`variables` order)."""
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet "
                             "been built. Please call `optimizer.build(trainable_variables)` "
                             "to create the optimizer weights before calling `set_weights()`.")
        weights = list(weights)
        for variable, value in zip(self._variables, weights):
            variable.assign(value)
        start = len(self._variables)
        for optimizer in self._inner_optimizers:
            count = len(optimizer.variables)
            if count:
                optimizer.set_weights(weights[start:start + count])
                start += count

    def get_config(self):
        if not isinstance(self._optimizer_map, OptimizerMap):
            raise NotImplementedError("A MultiOptimizer built from a function cannot be "
                                      "serialized; build it from an OptimizerMap instead.")
        return {"optimizer_map": {"module": "keras.optimizers", "class_name": "OptimizerMap",
                                  "config": self._optimizer_map.get_config(),
                                  "registered_name": None},
                "loss_scale_factor": self.loss_scale_factor, "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        mapping = config["optimizer_map"]
        config["optimizer_map"] = OptimizerMap.from_config(mapping.get("config", mapping),
                                                           custom_objects)
        return cls(**config)
