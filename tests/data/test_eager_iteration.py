"""Iterating a dataset yields eager tensors, as iterating a tf.data dataset does in a
Keras 3.15.1 program on TensorFlow 2.21 (the reprs below are TensorFlow's prints);
`as_numpy_iterator()` still yields numpy values."""
import numpy as np

import kerasish as keras
from kerasish.data import Dataset


def test_elements_are_tensors_with_numpy():
    x, y = next(iter(Dataset.from_tensor_slices((np.ones((3, 2), "float32"),
                                                  np.arange(3))).batch(2)))
    assert str(y) == "tf.Tensor([0 1], shape=(2,), dtype=int64)"
    assert x.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert x.dtype == np.float32 and y.dtype == "int64"   # tf.DType equals numpy types
    assert isinstance(next(Dataset.range(2).as_numpy_iterator()), np.int64)


def test_text_batches_are_string_tensors(tmp_path):
    for name, text in (("neg", "bad movie\n"), ("pos", "great film\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.txt").write_text(text)
    ds = keras.utils.text_dataset_from_directory(str(tmp_path), batch_size=2, shuffle=False,
                                                 verbose=False)
    texts, labels = next(iter(ds))
    assert texts.numpy()[0] == b"bad movie\n" and labels.numpy()[1] == 1
    assert str(texts.dtype) == "<dtype: 'string'>"
    assert str(texts[1]) == "tf.Tensor(b'great film\\n', shape=(), dtype=string)"
    assert ["neg", "pos"][labels[1]] == "pos"


def test_text_ending_in_nul_keeps_its_bytes():
    (value,) = list(Dataset.from_tensor_slices(np.array([b"a\0"], dtype=object)))
    assert value.numpy() == b"a\0"


def test_reduce_and_adapt_still_read_numpy():
    assert int(Dataset.range(5).reduce(0, lambda s, x: s + x)) == 10
    norm = keras.layers.Normalization(axis=None)
    norm.adapt(Dataset.from_tensor_slices(np.array([1.0, 3.0], "float32")).batch(1))
    assert norm.mean.numpy().ravel().tolist() == [2.0]


def test_cardinality_prints_as_tensorflows_int64_tensor():
    card = Dataset.range(10).batch(3).cardinality()
    assert str(card) == "tf.Tensor(4, shape=(), dtype=int64)"
    assert repr(card) == "<tf.Tensor: shape=(), dtype=int64, numpy=4>"
    assert card == 4 and card.numpy() == 4 and "%d" % card == "4" and len(
        Dataset.range(10).batch(3)) == 4
    assert Dataset.range(3).repeat().cardinality() == -1
