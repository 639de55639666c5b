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
from kerasish.layers.keras_tensor import KerasTensor, Node
from kerasish.ops import core
from kerasish.utils import tree

_PROBE_SIZES = (2, 3)


def symbolic_call(layer, args, kwargs):
    """Builds `layer` from symbolic shapes, infers outputs, records a Node."""
    first = args[0] if args else next(iter(kwargs.values()))
    if not layer.built:
        shapes = tree.map_structure(
            lambda t: tuple(t.shape) if isinstance(t, KerasTensor) else _shape_of(t), first)
        layer._maybe_build(shapes)
    outputs = layer.compute_output_spec(*args, **kwargs)
    Node(layer, args, kwargs, outputs)
    return outputs


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
    from kerasish.layers.layer import Layer
    return getattr(type(layer), method) is not getattr(Layer, method)


def _tensor_kwargs(kwargs):
    return any(isinstance(v, KerasTensor) for v in tree.flatten(list(kwargs.values())))


def _concrete(structure, size):
    """Replaces KerasTensors by zero tensors with None sizes set to `size`."""
    def make(x):
        if not isinstance(x, KerasTensor):
            return x
        shape = tuple(size if d is None else d for d in x.shape)
        return core.convert_to_tensor(np.zeros(shape, dtype=x.dtype))
    return tree.map_structure(make, structure)


def _probe(layer, args, kwargs):
    """Runs the layer twice on zeros and returns (shapes, dtypes) of the outputs."""
    runs = []
    saved = _tape._active[:]
    _tape._active.clear()  # probes are never recorded
    try:
        for size in _PROBE_SIZES:
            call_kwargs = _concrete(kwargs, size)
            call_kwargs.setdefault("training", False)
            outputs = layer(*_concrete(list(args), size), **call_kwargs)
            runs.append(tree.flatten(outputs))
    finally:
        _tape._active[:] = saved
    shapes = []
    for a, b in zip(*runs):
        shapes.append(tuple(None if da != db else da for da, db in zip(a.shape, b.shape)))
    dtypes = tree.pack_sequence_as(outputs, [t.dtype if isinstance(t, Tensor) else None
                                             for t in runs[0]])
    return shapes, dtypes


def probe_output_shape(layer, args, kwargs):
    """Output shape(s) of `layer` for input shape(s), by running a probe."""
    def placeholder(shape):
        return KerasTensor(shape, layer.compute_dtype)
    shape_args = [_to_placeholders(a, placeholder) for a in args]
    shapes, _ = _probe(layer, shape_args, kwargs)
    return tuple(shapes[0]) if len(shapes) == 1 else [tuple(s) for s in shapes]


def _to_placeholders(value, make):
    if _is_shape(value):
        return make(value)
    if isinstance(value, (list, tuple)):
        return [_to_placeholders(v, make) for v in value]
    return value
