"""Text of `Model.summary()`: the rich table that Keras 3 prints.

The renderer knows nothing about layers or models. The caller turns a model
into plain rows and totals (see `render_summary`), which keeps the layout
rules of `keras/src/utils/summary_utils.py` in one place and testable on
their own.
"""
import math
import re
import shutil

import numpy as np
import rich.console
import rich.markup
import rich.table

from kerasish.backend import switches
from kerasish.utils import io_utils

# Bits per element, as Keras counts them (`bool` is one bit, not one byte).
_DTYPE_BITS = {
    **{f"float{i}": i for i in (16, 32, 64)},
    **{f"int{i}": i for i in (8, 16, 32, 64)},
    **{f"uint{i}": i for i in (8, 16, 32, 64)},
    "bfloat16": 16,
    "bool": 1,
}
_MEMORY_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")

_SEQUENTIAL_COLUMNS = (
    ["Layer (type)", "Output Shape", "Param #"],
    ["left", "left", "right"],
)
_GRAPH_COLUMNS = (
    ["Layer (type)", "Output Shape", "Param #", "Connected to"],
    ["left", "left", "right", "left"],
)
_SEQUENTIAL_DEFAULTS = (88, [0.45, 0.80, 1.0])
_GRAPH_DEFAULTS = (108, [0.3, 0.56, 0.74, 1.0])
_TRAINABLE_EXTRA_WIDTH = 12
_TRAINABLE_SCALE = 0.90

_NUMBER_COLOR = 34
_NONE_COLOR = 45
_SYMBOL_COLOR = 33
_FROZEN_COLOR = 9


def format_param_count(n):
    """Formats a parameter count with thousands separators.

    Args:
        n: int, number of parameters.

    Returns:
        str: the count with commas.

    Example:
        >>> format_param_count(54410)
        '54,410'
    """
    return f"{int(n):,}"


def readable_memory_size(size):
    """Formats a size in bytes with a binary (1024-step) unit.

    Args:
        size: number of bytes (int or float).

    Returns:
        str: `"{:.2f} {unit}"` with unit one of B, KB, MB, GB, TB, PB.

    Example:
        >>> readable_memory_size(217640)
        '212.54 KB'
    """
    # Like Keras, the last unit divides once more too (2048 PB -> 2.00 PB).
    for unit in _MEMORY_UNITS:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} {_MEMORY_UNITS[-1]}"


def _is_shape(x):
    """A shape is a flat list/tuple of dimensions (ints or None)."""
    return isinstance(x, (list, tuple)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in x
    )


def _shape_text(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _map_shapes(structure, fn):
    """Applies `fn` to every shape of a nested structure, keeping its type."""
    if _is_shape(structure):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _map_shapes(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        mapped = [_map_shapes(v, fn) for v in structure]
        if hasattr(structure, "_fields"):
            return type(structure)(*mapped)
        return type(structure)(mapped)
    return fn(structure)


def _count_shapes(structure):
    if _is_shape(structure):
        return 1
    if isinstance(structure, dict):
        return sum(_count_shapes(v) for v in structure.values())
    if isinstance(structure, (list, tuple)):
        return sum(_count_shapes(v) for v in structure)
    return 1


def _single_shape(structure):
    """The only shape of a structure that holds exactly one."""
    while not _is_shape(structure):
        if isinstance(structure, dict):
            structure = next(v for v in structure.values() if _count_shapes(v))
        else:
            structure = next(v for v in structure if _count_shapes(v))
    return structure


def format_shape(shape):
    """Formats an output shape, or a structure of shapes, as Keras prints it.

    Args:
        shape: a tuple/list of ints and None, or nested lists/tuples/dicts of
            such shapes.

    Returns:
        str: `"(None, 26, 26, 32)"` for one shape (also when it is wrapped in a
        one-element structure); for several, the structure's `str()` with
        quotes removed, e.g. `"[(None, 4), (None, 2)]"`.

    Example:
        >>> format_shape((None, 26, 26, 32))
        '(None, 26, 26, 32)'
        >>> format_shape({"a": (None, 1), "b": [None, 2]})
        '{a: (None, 1), b: (None, 2)}'
    """
    if _count_shapes(shape) == 1:
        return _shape_text(_single_shape(shape))
    return str(_map_shapes(shape, _shape_text)).replace("'", "")


def _dtype_bits(dtype):
    name = getattr(dtype, "name", None) or str(dtype)
    if name not in _DTYPE_BITS:
        try:
            return np.dtype(name).itemsize * 8
        except TypeError:
            raise ValueError(f"Invalid dtype: {dtype}") from None
    return _DTYPE_BITS[name]


def count_params(weights):
    """Number of scalars in a list of weights.

    Args:
        weights: iterable of objects with a `.shape`.

    Returns:
        int: sum of the products of the shapes.

    Example:
        >>> count_params([np.zeros((3, 4)), np.zeros(4)])
        16
    """
    return int(sum(math.prod(w.shape) for w in weights))


def weight_memory_size(weights):
    """Memory footprint of weights in bytes, each weight counted once.

    Sizes follow the element width of each dtype; like Keras, `bool` counts
    one bit, so the result is a float that can hold fractions of a byte.

    Args:
        weights: iterable of objects with `.shape` and `.dtype` (a dtype
            string such as `"float32"` or a numpy dtype).

    Returns:
        float: total size in bytes.

    Example:
        >>> weight_memory_size([np.zeros((10, 10), "float32")])
        400.0
    """
    unique = {id(w): w for w in weights}.values()
    bits = sum(math.prod(w.shape) * _dtype_bits(w.dtype) for w in unique)
    return bits / 8


def _layout(sequential_like, positions, show_trainable):
    """Default width, positions, headers and alignments of the table."""
    if sequential_like:
        (headers, alignment), (default_width, default_positions) = (
            _SEQUENTIAL_COLUMNS, _SEQUENTIAL_DEFAULTS)
    else:
        (headers, alignment), (default_width, default_positions) = (
            _GRAPH_COLUMNS, _GRAPH_DEFAULTS)
    headers, alignment = list(headers), list(alignment)
    positions = list(positions or default_positions)
    if show_trainable:
        default_width += _TRAINABLE_EXTRA_WIDTH
        positions = [p * _TRAINABLE_SCALE for p in positions] + [1.0]
        headers.append("Trainable")
        alignment.append("center")
    return default_width, positions, headers, alignment


def _column_widths(line_length, positions):
    widths = []
    for pos in positions:
        width = int(pos * line_length) - sum(widths)
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
    return widths


def _color(text, color):
    return f"[color({color})]{text}[/]"


def _bold(text, color=None):
    return f"[bold]{_color(text, color) if color else text}[/]"


def _name_cell(name, depth):
    """`prefix + name (Class)` with the class name highlighted."""
    prefix = "   " * depth + "└ " if depth else ""
    match = re.fullmatch(r"(.*) \(([^()]+)\)", name, flags=re.S)
    if not match:
        return rich.markup.escape(prefix + name)
    layer_name, class_name = match.groups()
    escaped_class = rich.markup.escape(class_name)
    return (rich.markup.escape(prefix + layer_name)
            + f" ({_color(escaped_class, _SYMBOL_COLOR)})")


def _shape_cell(shape):
    def highlight(match):
        color = _NONE_COLOR if match.group(0) == "None" else _NUMBER_COLOR
        return _color(match.group(0), color)

    return re.sub(r"\b(None|\d+)\b", highlight, rich.markup.escape(shape))


def _params_cell(params):
    return re.sub(r"^[\d,]+", lambda m: _color(m.group(0), _NUMBER_COLOR),
                  rich.markup.escape(params))


def _connections_cell(connections):
    return re.sub(r"\[(\d+)\]",
                  lambda m: f"[{_color(m.group(1), _NUMBER_COLOR)}]",
                  rich.markup.escape(connections))


def _trainable_cell(flag):
    if flag == "Y":
        return _bold("Y", _NUMBER_COLOR)
    if flag == "N":
        return _bold("N", _FROZEN_COLOR)
    return _bold(rich.markup.escape(flag))


def _row_cells(row, sequential_like, show_trainable):
    cells = [
        _name_cell(row["name"], row.get("depth", 0)),
        _shape_cell(row["output_shape"]),
        _params_cell(row["params"]),
    ]
    if not sequential_like:
        cells.append(_connections_cell(row.get("connected_to", "-")))
    if show_trainable:
        cells.append(_trainable_cell(row.get("trainable", "-")))
    return cells


def _build_table(rows, sequential_like, line_length, positions, show_trainable):
    default_width, positions, headers, alignment = _layout(
        sequential_like, positions, show_trainable)
    # Keras applies the terminal limit to the default even when a print_fn
    # captures the text; an explicit line_length is used as given.
    default_width = min(default_width, shutil.get_terminal_size().columns - 4)
    line_length = line_length or default_width
    widths = _column_widths(line_length, positions)
    columns = [
        rich.table.Column(header, justify=justify, width=width)
        for header, justify, width in zip(headers, alignment, widths)
    ]
    table = rich.table.Table(*columns, width=line_length, show_lines=True)
    for row in rows:
        table.add_row(*_row_cells(row, sequential_like, show_trainable))
    return table


def _footer_lines(totals):
    labels = [("total", "Total"), ("trainable", "Trainable"),
              ("non_trainable", "Non-trainable"), ("optimizer", "Optimizer")]
    lines = []
    for key, label in labels:
        if totals.get(key) is None:
            continue
        count, size = totals[key]
        lines.append(_bold(f" {label} params: ")
                     + _color(format_param_count(count), _NUMBER_COLOR)
                     + f" ({readable_memory_size(size)})")
    return lines


def render_summary(model_name, rows, *, sequential_like, line_length=None,
                   positions=None, print_fn=None, show_trainable=False,
                   totals):
    """Prints a model summary table exactly as Keras 3 does.

    Args:
        model_name: str, shown as `Model: "<model_name>"`.
        rows: list of dicts, one per table row, with string values:
            `"name"` (`"dense (Dense)"`), `"output_shape"` (`"(None, 10)"` or
            `"?"`), `"params"` (`"54,090"`, `"0"` or `"0 (unbuilt)"`),
            `"connected_to"` (`"dense[0][0], dense_1[0][0]"` or `"-"`; read
            only when not `sequential_like`), `"trainable"` (`"Y"`, `"N"` or
            `"-"`; read only with `show_trainable`) and `"depth"` (int,
            nesting level for `expand_nested`; rows with depth > 0 get the
            `"   " * depth + "└ "` prefix).
        sequential_like: True for the 3-column layout (Sequential, subclassed
            and chain-like functional models), False to add `Connected to`.
        line_length: total table width; defaults to 88 (3 columns) or 108
            (4 columns), +12 with `show_trainable`, capped at the terminal
            width minus 4.
        positions: column end positions as fractions of `line_length`.
        print_fn: if given, called once with the whole plain-text summary
            (ending in a newline); otherwise the summary goes to stdout,
            coloured only when stdout is a terminal.
        show_trainable: add a centred `Trainable` column.
        totals: dict of `(count, bytes)` pairs under `"total"` (which must
            already include the optimizer figures), `"trainable"`,
            `"non_trainable"` and `"optimizer"` (None or absent when the
            optimizer is not built: that line is then left out).

    Returns:
        None.

    Raises:
        ValueError: if a column would be narrower than 4 characters.

    Example:
        >>> rows = [{"name": "dense (Dense)", "output_shape": "(None, 10)",
        ...          "params": "50", "depth": 0}]
        >>> totals = {"total": (50, 200), "trainable": (50, 200),
        ...           "non_trainable": (0, 0)}
        >>> render_summary("sequential", rows, sequential_like=True,
        ...                totals=totals, print_fn=captured.append)
    """
    table = _build_table(rows, sequential_like, line_length, positions,
                         show_trainable)
    if print_fn is None and not switches.is_interactive_logging_enabled():
        print_fn = io_utils.print_msg  # as Keras: the plain text goes to `logging`
    if print_fn:
        console = rich.console.Console(highlight=False, force_terminal=False,
                                       color_system=None)
        console.begin_capture()
    else:
        console = rich.console.Console(highlight=False)
    console.print(_bold(f'Model: "{rich.markup.escape(model_name)}"'))
    console.print(table)
    for line in _footer_lines(totals):
        console.print(line)
    if print_fn:
        print_fn(console.end_capture())
