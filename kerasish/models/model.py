"""Model: a Layer with training (compile/fit/evaluate/predict) and inspection.

`keras.Model(inputs, outputs)` returns a `Functional`; subclasses of
`Model` define `call` and track layers assigned as attributes.
"""
import inspect
import json
import warnings

import numpy as np

from kerasish.layers.layer import Layer, warn_not_built
from kerasish.models import state_tree as state_tree_module, summary
from kerasish.saving import functional_config, saving_api
from kerasish.trainers.trainer import Trainer
from kerasish.utils.registry import REGISTRY


class Model(Trainer, Layer):
    """A trainable model: subclass it, or call it as `keras.Model(inputs, outputs)`.

    Example:
        >>> class MyModel(keras.Model):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.d1 = keras.layers.Dense(64, activation="relu")
        ...         self.d2 = keras.layers.Dense(10)
        ...     def call(self, x, training=None):
        ...         return self.d2(self.d1(x))
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            functional = _functional_class()
            return functional.__new__(functional, *args, **kwargs)
        obj = super().__new__(cls, *args, **kwargs)
        # Keras's Model.__new__ records no constructor arguments: a subclassed model's
        # auto-config holds only its defaults (or cannot be made when some are required).
        obj.__dict__["_init_args"] = ((), {})
        return obj

    def __init__(self, *args, **kwargs):
        if _functional_init_arguments(args, kwargs):
            # A subclass called as `CustomModel(inputs, outputs)`: as Keras does, make the
            # class a Functional subclass and build the graph (custom train_step etc. kept).
            _inject_functional_model_class(type(self))
            _functional_class().__init__(self, *args, **kwargs)
            return
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__ got positional arguments {args!r}: build "
                "functional models with keras.Model(inputs, outputs), or call "
                "super().__init__(**kwargs) in a subclass."
            )
        trainer_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in ("steps_per_execution",)}
        Layer.__init__(self, **kwargs)
        Trainer.__init__(self, **trainer_kwargs)

    @property
    def layers(self):
        """The model's direct sublayers, in assignment order."""
        return list(self._layers)

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Model.layers` attribute is reserved and should not be used. "
                             "Please use another name.")

    def get_layer(self, name=None, index=None):
        """Returns a sublayer by name or index.

        Args:
            name: the layer's name.
            index: position in `model.layers`.
        """
        if index is not None and name is not None:
            raise ValueError(
                "Provide only a layer name or a layer index. Received: "
                f"index={index}, name={name}."
            )
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(self.layers)} layers."
                )
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(
                f"No such layer: {name}. Existing layers are: {[l.name for l in self.layers]}."
            )
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def build(self, input_shape):
        """Marks the model built; a subclass builds its layers in its own `build`.

        As in Keras 3, a subclass without `build()` is not traced: its layers
        build on the first call on data (a warning says so).
        """
        if any(not layer.built for layer in self._flatten_layers(include_self=False)):
            warn_not_built(self)
        self.built = True

    build._kerasish_default = True

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Prints Keras 3's summary table of the model.

        Args:
            line_length: total width (default 88, or 108 with `Connected to`).
            positions: relative or absolute column ends.
            print_fn: called once with the whole table text instead of printing.
            expand_nested: also list the layers of nested models.
            show_trainable: add a Trainable column.
            layer_range: (first, last) layer names to show.
        """
        summary.print_model_summary(self, line_length=line_length, positions=positions,
                                    print_fn=print_fn, expand_nested=expand_nested,
                                    show_trainable=show_trainable, layer_range=layer_range)

    # Saving: delegated to kerasish.saving --------------------------------
    def export(self, filepath, format="tf_saved_model", **kwargs):
        """Not available: kerasish cannot write TensorFlow SavedModel, ONNX or
        OpenVINO artifacts; `model.save("model.keras")` writes Keras's own format."""
        raise NotImplementedError(
            f"Model.export(format={format!r}): exporting inference artifacts is not "
            "implemented in kerasish; save the model with `model.save('model.keras')`, "
            "which Keras loads.")

    def get_state_tree(self, value_format="backend_tensor"):
        """The model's variables as nested dicts keyed by the parts of their paths.

        Args:
            value_format: "backend_tensor" (the arrays) or "numpy_array" (copies).

        Returns:
            dict with "trainable_variables", "non_trainable_variables",
            "optimizer_variables" and "metrics_variables", each a nested dict.

        Example:
            >>> model.get_state_tree()["trainable_variables"]["sequential"]["dense"]["kernel"]
        """
        return {kind: state_tree_module.nested_values(variables, value_format)
                for kind, variables in state_tree_module.variables_by_kind(self).items()}

    def set_state_tree(self, state_tree):
        """Assigns the values of a `get_state_tree()`-shaped dict to the variables
        with those paths (paths it does not name keep their values).

        Args:
            state_tree: dict keyed by "trainable_variables", "non_trainable_variables",
                "optimizer_variables" and/or "metrics_variables".
        """
        state_tree_module.assign_state_tree(self, state_tree)

    def save_weights(self, filepath, overwrite=True, max_shard_size=None):
        """Saves all weights to a `.weights.h5` file in Keras 3's layout."""
        return saving_api.save_weights(self, filepath, overwrite=overwrite,
                                       max_shard_size=max_shard_size)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Loads weights from `.weights.h5`, `.keras` or legacy `.h5` files."""
        return saving_api.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Saves the whole model (config, weights, optimizer) to `.keras` or `.h5`."""
        return saving_api.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def to_json(self, **kwargs):
        """The model's serialized config (as in a `.keras` file's config.json) as a JSON
        string; `json.dumps` keyword arguments are accepted."""
        return json.dumps(saving_api.model_config(self), default=_json_default, **kwargs)

    def get_compile_config(self):
        """The serialized `compile()` arguments, or `{}` when not compiled (as Keras 3.15.1)."""
        if not self.compiled:
            return {}
        return saving_api._compile_config(self)

    def compile_from_config(self, config):
        """Compiles the model from `get_compile_config()`'s output (`load_model` calls it).

        As Keras: a model whose class overrides `compile()` is not compiled
        (a warning says so); override this method too, or compile after loading.
        """
        if type(self).compile is not Trainer.compile:
            warnings.warn(
                "`compile()` was not called as part of model loading because the model's "
                "`compile()` method is custom. All subclassed Models that have `compile()` "
                "overridden should also override `get_compile_config()` and "
                "`compile_from_config(config)`. Alternatively, you can call `compile()` "
                "manually after loading.", stacklevel=2)
            return
        saving_api._compile_from_config(self, config, None)

    def get_config(self):
        """Subclassed models: Keras's auto-config (see `Layer.get_config`)."""
        return Layer.get_config(self)

    get_config._kerasish_default = True

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Rebuilds a model: a functional config (`layers`, `input_layers`, ...) is
        revived as a functional graph when `cls` can take `(inputs, outputs)`;
        any other config goes to the constructor, as Keras does."""
        functional = _functional_class()
        functional_keys = ("name", "layers", "input_layers", "output_layers")
        if all(k in config for k in functional_keys):
            spec = inspect.getfullargspec(cls.__init__)
            functional_args = inspect.getfullargspec(functional.__init__).args[1:]
            if cls in (Model, functional) or spec.args[1:] == functional_args or \
                    (spec.varargs == "args" and spec.varkw == "kwargs"):
                return functional_config.functional_from_config(cls, config, custom_objects)
        config = {k: v for k, v in config.items() if k not in ("trainable", "dtype")}
        try:
            return cls(**config)
        except TypeError as e:
            raise TypeError(
                f"Unable to revive model from config. When overriding the `get_config()` "
                f"method, make sure that the returned config contains all items used as "
                f"arguments in the constructor to {cls}, which is the default behavior. You "
                f"can override this default behavior by defining a `from_config(cls, config)` "
                f"class method to specify how to create an instance of {cls.__name__} from "
                f"its config.\n\nReceived config={config}\n\nError encountered during "
                f"deserialization: {e}") from e


def _functional_init_arguments(args, kwargs):
    """Keras's test for `Model(inputs, outputs)`-style constructor arguments."""
    return len(args) == 2 or (len(args) == 1 and "outputs" in kwargs) or \
        ("inputs" in kwargs and "outputs" in kwargs)


def _inject_functional_model_class(cls):
    """Puts `Functional` in place of `Model` in `cls`'s bases (Keras's trick)."""
    functional = _functional_class()
    if cls is Model:
        return functional
    if cls is object or issubclass(cls, functional) or not issubclass(cls, Model):
        return cls
    cls.__bases__ = tuple(_inject_functional_model_class(base) for base in cls.__bases__)
    return cls


def _json_default(value):
    """Tuples are lists in JSON already; numpy scalars become Python numbers."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _functional_class():
    """`Functional`: a subclass of `Model` (defined on top of it, in functional.py), found
    by name in the registry."""
    return REGISTRY.lookup_public("models", "Functional")


def model_from_json(json_string, custom_objects=None):
    """Rebuilds a model (new weights) from `model.to_json()`'s output (Keras keeps it here,
    in `keras.src.models.model`, and exports it as `keras.models.model_from_json`).

    Args:
        json_string: the JSON text.
        custom_objects: dict name -> class/function for custom objects.

    Returns:
        The model.

    Example:
        >>> clone = keras.models.model_from_json(model.to_json())
    """
    return REGISTRY.deserialize(json.loads(json_string),
                                custom_objects=custom_objects)
