"""Nested structures (lists, tuples, dicts) of leaves, like `keras.tree`.

Dicts flatten in sorted-key order, as in Keras and tf.nest.
"""


def is_nested(x):
    """True for list, tuple and dict (namedtuples included)."""
    return isinstance(x, (list, tuple, dict))


def flatten(structure):
    """Returns the leaves of a nested structure as a flat list.

    Args:
        structure: a leaf, or nested lists/tuples/dicts of leaves.

    Returns:
        list: the leaves in order (dict values in sorted-key order).

    Example:
        >>> flatten({"b": [1, 2], "a": 3})
        [3, 1, 2]
    """
    out = []
    stack = [structure]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item[k] for k in reversed(sorted(item)))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def pack_sequence_as(structure, flat):
    """Rebuilds `structure`'s nesting with the leaves taken from `flat`.

    Args:
        structure: the template structure.
        flat: a flat list with as many leaves as `structure` has.

    Returns:
        the nested structure.
    """
    flat = list(flat)
    position = [0]

    def build(item):
        if isinstance(item, dict):
            built = {k: build(item[k]) for k in sorted(item)}
            return type(item)((k, built[k]) for k in item)
        if isinstance(item, (list, tuple)):
            values = [build(v) for v in item]
            if isinstance(item, tuple) and hasattr(item, "_fields"):
                return type(item)(*values)
            return type(item)(values)
        value = flat[position[0]]
        position[0] += 1
        return value

    result = build(structure)
    if position[0] != len(flat):
        raise ValueError(
            f"Structure has {position[0]} leaves but {len(flat)} values were given."
        )
    return result


def map_structure(fn, *structures):
    """Applies `fn` to corresponding leaves of one or more same-shaped structures."""
    flats = [flatten(s) for s in structures]
    if any(len(f) != len(flats[0]) for f in flats):
        raise ValueError("map_structure: structures have different numbers of leaves.")
    return pack_sequence_as(structures[0], [fn(*leaves) for leaves in zip(*flats)])
