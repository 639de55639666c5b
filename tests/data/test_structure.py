import collections

import numpy as np
import pytest

from kerasish.data import structure

Point = collections.namedtuple("Point", "x y")


def test_flatten_sorts_dict_keys_and_pack_keeps_template_order():
    value = ({"b": 1, "a": 2}, 3)
    assert structure.flatten(value) == [2, 1, 3]
    packed = structure.pack_as(value, [20, 10, 30])
    assert packed == ({"b": 10, "a": 20}, 30)
    assert list(packed[0]) == ["b", "a"]


def test_pack_rebuilds_namedtuples_and_rejects_wrong_leaf_count():
    assert structure.pack_as(Point(0, 0), [1, 2]) == Point(1, 2)
    with pytest.raises(ValueError):
        structure.pack_as((1, 2), [1, 2, 3])
    with pytest.raises(ValueError):
        structure.pack_as((1, 2), [1])


def test_map_structure_over_two_values():
    assert structure.map_structure(lambda a, b: a + b, (1, {"x": 2}), (10, {"x": 20})) \
        == (11, {"x": 22})
    with pytest.raises(ValueError):
        structure.map_structure(lambda a, b: a, (1, 2), (1,))


def test_assert_same_structure():
    structure.assert_same_structure({"a": (1, 2)}, {"a": (3, 4)})
    with pytest.raises(ValueError):
        structure.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError):
        structure.assert_same_structure((1, 2), [1, 2])


def test_to_array_follows_tf_dtype_rules():
    assert structure.to_array([1, 2]).dtype == np.int32
    assert structure.to_array([1.5]).dtype == np.float32
    assert structure.to_array(np.array([1.5])).dtype == np.float64
    assert structure.to_array([2**40]).dtype == np.int64
    assert structure.to_array(["a", "bc"]).tolist() == [b"a", b"bc"]


def test_normalize_output_converts_lists_and_scalars():
    out = structure.normalize_output([1, 2.0, "s", np.array(3)])
    assert isinstance(out, tuple)
    assert out[0].dtype == np.int32 and out[1].dtype == np.float32
    assert out[2] == b"s"
    assert isinstance(out[3], np.int64)


def test_unpack_call_splats_only_plain_tuples():
    assert structure.unpack_call(lambda a, b: a - b, (5, 2)) == 3
    assert structure.unpack_call(lambda p: p.x, Point(1, 2)) == 1
    assert structure.unpack_call(lambda d: d["k"], {"k": 7}) == 7
