"""Models: Model (subclassing and functional), Sequential, load/save/clone helpers."""
import json

from kerasish.layers.core.input_layer import InputLayer
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.models.functional import Functional
from kerasish.models.model import Model, model_from_json
from kerasish.models.sequential import Sequential
from kerasish.saving import saving_api, serialization
from kerasish.utils import registry, tree


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Loads a model saved with `model.save` (`.keras` zip or legacy `.h5`)."""
    return saving_api.load_model(filepath, custom_objects=custom_objects, compile=compile,
                                 safe_mode=safe_mode)


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Saves `model` to `filepath`, as `model.save(filepath)`."""
    return model.save(filepath, overwrite=overwrite, zipped=zipped, **kwargs)


def clone_model(model, input_tensors=None, clone_function=None, call_function=None,
                recursive=False, **kwargs):
    """A new model with the same architecture and freshly initialised weights.

    Sequential and functional models are rebuilt layer by layer (each layer
    through `clone_function`, by default `layer.__class__.from_config(layer.get_config())`)
    and, when the original is compiled, compiled from its compile config (a new optimizer
    of the same configuration), as in Keras; other models are rebuilt from their config.

    Args:
        model: the model to clone.
        input_tensors: optional new `keras.Input` tensor(s) for a functional model.
        clone_function: `layer -> new layer`, applied to every layer.
        call_function, recursive: accepted for Keras compatibility (not used).

    Example:
        >>> twin = keras.models.clone_model(model)   # same layers, new weights
    """
    clone_function = clone_function or (lambda layer: layer.__class__.from_config(
        layer.get_config()))
    if isinstance(model, Sequential):
        new_layers = [layer if isinstance(layer, InputLayer) and input_tensors is None
                      else clone_function(layer) for layer in model._stack
                      if not isinstance(layer, InputLayer) or input_tensors is None]
        if input_tensors is not None:
            new_layers = list(input_tensors if isinstance(input_tensors, (list, tuple))
                              else [input_tensors]) + new_layers
        elif model._stack and isinstance(model._stack[0], InputLayer):
            first = model._stack[0]
            new_layers[0] = InputLayer(batch_shape=first.batch_shape, dtype=first._input_dtype,
                                       name=first.name,   # as Keras: the same name
                                       optional=getattr(first, "optional", False))
        return _compiled_like(model, Sequential(new_layers, name=model.name,
                                                trainable=model.trainable))
    if isinstance(model, Functional):
        return _compiled_like(model, _clone_functional(model, input_tensors, clone_function))
    return model.__class__.from_config(model.get_config())


def _compiled_like(model, clone):
    """As Keras: a clone of a compiled Sequential/functional model is compiled the same way
    (a fresh optimizer from the same config)."""
    if getattr(model, "compiled", False):
        clone.compile_from_config(model.get_compile_config())
    return clone


def _clone_functional(model, input_tensors, clone_function):
    if input_tensors is not None:
        new_inputs = tree.flatten(input_tensors)
    else:
        new_inputs = []
        for t in model._inputs:
            layer = t._keras_history[0]
            # Keras names the new Input after the input *tensor* ("keras_tensor_3" when
            # `keras.Input` got no name), not after its layer
            new_inputs.append(InputLayer(batch_shape=layer.batch_shape, dtype=layer._input_dtype,
                                         name=t.name).output)
    tensor_map = {id(old): new for old, new in zip(model._inputs, new_inputs)}
    clones = {}

    def lookup(x):
        return tensor_map[id(x)] if isinstance(x, KerasTensor) else x

    for node in model._nodes:
        layer = node.layer
        if id(layer) not in clones:
            clones[id(layer)] = layer if getattr(layer, "_is_operation", False) \
                else clone_function(layer)
        args = tree.map_structure(lookup, list(node.call_args))
        kwargs = {k: tree.map_structure(lookup, v) for k, v in node.call_kwargs.items()}
        outputs = clones[id(layer)](*args, **kwargs)
        for old, new in zip(node.output_tensors, tree.flatten(outputs)):
            tensor_map[id(old)] = new
    new_outputs = tree.pack_sequence_as(model._outputs_struct,
                                        [tensor_map[id(t)] for t in model._outputs])
    new_inputs_struct = tree.pack_sequence_as(model._inputs_struct, new_inputs) \
        if input_tensors is None else input_tensors
    return Functional(new_inputs_struct, new_outputs, name=model.name,
                      trainable=model.trainable)


__all__ = ["Functional", "Model", "Sequential", "clone_model", "load_model", "model_from_json",
           "save_model"]

registry.REGISTRY.add_namespace("models", globals())
