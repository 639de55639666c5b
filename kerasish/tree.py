"""`keras.tree`: functions over nested structures of lists, tuples and dicts.

Dicts are walked in sorted-key order and None is a leaf, as in Keras.

    keras.tree.flatten({"b": [1, 2], "a": 3})   # [3, 1, 2]
"""
from kerasish.utils.tree import flatten, is_nested, map_structure, pack_sequence_as

__all__ = ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten",
           "flatten_with_path", "is_nested", "lists_to_tuples", "map_shape_structure",
           "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse"]


class MAP_TO_NONE:
    """Returned by a `traverse` function to replace a subtree with None."""


def _children(structure):
    """(key, child) pairs of a nested node, dicts in sorted-key order."""
    if isinstance(structure, dict):
        return [(k, structure[k]) for k in sorted(structure)]
    return list(enumerate(structure))


def _rebuild(structure, values):
    """A node of `structure`'s type holding `values` (one per child, in `_children` order)."""
    if isinstance(structure, dict):
        by_key = dict(zip(sorted(structure), values))
        return type(structure)((k, by_key[k]) for k in structure)
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*values)
    return type(structure)(values)


def flatten_with_path(structure):
    """The leaves with their paths: `[(path, leaf), ...]`, a path being a tuple of keys/indices.

    Args:
        structure: a nested structure.

    Returns:
        list of (tuple, leaf).

    Example:
        >>> flatten_with_path({"a": [5, 6]})
        [(('a', 0), 5), (('a', 1), 6)]
    """
    out = []

    def walk(node, path):
        if is_nested(node):
            for key, child in _children(node):
                walk(child, path + (key,))
        else:
            out.append((path, node))
    walk(structure, ())
    return out


def _paths(structure):
    return {path for path, _ in flatten_with_path(structure)}


def assert_same_structure(a, b, check_types=None):
    """Raises ValueError unless `a` and `b` nest the same way (same container types too).

    Args:
        a, b: nested structures.
        check_types: accepted for compatibility (types are always checked, as in Keras).

    Example:
        >>> assert_same_structure([1, (2, 3)], ["x", ("y", "z")])
    """
    del check_types

    def same(x, y):
        if not is_nested(x):
            if is_nested(y):
                raise ValueError("Structures don't have the same nested structure.")
            return
        if type(x) is not type(y) and not (isinstance(x, dict) and isinstance(y, dict)):
            raise ValueError(f"Expected an instance of {type(x).__name__}, got {y!r}.")
        keys_x, keys_y = [k for k, _ in _children(x)], [k for k, _ in _children(y)]
        if keys_x != keys_y:
            raise ValueError("Structures don't have the same nested structure.")
        for (_, cx), (_, cy) in zip(_children(x), _children(y)):
            same(cx, cy)
    same(a, b)


def assert_same_paths(a, b):
    """Raises ValueError unless `a` and `b` have the same leaf paths (types may differ).

    Args:
        a, b: nested structures.

    Example:
        >>> assert_same_paths({"x": 1}, {"x": [2][0]})
    """
    paths_a, paths_b = _paths(a), _paths(b)
    if paths_a != paths_b:
        raise ValueError("`a` and `b` don't have the same paths.\n"
                         f"Paths in `a` missing in `b`:\n{paths_a - paths_b}\n"
                         f"Paths in `b` missing in `a`:\n{paths_b - paths_a}")


def lists_to_tuples(structure):
    """The same structure with every list turned into a tuple.

    Example:
        >>> lists_to_tuples([1, [2, 3]])
        (1, (2, 3))
    """
    if not is_nested(structure):
        return structure
    values = [lists_to_tuples(child) for _, child in _children(structure)]
    if isinstance(structure, list):
        return tuple(values)
    return _rebuild(structure, values)


def _is_shape(node):
    return isinstance(node, (list, tuple)) and not hasattr(node, "_fields") and all(
        v is None or isinstance(v, int) for v in node)


def map_shape_structure(func, structure):
    """`map_structure` where tuples/lists of ints (shapes) are the leaves.

    Example:
        >>> map_shape_structure(len, {"x": (None, 3), "y": [(2,), (4, 5)]})
        {'x': 2, 'y': [1, 2]}
    """
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    return _rebuild(structure, [map_shape_structure(func, child)
                                for _, child in _children(structure)])


def map_structure_up_to(shallow_structure, func, *structures):
    """Maps `func` over `structures` only as deep as `shallow_structure` goes: deeper
    parts are handed to `func` whole. As Keras 3.15.1 (optree), a None in
    `shallow_structure` raises ValueError (it is not taken as a leaf).

    Example:
        >>> map_structure_up_to(([1, 2], 3), lambda a, b: (a, b), ([1, [5]], 3), ([0, 0], 9))
        ([(1, 0), ([5], 0)], (3, 9))
    """
    if not is_nested(shallow_structure):
        if shallow_structure is None:
            # Keras 3.15.1 (optree) does not count None as a leaf of the shallow structure
            raise ValueError("Structures don't have the same nested structure.")
        return func(*structures)
    for structure in structures:
        if not is_nested(structure) or len(_children(structure)) != len(
                _children(shallow_structure)):
            raise ValueError("map_structure_up_to: the structures do not match "
                             "`shallow_structure` down to its depth.")
    values = [map_structure_up_to(child, func, *[dict(_children(s))[key] if isinstance(s, dict)
                                                  else s[key] for s in structures])
              for key, child in _children(shallow_structure)]
    return _rebuild(shallow_structure, values)


def traverse(func, structure, top_down=True):
    """Applies `func` to every node, subtrees included.

    Top-down, a non-None result replaces the node and its subtree is not visited;
    bottom-up, children are done first and a non-None result replaces the rebuilt node.
    Returning `MAP_TO_NONE` replaces the node with None.

    Args:
        func: callable(node) -> replacement or None.
        structure: a nested structure.
        top_down: the order described above.

    Returns:
        the new structure.

    Example:
        >>> traverse(lambda x: 0 if isinstance(x, tuple) else None, [1, (2, 3)])
        [1, 0]
    """
    def finish(result, node):
        if result is MAP_TO_NONE:
            return None
        return node if result is None else result

    def visit(node):
        if top_down:
            result = func(node)
            if result is not None:
                return finish(result, node)
        if is_nested(node):
            node = _rebuild(node, [visit(child) for _, child in _children(node)])
        return finish(func(node), node) if not top_down else node

    return visit(structure)
