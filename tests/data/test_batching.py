"""batch, padded_batch, unbatch, rebatch (outputs checked against tf.data)."""
import numpy as np
import pytest

from kerasish.data import Dataset, TensorSpec


def lists(ds):
    return [b.tolist() for b in ds]


def test_batch_with_and_without_remainder():
    assert lists(Dataset.range(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert lists(Dataset.range(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert lists(Dataset.range(6).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert lists(Dataset.range(2).batch(5, drop_remainder=True)) == []


def test_batch_of_empty_dataset_is_empty():
    ds = Dataset.range(0).batch(4)
    assert list(ds) == [] and ds.cardinality() == 0


def test_batch_nested_elements():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ds = Dataset.from_tensor_slices(({"img": x}, np.arange(6))).batch(4)
    (feats, labels), (feats2, labels2) = list(ds)
    assert feats["img"].shape == (4, 2) and feats2["img"].shape == (2, 2)
    assert labels.tolist() == [0, 1, 2, 3] and labels2.tolist() == [4, 5]
    assert ds.element_spec == ({"img": TensorSpec((None, 2), "float32")},
                               TensorSpec((None,), "int64"))


def test_batch_of_strings_is_object_array():
    batches = list(Dataset.from_tensor_slices(["a", "bb", "c"]).batch(2).as_numpy_iterator())
    assert batches[0].dtype == object and batches[0].tolist() == [b"a", b"bb"]
    # iterated directly, a string tensor as tf.data's (printed by TensorFlow 2.21)
    first = next(iter(Dataset.from_tensor_slices(["a", "bb", "c"]).batch(2)))
    assert repr(first) == ("<tf.Tensor: shape=(2,), dtype=string, "
                           "numpy=array([b'a', b'bb'], dtype=object)>")


def test_batch_rejects_ragged_elements():
    ds = Dataset.range(1, 4).map(lambda x: np.zeros(x))
    with pytest.raises(ValueError, match="different shapes"):
        list(ds.batch(2))


def test_parallel_batch_keeps_order(no_leaked_threads):
    ds = Dataset.range(50).batch(4, num_parallel_calls=3)
    assert [int(b[0]) for b in ds] == list(range(0, 50, 4))


def test_padded_batch_matches_tf():
    ds = Dataset.range(1, 5).map(lambda x: np.full(x, x))
    assert lists(ds.padded_batch(2)) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert ds.padded_batch(2).element_spec == TensorSpec((None, None), "int64")
    fixed = ds.padded_batch(2, padded_shapes=5, padding_values=-1)
    assert lists(fixed) == [[[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]],
                            [[3, 3, 3, -1, -1], [4, 4, 4, 4, -1]]]
    assert fixed.element_spec == TensorSpec((None, 5), "int64")


def test_padded_batch_nested_components_and_drop_remainder():
    ds = Dataset.range(1, 4).map(lambda x: {"seq": np.ones(x, np.float32), "label": x})
    batches = list(ds.padded_batch(2, padded_shapes={"seq": [4], "label": []},
                                   padding_values={"seq": 9.0, "label": 0},
                                   drop_remainder=True))
    assert len(batches) == 1
    assert batches[0]["seq"].tolist() == [[1, 9, 9, 9], [1, 1, 9, 9]]
    assert batches[0]["label"].tolist() == [1, 2]
    spec = ds.padded_batch(2, padded_shapes={"seq": [4], "label": []},
                           drop_remainder=True).element_spec
    assert spec == {"seq": TensorSpec((2, 4), "float32"), "label": TensorSpec((2,), "int64")}


def test_padded_batch_errors():
    ds = Dataset.range(1, 4).map(lambda x: np.ones(x))
    with pytest.raises(ValueError, match="larger than the padded size"):
        list(ds.padded_batch(3, padded_shapes=[2]))
    mixed = Dataset.from_generator(lambda: iter([np.ones(2), np.ones((2, 2))]))
    with pytest.raises(ValueError, match="different ranks"):
        list(mixed.padded_batch(2))


def test_unbatch_reverses_batch():
    ds = Dataset.from_tensor_slices({"a": [[1, 2], [3, 4]]}).unbatch()
    assert [int(e["a"]) for e in ds] == [1, 2, 3, 4]
    assert [int(x) for x in Dataset.range(5).batch(2).unbatch()] == [0, 1, 2, 3, 4]
    assert Dataset.range(5).batch(2).unbatch().element_spec == TensorSpec((), "int64")
    bad = Dataset.from_tensors((np.zeros(2), np.zeros(3)))
    with pytest.raises(ValueError, match="first dimensions"):
        list(bad.unbatch())


def test_rebatch_matches_tf():
    r = Dataset.range(10)
    assert lists(r.batch(3).rebatch(4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert lists(r.batch(3).rebatch(4, drop_remainder=True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert lists(r.batch(3).rebatch([1, 2])) == [[0], [1, 2], [3], [4, 5], [6], [7, 8], [9]]
    assert r.batch(2).rebatch(3, True).element_spec == TensorSpec((3,), "int64")
    pairs = Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 10)).batch(2)
    assert [(x.tolist(), y.tolist()) for x, y in pairs.rebatch(3)] == \
        [([0, 1, 2], [0, 10, 20]), ([3, 4], [30, 40])]
