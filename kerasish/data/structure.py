"""Nested element structures: tuples and dicts of numpy leaves.

An element is a leaf (numpy array, numpy scalar, `bytes`, `str`) or a tuple
(namedtuples included) or dict of elements. Dicts flatten in sorted key order,
as in `tf.nest`, so two dicts with the same keys line up whatever their
insertion order; packing keeps the template's key order.
"""
from collections.abc import Mapping

import numpy as np


def is_nested(value):
    """Whether `value` is a tuple or a mapping (not a leaf)."""
    return isinstance(value, (tuple, Mapping))


def flatten(value):
    """Returns the leaves of `value`, depth first.

    Args:
        value: an element.

    Returns:
        A list of leaves.

    Example:
        >>> flatten(({"b": 1, "a": 2}, 3))
        [2, 1, 3]
    """
    if isinstance(value, Mapping):
        return [leaf for key in sorted(value) for leaf in flatten(value[key])]
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def pack_as(template, leaves):
    """Builds an element shaped like `template` from a flat list of leaves.

    Args:
        template: an element whose structure is copied.
        leaves: as many leaves as `flatten(template)` returns.

    Returns:
        The new element.
    """
    leaves = list(leaves)
    packed, used = _pack(template, leaves, 0)
    if used != len(leaves):
        raise ValueError(f"Structure has {used} leaves but {len(leaves)} were given.")
    return packed


def _pack(template, leaves, start):
    if isinstance(template, Mapping):
        values, pos = {}, start
        for key in sorted(template):
            values[key], pos = _pack(template[key], leaves, pos)
        return type(template)((key, values[key]) for key in template), pos
    if isinstance(template, tuple):
        items, pos = [], start
        for item in template:
            packed, pos = _pack(item, leaves, pos)
            items.append(packed)
        return _rebuild_tuple(template, items), pos
    if start >= len(leaves):
        raise ValueError("Not enough leaves to fill the structure.")
    return leaves[start], start + 1


def _rebuild_tuple(template, items):
    if hasattr(template, "_fields"):  # namedtuple
        return type(template)(*items)
    return tuple(items)


def flatten_up_to(template, value):
    """Flattens `value` only as deep as `template` is nested.

    Where `template` has a leaf, the matching part of `value` is kept whole
    (a shape tuple, a list of numbers).

    Args:
        template: the structure to follow.
        value: a value at least as nested as `template`.

    Returns:
        A list with one entry per leaf of `template`.

    Example:
        >>> flatten_up_to((0, 0), ([1, 2], (3, 4)))
        [[1, 2], (3, 4)]
    """
    if isinstance(template, Mapping):
        if not isinstance(value, Mapping) or sorted(value) != sorted(template):
            raise ValueError(f"Expected a dict with keys {sorted(template)}, got {value!r}.")
        return [v for k in sorted(template) for v in flatten_up_to(template[k], value[k])]
    if isinstance(template, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(template):
            raise ValueError(f"Expected a sequence of {len(template)} items, got {value!r}.")
        return [v for t, x in zip(template, value) for v in flatten_up_to(t, x)]
    return [value]


def map_structure(fn, *values):
    """Applies `fn` to matching leaves of one or more same-shaped elements.

    Args:
        fn: function of as many leaves as there are `values`.
        *values: elements with the same structure.

    Returns:
        An element shaped like `values[0]` holding `fn`'s results.

    Example:
        >>> map_structure(lambda a, b: a + b, (1, {"x": 2}), (10, {"x": 20}))
        (11, {'x': 22})
    """
    flat = [flatten(v) for v in values]
    for other in flat[1:]:
        if len(other) != len(flat[0]):
            raise ValueError("Elements do not have the same structure.")
    return pack_as(values[0], [fn(*leaves) for leaves in zip(*flat)])


def assert_same_structure(a, b):
    """Raises ValueError unless `a` and `b` have the same nesting."""
    if isinstance(a, Mapping) != isinstance(b, Mapping) or \
            isinstance(a, tuple) != isinstance(b, tuple):
        raise ValueError(f"Structures differ: {_describe(a)} vs {_describe(b)}.")
    if isinstance(a, Mapping):
        if sorted(a) != sorted(b):
            raise ValueError(f"Dict keys differ: {sorted(a)} vs {sorted(b)}.")
        for key in a:
            assert_same_structure(a[key], b[key])
    elif isinstance(a, tuple):
        if len(a) != len(b):
            raise ValueError(f"Tuple lengths differ: {len(a)} vs {len(b)}.")
        for x, y in zip(a, b):
            assert_same_structure(x, y)


def _describe(value):
    return type(value).__name__


def to_array(value):
    """Converts a source value (nested lists, scalars) to a numpy leaf.

    numpy arrays keep their dtype. Python values follow tf.data's rule:
    Python ints become int32, floats float32 (a Python float has no
    precision of its own to keep), and `str` become `bytes` (tf.string).

    Args:
        value: a numpy array, Python scalar or nested list.

    Returns:
        A numpy array.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        # a tensor or variable (e.g. a lookup layer's int64 output in `map`)
        # keeps its dtype, as tf.data keeps a tf.Tensor's; strings become bytes
        array = np.asarray(value.numpy())
        return _encoded(array) if array.dtype.kind == "U" else array
    array = np.asarray(value)
    if array.dtype == np.int64:
        return _narrow(array, np.int32)
    if array.dtype == np.float64:
        return array.astype(np.float32)
    if array.dtype.kind == "U":
        return _encoded(array)
    if array.dtype.kind == "S":
        return array.astype(object)
    return array


def _encoded(array):
    """A numpy unicode array as tf.string's numpy form: an object array of bytes."""
    return np.vectorize(str.encode, otypes=[object])(array) if array.ndim \
        else np.array(str(array).encode(), dtype=object)


def _narrow(array, dtype):
    info = np.iinfo(dtype)
    if array.size and (array.min() < info.min or array.max() > info.max):
        return array  # tf would pick int64 too for values out of int32 range
    return array.astype(dtype)


def normalize_output(value):
    """Normalises a value produced by user code (map, generator).

    Lists become tuples (tf.data treats a returned list as a tuple), Python
    scalars become numpy scalars with tf's dtypes, `str` becomes `bytes`.

    Args:
        value: an element returned by user code.

    Returns:
        The element with numpy leaves.
    """
    if isinstance(value, Mapping):
        return type(value)((k, normalize_output(v)) for k, v in value.items())
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(value, tuple):
        return _rebuild_tuple(value, [normalize_output(v) for v in value])
    return normalize_leaf(value)


def normalize_leaf(value):
    """Returns a numpy array, numpy scalar or `bytes` for one leaf.

    Args:
        value: any array-like leaf.

    Returns:
        numpy arrays of rank >= 1, numpy scalars and `bytes` unchanged; other
        values converted with `to_array`. Rank-0 results become numpy scalars
        (0-d strings `bytes`), as tf.data's `as_numpy_iterator` gives.
    """
    if isinstance(value, (np.generic, bytes)):
        return value
    array = value if isinstance(value, np.ndarray) else to_array(value)
    return array[()] if array.ndim == 0 else array


def leaf_shape(leaf):
    """Shape of a leaf as a tuple (`()` for scalars and `bytes`)."""
    return tuple(np.shape(leaf)) if not isinstance(leaf, (bytes, str)) else ()


def leaf_dtype(leaf):
    """numpy dtype of a leaf (`object` for `bytes`, as tf.string batches are)."""
    if isinstance(leaf, (bytes, str)):
        return np.dtype(object)
    return np.asarray(leaf).dtype


def unpack_call(fn, element):
    """Calls `fn` the way tf.data does: a tuple element is splatted.

    Args:
        fn: the user function.
        element: the element (only a plain `tuple` is unpacked, as in
            tf.data; namedtuples and dicts are passed as one argument).

    Returns:
        `fn`'s result.
    """
    if type(element) is tuple:
        return fn(*element)
    return fn(element)
