"""Turns a model into the rows and totals of Keras 3's summary table.

The drawing itself is `kerasish.utils.summary_utils.render_summary`.
"""
import math
import re

from kerasish.backend import config
from kerasish.layers import symbolic
from kerasish.layers.core.input_layer import InputLayer
from kerasish.utils import summary_utils
from kerasish.utils.registry import REGISTRY


def print_model_summary(model, line_length=None, positions=None, print_fn=None,
                        expand_nested=False, show_trainable=False, layer_range=None):
    """Prints (or passes to `print_fn`) the summary table of `model`."""
    graph = _is_graph(model)
    layers = model._operations if graph else model.layers
    sequential_like = not graph or _is_chain(model)
    # As Keras: "Connected to" lists only the calls that belong to this model's
    # graph (nested layers' calls are not, so they show "-").
    nodes = None if sequential_like else {
        id(n) for level in model._nodes_by_depth.values() for n in level}
    rows = []
    for layer in _select(layers, layer_range):
        rows.extend(_rows(model, layer, 0, nodes, expand_nested))
    summary_utils.render_summary(model.name, rows, sequential_like=sequential_like,
                                 line_length=line_length, positions=positions,
                                 print_fn=print_fn, show_trainable=show_trainable,
                                 totals=_totals(model))


def _select(layers, layer_range):
    """Keras's layer_range: two regexes (`re.match` on names), from the first
    layer matching either bound to the last one matching the other."""
    if layer_range is None:
        return layers
    if len(layer_range) != 2:
        raise ValueError("layer_range must be a list or tuple of length 2. Received: "
                         f"layer_range = {layer_range} of length {len(layer_range)}")
    if not all(isinstance(bound, str) for bound in layer_range):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    lower = [i for i, l in enumerate(layers) if re.match(layer_range[0], l.name)]
    upper = [i for i, l in enumerate(layers) if re.match(layer_range[1], l.name)]
    if not lower or not upper:
        raise ValueError("Passed layer_names do not match the layer names in the model. "
                         f"Received: {layer_range}")
    if min(lower) > max(upper):
        return layers[min(upper):max(lower) + 1]
    return layers[min(lower):max(upper) + 1]


def _rows(model, layer, depth, nodes, expand_nested):
    """`nodes`: ids of the outer model's graph nodes, None when the table has
    no "Connected to" column."""
    row = {"name": f"{layer.name} ({type(layer).__name__})",
           "output_shape": _output_shape(layer),
           "params": _params(layer),
           "connected_to": "" if nodes is None else _connected_to(layer, nodes),
           "trainable": _trainable(layer), "depth": depth}
    rows = [row]
    if expand_nested and getattr(layer, "layers", None) and layer is not model:
        for sub in layer.layers:
            rows.extend(_rows(layer, sub, depth + 1, nodes, expand_nested))
    return rows


def _output_shape(layer):
    if layer._inbound_nodes:
        # As Keras's format_layer_shape: the last call's outputs, flattened (a
        # list, so several outputs print as "[(None, 1), (None, 2)]").
        outputs = layer._inbound_nodes[-1].output_tensors
        return summary_utils.format_shape([t.shape for t in outputs])
    # A functional model is built from its construction on (Keras records build
    # shapes `{"input_shape": None}` for it), so it shows its `output_shape` even
    # when only called on data inside a subclassed model.
    if layer.built and (layer._build_shapes is not None or _is_graph(layer)):
        # As Keras: a layer only called on data shows its shape if it can compute it
        # (its own `compute_output_shape`, or a model's `output_shape`); others show "?".
        try:
            if _shape_is_known(layer):
                if hasattr(type(layer), "output_shape"):
                    # Keras formats `output_shape` as one shape: several outputs
                    # print as "((None, 2), (None, 3))".
                    return "(" + ", ".join(str(d) for d in layer.output_shape) + ")"
                return summary_utils.format_shape(
                    layer.compute_output_shape(layer._build_shapes))
        except Exception:
            return "?"
    return "?"


def _is_graph(model):
    """A functional model (a graph of layers), not a Sequential stack nor a subclass.

    `Functional` and `Sequential` are defined on top of `Model`, which
    imports this module: they are found by name in the registry.
    """
    functional = REGISTRY.lookup_public("models", "Functional")
    sequential = REGISTRY.lookup_public("models", "Sequential")
    return isinstance(model, functional) and not isinstance(model, sequential)


def _shape_is_known(layer):
    return hasattr(type(layer), "output_shape") and getattr(layer, "built", False) \
        or symbolic._defines(layer, "compute_output_shape") \
        or getattr(type(layer), "_output_shape_known", False)


def _params(layer):
    if isinstance(layer, InputLayer):
        return "0"
    if not layer.built:
        return "0 (unbuilt)"
    return summary_utils.format_param_count(layer.count_params())


def _trainable(layer):
    if not layer.weights:
        return "-"
    return "Y" if layer.trainable else "N"


def _connected_to(layer, nodes):
    parts = []
    for node in layer._inbound_nodes:
        if id(node) not in nodes:
            continue
        for t in node.input_tensors:
            inbound, node_index, tensor_index = t._keras_history
            parts.append(f"{inbound.name}[{node_index}][{tensor_index}]")
    return ", ".join(parts) if parts else "-"


def _is_chain(model):
    """Keras's "sequential-like" test for functional models: one node per depth,
    none with several input tensors, and no layer called twice in the model."""
    nodes = []
    for depth in sorted(model._nodes_by_depth, reverse=True):
        level = model._nodes_by_depth[depth]
        if len(level) > 1 or (len(level) == 1 and len(level[0].input_tensors) > 1):
            return False
        nodes += level
    node_ids = {id(n) for n in nodes}
    for layer in model._operations:
        if sum(id(n) in node_ids for n in layer._inbound_nodes) > 1:
            return False
    return True


def _size(variables):
    count = sum(math.prod(v.shape) for v in variables)
    nbytes = sum(math.prod(v.shape) * config.to_numpy_dtype(v.dtype).itemsize for v in variables)
    return count, nbytes


def _totals(model):
    trainable = _size(model.trainable_weights)
    non_trainable = _size(model.non_trainable_weights)
    optimizer = None
    opt = getattr(model, "optimizer", None)
    if opt is not None and getattr(opt, "built", False):
        optimizer = _size(opt.variables)
    total = (trainable[0] + non_trainable[0] + (optimizer[0] if optimizer else 0),
             trainable[1] + non_trainable[1] + (optimizer[1] if optimizer else 0))
    return {"total": total, "trainable": trainable, "non_trainable": non_trainable,
            "optimizer": optimizer}
