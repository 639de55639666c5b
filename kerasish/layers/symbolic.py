"""Calling layers on KerasTensors (the functional API).

A layer that defines `compute_output_shape` is asked for its output shape.
Any other layer is *traced*, as Keras's `compute_output_spec` does: its
`call` runs on the KerasTensors themselves, in inference mode, inside
`tracing()`. Every op answers KerasTensors with its shape rule (see
`kerasish.ops.symbolic`), so nothing is computed, unknown (None) sizes stay
None, and no graph node is recorded inside the trace. Sublayers met during a
trace are in turn asked for their output spec, without recording nodes.
No layer is ever run on made-up values.
"""
import copy
import inspect
import warnings

import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.layers.call_utils import call_signature, with_call_info
from kerasish.layers.input_spec import assert_input_compatibility
from kerasish.layers.keras_tensor import KerasTensor, Node, in_trace, tracing
from kerasish import tree as keras_tree
from kerasish.utils import tree


def symbolic_call(layer, args, kwargs, caller_kwargs=None):
    """Builds `layer` from symbolic shapes, infers outputs, records a Node.

    Inside a trace (a layer called from a traced `call`), no Node is recorded.
    `kwargs` are the call's arguments with `training` resolved; `caller_kwargs`
    the caller's own (default: `kwargs`), which decide what the Node records
    (`records_filled_arguments`).
    """
    caller_kwargs = kwargs if caller_kwargs is None else caller_kwargs
    first = args[0] if args else next(iter(kwargs.values()))
    if layer.input_spec is not None and isinstance(first, (KerasTensor, list, tuple)):
        assert_input_compatibility(layer.input_spec, first, layer.name)
    shapes = None if layer.built else tree.map_structure(
        lambda t: tuple(t.shape) if isinstance(t, KerasTensor) else _shape_of(t), first)
    if not layer.built and not layer.__dict__.get("_build_after_call"):
        layer._maybe_build(shapes)
    call_kwargs = kwargs
    kwargs = _with_mask_argument(layer, args, kwargs)
    try:
        outputs = layer.compute_output_spec(*args, **kwargs)
    except Exception as error:
        raise with_call_info(error, layer, args, call_kwargs, symbolic=True) from None
    if layer.__dict__.pop("_build_after_call", False) and not layer.built:
        layer._maybe_build(shapes)  # the build-by-tracing pass failed: built after the call
    _attach_masks(layer, first, outputs, kwargs.get("mask"))
    if not in_trace():
        Node(layer, args, kwargs if records_filled_arguments(layer, args, caller_kwargs)
             else caller_kwargs, outputs)
    return outputs


def records_filled_arguments(layer, args, kwargs):
    """Whether Keras's node of this call records the `mask` (and `training`) that
    `__call__` filled in. Keras fills it into the caller's kwargs dict, which the node records,
    unless step 1 of `__call__` converted the inputs into new containers: it does
    so when there are keyword arguments, not exactly one positional tensor, or a
    tensor whose dtype is not the layer's input dtype (never for layers that
    convert no inputs, as a functional model)."""
    if not getattr(layer, "_convert_input_args", True):
        return True
    return (not kwargs and len(args) == 1 and isinstance(args[0], KerasTensor)
            and args[0].dtype == layer.compute_dtype)


def _with_mask_argument(layer, args, kwargs):
    """As Keras: a layer whose `call` takes `mask` gets its only tensor argument's
    symbolic mask, which then is a graph input of the call (`Connected to`).
    Outside a trace, only masks produced by recorded ops qualify (others flow
    at run time)."""
    if not call_signature(type(layer)).has_mask or kwargs.get("mask") is not None:
        return kwargs
    tensor_args = [a for a in args if any(isinstance(t, KerasTensor) for t in tree.flatten(a))]
    tensor_kwargs = [v for k, v in kwargs.items()
                     if any(isinstance(t, KerasTensor) for t in tree.flatten(v))]
    if len(tensor_args) + len(tensor_kwargs) != 1:
        return kwargs
    mask = _mask_of((tensor_args or tensor_kwargs)[0])
    flat = [m for m in tree.flatten(mask) if m is not None]
    if not flat or not (in_trace() or all(m._keras_history is not None for m in flat)):
        return kwargs
    return {**kwargs, "mask": mask}


def _mask_of(x):
    """The symbolic mask(s) carried by KerasTensor(s), None when there are none."""
    if isinstance(x, KerasTensor):
        return x._keras_mask
    if isinstance(x, (list, tuple)):
        masks = [_mask_of(v) for v in x]
        return masks if any(m is not None for m in masks) else None
    return None


def _attach_masks(layer, first, outputs, explicit_mask=None):
    """Gives the symbolic outputs the `_keras_mask` Keras would compute (a bool
    KerasTensor): `compute_mask` runs on the KerasTensors, so its ops become
    graph nodes (e.g. `not_equal`), as in Keras. As Keras, a `mask` argument
    given to the call stands for the first input's mask."""
    previous = _mask_of(first) if explicit_mask is None else explicit_mask
    warn_if_mask_dropped(layer, previous)
    if not (layer.supports_masking or previous is not None):
        return
    flat_outputs = [o for o in tree.flatten(outputs) if isinstance(o, KerasTensor)]
    if not flat_outputs:
        return
    try:
        mask = layer.compute_mask(first, previous)
    except (TypeError, ValueError, NotImplementedError):  # a mask that needs values: none
        return
    for out, m in zip(flat_outputs, tree.flatten(mask)):
        if isinstance(m, KerasTensor) and out._keras_mask is None:
            out._keras_mask = m


def warn_if_mask_dropped(layer, previous_mask):
    """Keras's warning when a layer that does not support masking gets a masked input
    (the mask is dropped). Ops recorded on KerasTensors (`SymbolicOp`) never warn, as
    Keras's operations do not handle masks.

    Args:
        layer: the layer being called.
        previous_mask: the mask(s) of its first input (or its explicit `mask`).
    """
    if layer.supports_masking or getattr(layer, "_is_operation", False):
        return
    if any(m is not None for m in tree.flatten(previous_mask)):
        warnings.warn(
            f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input with "
            "a mask attached to it. However, this layer does not support masking and will "
            "therefore destroy the mask information. Downstream layers will not see the mask.")


def _shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else None


def output_spec(layer, args, kwargs):
    """KerasTensors describing `layer`'s outputs for symbolic `args`."""
    if _defines(layer, "compute_output_shape") and not _tensor_kwargs(kwargs):
        shapes = [tree.map_structure(lambda t: tuple(t.shape), a) for a in args]
        if len(args) == 1:
            return _shapes_to_tensors(layer.compute_output_shape(shapes[0]), layer.compute_dtype)
        by_name = _shapes_by_name(layer, shapes)
        if by_name is not None:
            return _shapes_to_tensors(layer.compute_output_shape(**by_name), layer.compute_dtype)
    return trace_call(layer, args, kwargs)


def _shapes_by_name(layer, shapes):
    """Keras's rule for several call arguments: `call(query, value)` maps onto
    `compute_output_shape(query_shape, value_shape)`; None when the names do not match."""
    call_params = [p for p in inspect.signature(layer.call).parameters.values()
                   if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    shape_params = inspect.signature(layer.compute_output_shape).parameters
    if len(call_params) < len(shapes):
        return None
    names = [f"{p.name}_shape" for p in call_params[:len(shapes)]]
    if not all(name in shape_params for name in names):
        return None
    return dict(zip(names, shapes))


def _shapes_to_tensors(out_shapes, dtype):
    if _is_shape(out_shapes):
        return KerasTensor(tuple(out_shapes), dtype)
    if isinstance(out_shapes, dict):
        return {k: _shapes_to_tensors(v, dtype) for k, v in out_shapes.items()}
    return type(out_shapes)(_shapes_to_tensors(s, dtype) for s in out_shapes)


def _is_shape(value):
    # Keras's map_shape_structure: a list or tuple of ints/None is one shape
    return isinstance(value, (list, tuple)) and all(d is None or isinstance(d, (int, np.integer)) for d in value)


def _defines(layer, method):
    """True when `layer`'s class has its own `method` (Layer's are marked `_kerasish_base`)."""
    return not getattr(getattr(type(layer), method), "_kerasish_base", False)


def _tensor_kwargs(kwargs):
    # as Keras's `get_shapes_dict`: masks are not arguments of `compute_output_shape`
    return any(isinstance(v, KerasTensor) for k, v in kwargs.items()
               if k != "mask" and not k.endswith("_mask") for v in tree.flatten(v))


def trace_call(layer, args, kwargs, scoped=True):
    """Runs `layer`'s call on KerasTensors and returns fresh output specs.

    `training` is what the call gets by Keras's rule (`resolve_training`): as
    recorded, else the call context's, else `call`'s default (None for most
    layers, so they trace in inference mode).

    Nothing is computed or recorded on a tape, and losses added during the
    trace are dropped (Keras records none for a symbolic call). `scoped=False`
    leaves `layer`'s name out of the paths of the variables built meanwhile.
    """
    if in_trace():
        return _trace_once(layer, args, kwargs, scoped)
    try:
        return _trace_once(layer, *_stand_ins(args, kwargs), scoped)
    except Exception as error:  # noqa: BLE001 - retried below, re-raised if that fails too
        # ops on KerasTensors (`_is_operation`) keep their own shape rules and errors
        if getattr(layer, "_is_operation", False) or not _has_unknown_dims(args, kwargs):
            raise
        failure = error
    # A call doing arithmetic on an unknown dimension (`ops.shape(x)[0] * ...`, the
    # keras-io OCR model's CTC layer) works in Keras, whose trace sees a dynamic size.
    # As Keras's JAX backend: trace with two stand-in sizes, unknown where they differ.
    unbuilt = [sub for sub in layer._flatten_layers() if not sub.built]
    try:
        probes = [_trace_once(layer, *_stand_ins(args, kwargs, size), scoped)
                  for size in _PROBE_SIZES]
    except Exception:  # noqa: BLE001 - the first error says more
        raise failure from None
    if not _forget_probe_sizes(unbuilt):
        raise failure from None
    return tree.map_structure(_merge_probes, *probes)


def retry_with_sizes(trace, arguments, unbuilt):
    """Retries a failed build-by-tracing pass with a stand-in size for unknown dimensions
    (see `trace_call`); True when it then succeeds.

    Args:
        trace: callable `trace(size)` running the pass.
        arguments: the call's arguments.
        unbuilt: the layers unbuilt before the pass (their build shapes get None back).
    """
    if not _has_unknown_dims(tuple(arguments), {}):
        return False
    try:
        trace(_PROBE_SIZES[0])
    except Exception:  # noqa: BLE001 - the caller reports the first failure
        return False
    return _forget_probe_sizes(unbuilt)


def _forget_probe_sizes(unbuilt):
    """Layers built by a sized retry record the unknown size, as Keras's trace does.

    Returns False when one of them made a weight of a stand-in size: the call
    needed that size known (a Dense on an unknown last axis), as Keras reports.
    """
    for sub in unbuilt:
        if any(d in _PROBE_SIZES for w in sub.weights for d in w.shape):
            return False
        if sub.built and sub._build_shapes is not None:
            sub._build_shapes = keras_tree.map_shape_structure(_unprobed, sub._build_shapes)
    return True


def _unprobed(shape):
    if not isinstance(shape, (list, tuple)):
        return shape
    return type(shape)(None if d == _PROBE_SIZES[0] else d for d in shape)


_PROBE_SIZES = (83, 89)


def _has_unknown_dims(args, kwargs):
    return any(isinstance(x, KerasTensor) and None in x.shape
               for x in tree.flatten([list(args), list(kwargs.values())]))


def _merge_probes(first, second):
    if not isinstance(first, KerasTensor):
        return first
    shape = tuple(a if a == b else None for a, b in zip(first.shape, second.shape))
    return KerasTensor(shape, first.dtype, sparse=first.sparse, ragged=first.ragged)


def _trace_once(layer, args, kwargs, scoped):
    call_kwargs = dict(kwargs)
    saved = _tape._active[:]
    _tape._active.clear()
    try:
        with tracing():
            outputs = layer._call_eager(tuple(args), call_kwargs, scoped=scoped, traced=True)
    finally:
        _tape._active[:] = saved
        layer._clear_losses()
    return tree.map_structure(_fresh_spec, outputs)


def _stand_ins(args, kwargs, size=None):
    """`args` and `kwargs` with each KerasTensor replaced by a copy (one per tensor).

    Keras traces `call` on graph placeholders made from the KerasTensors, so what
    `call` does to its inputs (MultiHeadAttention deletes their `_keras_mask`) does
    not reach the caller's tensors. With `size`, unknown dimensions (of the
    tensors and their masks) become `size`.
    """
    copies = {}

    def stand_in(x):
        if not isinstance(x, KerasTensor):
            return x
        if id(x) not in copies:
            copies[id(x)] = copy.copy(x)
            if size is not None:
                copies[id(x)].shape = tuple(size if d is None else d for d in x.shape)
                mask = x._keras_mask
                if isinstance(mask, KerasTensor) and None in mask.shape:
                    copies[id(x)]._keras_mask = KerasTensor(
                        tuple(size if d is None else d for d in mask.shape), mask.dtype)
        return copies[id(x)]
    return (tuple(tree.map_structure(stand_in, a) for a in args),
            {k: tree.map_structure(stand_in, v) for k, v in kwargs.items()})


def _fresh_spec(x):
    """A new KerasTensor like `x` (outputs must never be the inputs' own tensors)."""
    if isinstance(x, KerasTensor):
        return KerasTensor(tuple(x.shape), x.dtype, sparse=x.sparse, ragged=x.ragged)
    if isinstance(x, Tensor):
        return KerasTensor(tuple(x.shape), x.dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        return KerasTensor(x.shape, x.dtype)
    return x


def traced_output_shape(layer, args, kwargs):
    """Output shape(s) of `layer` for input shape(s), by tracing its call."""
    def placeholder(shape):
        return KerasTensor(shape, layer.compute_dtype, name="shape_placeholder")
    shape_args = [_to_placeholders(a, placeholder) for a in args]
    traced = trace_call(layer, shape_args, kwargs)
    shapes = [tuple(o.shape) for o in tree.flatten(traced)]
    if len(shapes) == 1:
        return shapes[0]
    return tuple(shapes) if isinstance(traced, tuple) else shapes  # a tuple call gives a tuple


def _to_placeholders(value, make):
    if _is_shape(value):
        return make(value)
    if isinstance(value, (list, tuple)):
        return [_to_placeholders(v, make) for v in value]
    return value


def stand_in(value, pairs, size=None):
    """A KerasTensor standing in for a call argument in a layer's build-by-tracing pass
    (`Layer._trace_to_build`); `(value, stand-in)` is added to `pairs` when `value` has a mask.
    With `size`, a KerasTensor's unknown dimensions become `size`."""
    if isinstance(value, KerasTensor):
        shape = tuple(value.shape) if size is None else \
            tuple(size if d is None else d for d in value.shape)
        return KerasTensor(shape, value.dtype, sparse=value.sparse, ragged=value.ragged)
    if not isinstance(value, Tensor):
        return value
    stand = KerasTensor(tuple(value.shape), value.dtype)
    mask = getattr(value, "_keras_mask", None)
    if isinstance(mask, Tensor):
        stand._keras_mask = KerasTensor(tuple(mask.shape), mask.dtype)
        pairs.append((value, stand))
    return stand


def warn_untraceable(layer, error):
    """Keras's warning when a symbolic call cannot trace a layer to build it."""
    warnings.warn(
        f"Layer '{layer.name}' looks like it has unbuilt state, but Keras is not able to "
        "trace the layer `call()` in order to build it automatically. Possible causes:\n"
        "1. The `call()` method of your layer may be crashing. Try to `__call__()` the "
        "layer eagerly on some test input first to see if it works. E.g. "
        "`x = np.random.random((3, 4)); y = layer(x)`\n"
        "2. If the `call()` method is correct, then you may need to implement the "
        "`def build(self, input_shape)` method on your layer. It should create all "
        "variables used by the layer (e.g. by calling `layer.build()` on all its children "
        "layers).\n"
        f"Exception encountered: ''{error}''", stacklevel=4)
