"""Calling layers on KerasTensors (the functional API).

A layer that defines `compute_output_shape` is asked for its output shape.
Any other layer is *probed*: it runs on small zero tensors in inference
mode with every unknown (None) size set to 2, then to 3; output sizes that
follow the probe size are unknown (None) in the result. This lets any
custom layer join a functional model without writing shape logic.
"""
import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.layers.call_utils import call_signature, get_mask
from kerasish.layers.input_spec import assert_input_compatibility
from kerasish.layers.keras_tensor import KerasTensor, Node, any_symbolic
from kerasish.ops import core
from kerasish.utils import tree

_PROBE_SIZES = (2, 3)


def symbolic_call(layer, args, kwargs):
    """Builds `layer` from symbolic shapes, infers outputs, records a Node."""
    first = args[0] if args else next(iter(kwargs.values()))
    if layer.input_spec is not None and isinstance(first, (KerasTensor, list, tuple)):
        assert_input_compatibility(layer.input_spec, first, layer.name)
    if not layer.built:
        shapes = tree.map_structure(
            lambda t: tuple(t.shape) if isinstance(t, KerasTensor) else _shape_of(t), first)
        layer._maybe_build(shapes)
    kwargs = _with_mask_argument(layer, args, kwargs)
    outputs = layer.compute_output_spec(*args, **kwargs)
    _attach_masks(layer, first, outputs)
    Node(layer, args, kwargs, outputs)
    return outputs


def _with_mask_argument(layer, args, kwargs):
    """As Keras: a layer whose `call` takes `mask` gets its only tensor argument's
    symbolic mask, which then is a graph input of the call (`Connected to`).
    Only masks produced by recorded ops qualify (others flow at run time)."""
    if not call_signature(type(layer)).has_mask or kwargs.get("mask") is not None:
        return kwargs
    tensor_args = [a for a in args if any(isinstance(t, KerasTensor) for t in tree.flatten(a))]
    tensor_kwargs = [v for k, v in kwargs.items()
                     if any(isinstance(t, KerasTensor) for t in tree.flatten(v))]
    if len(tensor_args) + len(tensor_kwargs) != 1:
        return kwargs
    mask = _mask_of((tensor_args or tensor_kwargs)[0])
    flat = [m for m in tree.flatten(mask) if m is not None]
    if not flat or not all(m._keras_history is not None for m in flat):
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


def _attach_masks(layer, first, outputs):
    """Gives the symbolic outputs the `_keras_mask` Keras would compute (a bool
    KerasTensor), found by running `compute_mask` on small concrete inputs."""
    previous = _mask_of(first)
    if not (layer.supports_masking or previous is not None):
        return
    flat_outputs = [o for o in tree.flatten(outputs) if isinstance(o, KerasTensor)]
    if not flat_outputs:
        return
    try:  # symbolically, as Keras: the mask ops become graph nodes (e.g. `not_equal`)
        mask = layer.compute_mask(first, previous)
    except Exception:
        mask = _NO_MASK
    if mask is not _NO_MASK and all(isinstance(m, KerasTensor) or m is None
                                    for m in tree.flatten(mask)):
        for out, m in zip(flat_outputs, tree.flatten(mask)):
            if m is not None and out._keras_mask is None:
                out._keras_mask = m
        return
    runs = []
    saved = _tape._active[:]
    _tape._active.clear()
    try:
        for size in _PROBE_SIZES:
            concrete_first = _concrete(first, size)
            concrete_previous = _get_concrete_mask(concrete_first)
            with np.errstate(all="ignore"):
                mask = layer.compute_mask(concrete_first, concrete_previous)
            if mask is None:
                return
            runs.append((tree.flatten(mask), tree.flatten(concrete_previous)))
    except Exception:  # a compute_mask that needs real values: no symbolic mask
        return
    finally:
        _tape._active[:] = saved
    (masks_a, previous_a), (masks_b, _) = runs
    previous_flat = tree.flatten(previous)
    for out, ma, mb in zip(flat_outputs, masks_a, masks_b):
        if ma is None or out._keras_mask is not None:
            continue
        passed = [kt for kt, concrete in zip(previous_flat, previous_a) if concrete is ma]
        if passed:  # the input mask passed through unchanged: the same symbolic tensor
            out._keras_mask = passed[0]
        else:
            shape = tuple(None if da != db else da for da, db in zip(ma.shape, mb.shape))
            out._keras_mask = KerasTensor(shape, "bool")


_NO_MASK = object()


def _get_concrete_mask(x):
    return get_mask(x)


def _shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else None


def output_spec(layer, args, kwargs):
    """KerasTensors describing `layer`'s outputs for symbolic `args`."""
    if _defines(layer, "compute_output_shape") and len(args) == 1 and not _tensor_kwargs(kwargs):
        first = args[0]
        shapes = tree.map_structure(lambda t: tuple(t.shape), first)
        out_shapes = layer.compute_output_shape(shapes)
        dtype = layer.compute_dtype
        return _shapes_to_tensors(out_shapes, dtype)
    shapes, dtypes = _probe(layer, args, kwargs)
    tensors = [KerasTensor(s, d) for s, d in zip(shapes, tree.flatten(dtypes))]
    return tree.pack_sequence_as(dtypes, tensors)


def _shapes_to_tensors(out_shapes, dtype):
    if _is_shape(out_shapes):
        return KerasTensor(out_shapes, dtype)
    if isinstance(out_shapes, dict):
        return {k: _shapes_to_tensors(v, dtype) for k, v in out_shapes.items()}
    return type(out_shapes)(_shapes_to_tensors(s, dtype) for s in out_shapes)


def _is_shape(value):
    return isinstance(value, tuple) and all(d is None or isinstance(d, (int, np.integer)) for d in value)


def _defines(layer, method):
    """True when `layer`'s class has its own `method` (Layer's are marked `_kerasish_base`)."""
    return not getattr(getattr(type(layer), method), "_kerasish_base", False)


def _tensor_kwargs(kwargs):
    return any(isinstance(v, KerasTensor) for v in tree.flatten(list(kwargs.values())))


def _concrete(structure, size):
    """Replaces KerasTensors by zero tensors with None sizes set to `size`."""
    def make(x):
        if not isinstance(x, KerasTensor):
            return x
        shape = tuple(size if d is None else d for d in x.shape)
        tensor = core.convert_to_tensor(np.zeros(shape, dtype=x.dtype))
        if isinstance(x._keras_mask, KerasTensor):  # an all-True mask of the mask's shape
            mask_shape = tuple(size if d is None else d for d in x._keras_mask.shape)
            tensor._keras_mask = core.convert_to_tensor(np.ones(mask_shape, dtype=bool))
        return tensor
    return tree.map_structure(make, structure)


def _probe(layer, args, kwargs):
    """Runs the layer twice on zeros and returns (shapes, dtypes) of the outputs."""
    runs = []
    saved = _tape._active[:]
    _tape._active.clear()  # probes are never recorded
    try:
        with np.errstate(all="ignore"):  # probing with zeros may divide by zero: no warnings
            for size in _PROBE_SIZES:
                call_kwargs = _concrete(kwargs, size)
                call_kwargs.setdefault("training", False)
                outputs = layer(*_concrete(list(args), size), **call_kwargs)
                runs.append(tree.flatten(outputs))
    finally:
        _tape._active[:] = saved
        layer._clear_losses()  # `add_loss` in a probe is not a real loss (Keras records none)
    shapes = []
    for a, b in zip(*runs):
        shapes.append(tuple(None if da != db else da for da, db in zip(a.shape, b.shape)))
    dtypes = tree.pack_sequence_as(outputs, [t.dtype if isinstance(t, Tensor) else None
                                             for t in runs[0]])
    return shapes, dtypes


def probe_output_shape(layer, args, kwargs):
    """Output shape(s) of `layer` for input shape(s), by running a probe."""
    def placeholder(shape):
        return KerasTensor(shape, layer.compute_dtype, name="shape_probe")
    shape_args = [_to_placeholders(a, placeholder) for a in args]
    shapes, _ = _probe(layer, shape_args, kwargs)
    return tuple(shapes[0]) if len(shapes) == 1 else [tuple(s) for s in shapes]


def _to_placeholders(value, make):
    if _is_shape(value):
        return make(value)
    if isinstance(value, (list, tuple)):
        return [_to_placeholders(v, make) for v in value]
    return value
