"""Dataset sources, inspection (cardinality, element_spec, len) and
reduce/apply. Expected values were checked against TensorFlow 2.21."""
import numpy as np
import pytest

from kerasish.data import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset,
                           DatasetIterator, TensorSpec)


def ints(ds):
    return [int(x) for x in ds]


def test_range_yields_int64_scalars_like_python_range():
    assert ints(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert ints(Dataset.range(2, 9, 3)) == [2, 5, 8]
    assert ints(Dataset.range(5, 0, -2)) == [5, 3, 1]
    assert isinstance(next(Dataset.range(1).as_numpy_iterator()), np.int64)
    # iterating the dataset itself gives eager tensors, as tf.data (TensorFlow 2.21's print)
    assert str(next(iter(Dataset.range(1)))) == "tf.Tensor(0, shape=(), dtype=int64)"
    assert Dataset.range(2, 9, 3).cardinality() == 3
    assert Dataset.range(3, dtype="int32").element_spec == TensorSpec((), "int32")


def test_from_tensor_slices_nested_tuple_and_dict():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    ds = Dataset.from_tensor_slices(({"a": x, "b": [1, 2, 3]}, np.array([7, 8, 9])))
    elements = list(ds)
    assert len(elements) == 3 and ds.cardinality() == 3
    features, label = elements[1]
    np.testing.assert_array_equal(features["a"], [2.0, 3.0])
    assert features["b"] == 2 and features["b"].dtype == np.int32
    assert label == 8 and label.dtype == np.int64
    assert ds.element_spec == ({"a": TensorSpec((2,), "float32"),
                                "b": TensorSpec((), "int32")}, TensorSpec((), "int64"))


def test_from_tensor_slices_python_values_get_tf_dtypes():
    assert Dataset.from_tensor_slices([1, 2]).element_spec.dtype == np.int32
    assert Dataset.from_tensor_slices([1.0, 2.0]).element_spec.dtype == np.float32
    assert Dataset.from_tensor_slices(np.array([1.0])).element_spec.dtype == np.float64
    assert list(Dataset.from_tensor_slices(["a", "bb"])) == [b"a", b"bb"]


def test_from_tensor_slices_rejects_mismatched_or_scalar_components():
    with pytest.raises(ValueError, match="first dimension"):
        Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))
    with pytest.raises(ValueError, match="rank"):
        Dataset.from_tensor_slices(np.float32(1))


def test_from_tensor_slices_of_empty_array_is_empty():
    ds = Dataset.from_tensor_slices(np.zeros((0, 3)))
    assert list(ds) == [] and ds.cardinality() == 0
    assert ds.element_spec == TensorSpec((3,), "float64")


def test_from_tensors_is_one_element():
    ds = Dataset.from_tensors(([1, 2], {"k": 3.0}))
    (vec, d), = list(ds)
    assert vec.tolist() == [1, 2] and d["k"] == 3.0
    assert ds.cardinality() == 1
    assert ds.element_spec == (TensorSpec((2,), "int32"), {"k": TensorSpec((), "float32")})


def test_from_generator_is_reinvoked_each_iteration():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = Dataset.from_generator(gen, output_signature=TensorSpec((), "int64"))
    assert ints(ds) == [0, 1, 2]
    assert ints(ds) == [0, 1, 2]  # exhausted once, works again
    assert len(calls) == 2
    assert ds.cardinality() == UNKNOWN_CARDINALITY
    assert ds.element_spec == TensorSpec((), "int64")


def test_from_generator_converts_and_checks_signature():
    def gen():
        yield [1, 2], 0
        yield [3, 4, 5], 1

    ds = Dataset.from_generator(gen, output_signature=(TensorSpec((None,), "float32"),
                                                       TensorSpec((), "int64")))
    (x0, y0), (x1, y1) = list(ds.as_numpy_iterator())
    assert x0.dtype == np.float32 and x1.tolist() == [3.0, 4.0, 5.0]
    assert isinstance(y1, np.int64)
    bad = Dataset.from_generator(gen, output_signature=(TensorSpec((2,), "float32"),
                                                        TensorSpec((), "int64")))
    with pytest.raises(ValueError, match="shape"):
        list(bad)
    with pytest.raises(TypeError, match="converted"):
        list(Dataset.from_generator(gen, output_signature=TensorSpec((), "int64")))
    with pytest.raises(TypeError, match="structure"):
        list(Dataset.from_generator(gen, output_signature={"x": TensorSpec(None, "int64")}))


def test_from_generator_legacy_types_shapes_and_args():
    def gen(n):
        for i in range(n):
            yield {"x": np.full((2,), i)}, i

    ds = Dataset.from_generator(gen, output_types=({"x": "float32"}, "int64"),
                                output_shapes=({"x": (2,)}, ()), args=(3,))
    assert ds.element_spec == ({"x": TensorSpec((2,), "float32")}, TensorSpec((), "int64"))
    assert [int(y) for _, y in ds] == [0, 1, 2]
    with pytest.raises(TypeError):
        Dataset.from_generator(iter([1]))


def test_zip_forms_and_cardinality():
    a, b = Dataset.range(3), Dataset.range(10, 14)
    assert [(int(x), int(y)) for x, y in Dataset.zip(a, b)] == [(0, 10), (1, 11), (2, 12)]
    assert Dataset.zip((a, b)).cardinality() == 3
    nested = Dataset.zip({"a": a, "b": (b, a)})
    first = next(iter(nested))
    assert int(first["b"][0]) == 10
    assert Dataset.zip(a, a.repeat()).cardinality() == 3
    assert Dataset.zip(a.repeat(), a.repeat()).cardinality() == INFINITE_CARDINALITY
    assert Dataset.zip(a, a.filter(lambda x: True)).cardinality() == UNKNOWN_CARDINALITY
    with pytest.raises(TypeError):
        Dataset.zip((a, [1, 2]))


def test_concatenate():
    ds = Dataset.range(2).concatenate(Dataset.range(5, 7))
    assert ints(ds) == [0, 1, 5, 6] and ds.cardinality() == 4
    unknown = Dataset.range(3).filter(lambda x: True)
    assert Dataset.range(2).concatenate(unknown).cardinality() == UNKNOWN_CARDINALITY
    assert unknown.concatenate(Dataset.range(2).repeat()).cardinality() == INFINITE_CARDINALITY
    mixed = Dataset.from_tensors(np.zeros(2)).concatenate(Dataset.from_tensors(np.zeros(3)))
    assert mixed.element_spec == TensorSpec((None,), "float64")


def test_list_files(tmp_path):
    for name in ["b.txt", "a.txt", "c.csv"]:
        (tmp_path / name).write_text("x")
    ds = Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    assert list(ds) == [str(tmp_path / "a.txt").encode(), str(tmp_path / "b.txt").encode()]
    shuffled = Dataset.list_files([str(tmp_path / "*.txt"), str(tmp_path / "*.csv")], seed=3)
    assert sorted(shuffled) == sorted(p.encode() for p in map(str, tmp_path.iterdir()))
    with pytest.raises(ValueError, match="No files matched"):
        Dataset.list_files(str(tmp_path / "*.nope"))


def test_len_and_bool():
    assert len(Dataset.range(7).batch(2)) == 4
    with pytest.raises(TypeError, match="infinite"):
        len(Dataset.range(2).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(Dataset.range(2).filter(lambda x: True))
    assert bool(Dataset.range(0)) and bool(Dataset.range(1).repeat())


@pytest.mark.parametrize("make, expected", [
    (lambda r: r.batch(3), 4),
    (lambda r: r.batch(3, drop_remainder=True), 3),
    (lambda r: r.repeat().batch(3), INFINITE_CARDINALITY),
    (lambda r: r.filter(lambda x: True).batch(3), UNKNOWN_CARDINALITY),
    (lambda r: r.filter(lambda x: True), UNKNOWN_CARDINALITY),
    (lambda r: r.repeat().filter(lambda x: True), UNKNOWN_CARDINALITY),
    (lambda r: r.take(3), 3), (lambda r: r.take(20), 10), (lambda r: r.take(-1), 10),
    (lambda r: r.repeat().take(3), 3),
    (lambda r: r.filter(lambda x: True).take(3), UNKNOWN_CARDINALITY),
    (lambda r: r.skip(3), 7), (lambda r: r.skip(20), 0), (lambda r: r.skip(-1), 0),
    (lambda r: r.repeat().skip(3), INFINITE_CARDINALITY),
    (lambda r: r.repeat(2), 20), (lambda r: r.repeat(0), 0),
    (lambda r: r.take(0).repeat(), 0),
    (lambda r: r.filter(lambda x: True).repeat(), INFINITE_CARDINALITY),
    (lambda r: r.filter(lambda x: True).repeat(2), UNKNOWN_CARDINALITY),
    (lambda r: r.shard(3, 0), 4), (lambda r: r.shard(3, 2), 3),
    (lambda r: r.map(lambda x: x), 10), (lambda r: r.shuffle(3), 10),
    (lambda r: r.cache(), 10), (lambda r: r.prefetch(1), 10),
    (lambda r: r.enumerate(), 10), (lambda r: r.padded_batch(3), 4),
    (lambda r: r.window(3), 4), (lambda r: r.window(3, drop_remainder=True), 3),
    (lambda r: r.window(3, 2), 5), (lambda r: r.window(3, 2, 2, True), 3),
    (lambda r: r.window(3, 1, 2, True), 6),
    (lambda r: r.batch(2).unbatch(), UNKNOWN_CARDINALITY),
    (lambda r: r.batch(2).rebatch(3), UNKNOWN_CARDINALITY),
    (lambda r: r.flat_map(Dataset.from_tensors), UNKNOWN_CARDINALITY),
    (lambda r: r.interleave(Dataset.from_tensors, cycle_length=2), UNKNOWN_CARDINALITY),
    (lambda r: r.ignore_errors(), UNKNOWN_CARDINALITY),
])
def test_cardinality_matches_tf_data(make, expected):
    assert make(Dataset.range(10)).cardinality() == expected


def test_element_spec_of_batches_and_maps():
    r = Dataset.range(3)
    assert r.element_spec == TensorSpec((), "int64")
    assert r.batch(2).element_spec == TensorSpec((None,), "int64")
    assert r.batch(2, drop_remainder=True).element_spec == TensorSpec((2,), "int64")
    assert r.enumerate().element_spec == (TensorSpec((), "int64"), TensorSpec((), "int64"))
    mapped = r.map(lambda x: (np.zeros((2, 2), np.float32), [x, x]))
    assert mapped.element_spec == (TensorSpec((2, 2), "float32"),
                                   (TensorSpec((), "int64"), TensorSpec((), "int64")))
    with pytest.raises(ValueError, match="empty"):
        _ = Dataset.range(0).map(lambda x: x).element_spec


def test_iterator_object():
    it = iter(Dataset.range(3))
    assert isinstance(it, DatasetIterator)
    assert int(it.get_next()) == 0 and int(next(it)) == 1
    it.close()
    with pytest.raises(StopIteration):
        next(it)
    with iter(Dataset.range(2)) as it2:
        assert ints(it2) == [0, 1]
    assert ints(Dataset.range(2).as_numpy_iterator()) == [0, 1]


def test_reduce_and_apply():
    assert int(Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x)) == 10
    count, total = Dataset.range(4).reduce((0, 0), lambda s, x: (s[0] + 1, s[1] + x))
    assert (int(count), int(total)) == (4, 6)
    assert Dataset.range(0).reduce(7, lambda s, x: s + x) == 7
    assert ints(Dataset.range(5).apply(lambda ds: ds.skip(3))) == [3, 4]


def test_repr_is_tf_datas():
    # TensorFlow 2.21's reprs (recorded): the private class of the last step, the spec
    assert repr(Dataset.range(3).batch(2)) == (
        "<_BatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>")
    assert repr(Dataset.range(3).cache()) == (
        "<CacheDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>")
    assert repr(Dataset.from_tensor_slices((np.zeros(3, "float32"), np.arange(3)))) == (
        "<_TensorSliceDataset element_spec=(TensorSpec(shape=(), dtype=tf.float32, name=None), "
        "TensorSpec(shape=(), dtype=tf.int64, name=None))>")


def test_element_spec_of_map_after_shuffle_reads_one_element_only():
    pulled = []

    def gen():
        for i in range(1000):
            pulled.append(i)
            yield np.full(3, i, np.int16)

    ds = Dataset.from_generator(gen).shuffle(1000).take(5).map(lambda x: x * 2.0)
    assert ds.element_spec == TensorSpec((3,), "float64")
    assert len(pulled) == 1
