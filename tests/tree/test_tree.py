"""keras.tree against values printed by real Keras 3.15.1 (optree-based)."""
import collections

import pytest

import kerasish as keras

tree = keras.tree
S = {"b": [1, (2, None)], "a": 3}


def test_flatten_and_paths():
    assert tree.flatten(S) == [3, 1, 2, None]
    assert tree.flatten_with_path(S) == [(("a",), 3), (("b", 0), 1), (("b", 1, 0), 2),
                                         (("b", 1, 1), None)]


def test_lists_to_tuples_and_shapes():
    assert tree.lists_to_tuples(S) == {"b": (1, (2, None)), "a": 3}
    assert tree.map_shape_structure(lambda x: ("S", x), {"x": (None, 3), "y": [(2,), (4, 5)]}) \
        == {"x": ("S", (None, 3)), "y": [("S", (2,)), ("S", (4, 5))]}


def test_traverse_both_orders():
    assert tree.traverse(lambda x: None, S) == S
    assert tree.traverse(lambda x: 0 if isinstance(x, tuple) else None, S) == {"b": [1, 0], "a": 3}
    assert tree.traverse(lambda x: tree.MAP_TO_NONE if isinstance(x, list) else None, S,
                         top_down=False) == {"b": None, "a": 3}
    assert tree.traverse(lambda x: x * 2 if isinstance(x, int) else None, S, top_down=False) \
        == {"b": [2, (4, None)], "a": 6}


def test_map_structure_up_to():
    assert tree.map_structure_up_to(([1, 2], 3), lambda a, b: (a, b), ([1, [5]], 3),
                                    ([0, 0], 9)) == ([(1, 0), ([5], 0)], (3, 9))


def test_map_structure_up_to_none_in_shallow_raises_as_keras():
    # Keras 3.15.1 (optree): the docstring's own examples with None shallow leaves raise,
    # while the same shapes with non-None leaves work: [2, 2] and ['[1, 1]', ['2', '2']]
    structure = [[1, 1], [2, 2]]
    for shallow in ([None, None], [None, [None, None]], [None, 0], None):
        with pytest.raises(ValueError, match="Structures don't have the same nested structure"):
            tree.map_structure_up_to(shallow, str, structure)
    assert tree.map_structure_up_to([0, 0], len, structure) == [2, 2]
    assert tree.map_structure_up_to([0, [0, 0]], str, structure) == ["[1, 1]", ["2", "2"]]


def test_assertions_use_keras_messages():
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tree.assert_same_structure([1, 2], [1, [2]])
    with pytest.raises(ValueError, match="Expected an instance of tuple"):
        tree.assert_same_structure((1, 2), [3, 4])
    with pytest.raises(ValueError, match=r"`a` and `b` don't have the same paths"):
        tree.assert_same_paths({"a": 1}, {"b": 1})
    tree.assert_same_paths((1, 2), [3, 4])  # paths only: container types may differ


def test_namedtuples_and_ordered_dicts_keep_their_types():
    Point = collections.namedtuple("Point", "x y")
    out = tree.traverse(lambda v: v + 1 if isinstance(v, int) else None,
                        collections.OrderedDict(z=Point(1, 2), a=[3]), top_down=False)
    assert isinstance(out, collections.OrderedDict) and list(out) == ["z", "a"]
    assert out["z"] == Point(2, 3) and out["a"] == [4]
