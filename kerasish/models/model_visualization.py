"""`keras.utils.plot_model` and `model_to_dot`: a model's layer graph drawn with Graphviz.

Needs `pydot` (the `plot` extra) and, to render an image, Graphviz's `dot` program
(`apt-get install graphviz` on Debian). The dot graph has Keras's shape: one node per
layer (id: `str(id(layer))`) labelled with an HTML table, edges from producer to
consumer, nested models as dashed clusters with `expand_nested=True`.
"""
import os

from kerasish.models.functional import Functional
from kerasish.models.sequential import Sequential
from kerasish.utils import tree

_PYDOT_MESSAGE = "You must install pydot (`pip install pydot`) for `plot_model` to work."
_GRAPHVIZ_MESSAGE = ("You must install graphviz (see instructions at "
                     "https://graphviz.gitlab.io/download/) for `plot_model` to work.")


def _pydot():
    try:  # optional dependency: the `plot` extra
        import pydot
    except ImportError:
        return None
    return pydot


def check_pydot():
    """True if pydot can be imported."""
    return _pydot() is not None


def check_graphviz():
    """True if pydot is installed and Graphviz's `dot` program runs."""
    pydot = _pydot()
    if pydot is None:
        return False
    try:
        pydot.Dot.create(pydot.Dot())
        return True
    except (OSError, pydot.PydotException):
        return False


def _activation_name(layer):
    activation = layer.activation
    return getattr(activation, "name", None) or getattr(activation, "__name__", None) or str(
        activation)


def _format_shape(shape):
    if shape is None:
        return "?"
    if isinstance(shape, dict):
        text = ", ".join(f"{k}: {v}" for k, v in shape.items())
    else:
        text = f"{shape}"
    return text.replace("}", "").replace("{", "")


def _tensor_attr(layer, which, attr):
    try:
        return tree.map_structure(lambda t: getattr(t, attr), getattr(layer, which))
    except (ValueError, AttributeError):
        return None


def _cell(text, color="white", font=""):
    return f'<td bgcolor="{color}"><font point-size="14"{font}>{text}</font></td>'


def layer_label(layer, show_layer_names, show_layer_activations, show_dtype, show_shapes,
                show_trainable):
    """The HTML-table label of one layer's node, as Keras draws it.

    Args:
        layer: the layer.
        show_layer_names, show_layer_activations, show_dtype, show_shapes,
        show_trainable: what to show (see `model_to_dot`).

    Returns:
        the label string (Graphviz HTML-like, wrapped in `<...>`).
    """
    class_name = type(layer).__name__
    colspan = max(1, int(show_dtype) + int(show_trainable) + (2 if show_shapes else 0))
    title = f"<b>{layer.name}</b> ({class_name})" if show_layer_names else f"<b>{class_name}</b>"
    rows = [f'<tr><td colspan="{colspan}" bgcolor="black"><font point-size="16" '
            f'color="white">{title}</font></td></tr>']
    if show_layer_activations and getattr(layer, "activation", None) is not None:
        rows.append(f'<tr><td bgcolor="white" colspan="{colspan}"><font point-size="14">'
                    f"Activation: <b>{_activation_name(layer)}</b></font></td></tr>")
    cells = []
    if show_shapes:
        if class_name != "InputLayer":
            shape = _tensor_attr(layer, "input", "shape")
            cells.append(_cell(f"Input shape: <b>{_format_shape(shape)}</b>"))
        shape = _tensor_attr(layer, "output", "shape")
        cells.append(_cell(f"Output shape: <b>{_format_shape(shape)}</b>"))
    if show_dtype:
        cells.append(_cell(f"Output dtype: <b>{_tensor_attr(layer, 'output', 'dtype') or '?'}</b>"))
    if show_trainable and layer.weights:
        text, color = ("Trainable", "forestgreen") if layer.trainable else (
            "Non-trainable", "firebrick")
        cells.append(_cell(f"<b>{text}</b>", color, ' color="white"'))
    if cells:
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return ('<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
            + "".join(rows) + "</table>>")


def _add_node(dot, layer, options):
    pydot = _pydot()
    node = pydot.Node(str(id(layer)), label=layer_label(layer, **options))
    node.set("fontname", "Helvetica")
    node.set("border", "0")
    node.set("margin", "0")
    dot.add_node(node)


def _add_edge(dot, source, destination):
    pydot = _pydot()
    src, dst = str(id(source)), str(id(destination))
    if not dot.get_edge(src, dst):
        edge = pydot.Edge(src, dst)
        edge.set("penwidth", "2")
        dot.add_edge(edge)


def _is_model_graph(layer):
    return isinstance(layer, (Functional, Sequential))


def _innermost_source(layer, output_index):
    """The real layer that makes output `output_index` of a (possibly nested) model."""
    while _is_model_graph(layer):
        layer, _, output_index = layer.outputs[output_index]._keras_history
    return layer


def _innermost_destination(layer, input_index):
    """The box an edge into a (possibly nested) model points at."""
    while _is_model_graph(layer):
        if isinstance(layer, Functional):
            layer = layer.inputs[input_index]._keras_history[0]
        else:
            layer = layer.layers[0]
    return layer


def _graph_layers(model):
    """The layers drawn for `model`: Sequential's layers, or the functional graph's
    operations (InputLayers and ops on KerasTensors included)."""
    if isinstance(model, Sequential):
        return model.layers
    return list(model._operations)


def _in_graph(model, layer, node):
    return not isinstance(model, Functional) or node in model._nodes or node.is_input


def _connect(dot, model, layers, expand_nested):
    for layer in layers:
        for node in layer._inbound_nodes:
            if not _in_graph(model, layer, node):
                continue
            for input_index, tensor in enumerate(node.input_tensors):
                history = tensor._keras_history
                if history is None:
                    continue
                source_layer, _, output_index = history
                if not expand_nested:
                    _add_edge(dot, source_layer, layer)
                    continue
                _add_edge(dot, _innermost_source(source_layer, output_index),
                          _innermost_destination(layer, input_index))


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=200, subgraph=False,
                 show_layer_activations=False, show_trainable=False, splines="ortho",
                 **kwargs):
    """The model's layer graph as a `pydot.Dot` (or `pydot.Cluster` with `subgraph=True`).

    Args:
        model: a built model.
        show_shapes: show each layer's input and output shapes.
        show_dtype: show each layer's output dtype.
        show_layer_names: show layer names beside class names.
        rankdir: "TB" (top to bottom) or "LR" (left to right).
        expand_nested: draw nested Functional/Sequential models as clusters.
        dpi: the image resolution.
        subgraph: return a `pydot.Cluster` (used for nested models).
        show_layer_activations: show the `activation` of layers that have one.
        show_trainable: mark layers with weights as trainable or not.
        splines: how edges are drawn ("ortho", "curved", "polyline", "spline", "line").

    Returns:
        a `pydot.Dot` or `pydot.Cluster`.

    Example:
        >>> dot = keras.utils.model_to_dot(model, show_shapes=True)
        >>> print(dot.to_string()[:7])
        digraph
    """
    if not model.built:
        raise ValueError("This model has not yet been built. Build the model first by calling "
                         "`build()` or by calling the model on a batch of data.")
    pydot = _pydot()
    if pydot is None:
        raise ImportError("You must install pydot (`pip install pydot`) for model_to_dot "
                          'to work (pip install "kerasish[plot]").')
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set("splines", splines)
        dot.set_node_defaults(shape="record")
    options = dict(show_layer_names=show_layer_names,
                   show_layer_activations=show_layer_activations, show_dtype=show_dtype,
                   show_shapes=show_shapes, show_trainable=show_trainable)
    if not _is_model_graph(model):  # a subclassed model is one box
        _add_node(dot, model, options)
        return dot
    layers = _graph_layers(model)
    for layer in layers:
        if expand_nested and _is_model_graph(layer):
            dot.add_subgraph(model_to_dot(
                layer, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                subgraph=True, show_layer_activations=show_layer_activations,
                show_trainable=show_trainable))
        else:
            _add_node(dot, layer, options)
    if isinstance(model, Sequential):
        if not expand_nested:
            for first, second in zip(layers, layers[1:]):
                _add_edge(dot, first, second)
            return dot
        layers = layers[1:]
    _connect(dot, model, layers, expand_nested)
    return dot


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=False, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False, splines="ortho", **kwargs):
    """Draws the model's layer graph into an image file (Graphviz).

    Args:
        model: a built model.
        to_file: the image path; its extension picks the format (png, svg, pdf, dot...).
        show_shapes, show_dtype, show_layer_names, rankdir, expand_nested, dpi,
        show_layer_activations, show_trainable, splines: as in `model_to_dot`
            (note `show_layer_names` defaults to False here, as in Keras).

    Returns:
        an `IPython.display.Image` when IPython is installed (not for pdf), else None.

    Example:
        >>> keras.utils.plot_model(model, "model.png", show_shapes=True)
    """
    if not model.built:
        raise ValueError("This model has not yet been built. Build the model first by calling "
                         "`build()` or by calling the model on a batch of data.")
    if not check_pydot():
        raise ImportError(_PYDOT_MESSAGE)
    if not check_graphviz():
        raise ImportError(_GRAPHVIZ_MESSAGE)
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, splines=splines, **kwargs)
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:] or "png"
    dot.write(to_file, format=extension)
    if extension != "pdf":
        try:  # optional dependency: inline display in notebooks
            from IPython import display
            return display.Image(filename=to_file)
        except ImportError:
            pass
    return None
