"""`keras.utils.pad_sequences`: the Keras docstring examples and edge cases."""
import numpy as np
import pytest

from kerasish.utils.sequence_utils import pad_sequences

SEQUENCES = [[1], [2, 3], [4, 5, 6]]


def test_keras_doc_examples():
    out = pad_sequences(SEQUENCES)
    np.testing.assert_array_equal(out, [[0, 0, 1], [0, 2, 3], [4, 5, 6]])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(pad_sequences(SEQUENCES, value=-1),
                                  [[-1, -1, 1], [-1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(pad_sequences(SEQUENCES, padding="post"),
                                  [[1, 0, 0], [2, 3, 0], [4, 5, 6]])
    np.testing.assert_array_equal(pad_sequences(SEQUENCES, maxlen=2),
                                  [[0, 1], [2, 3], [5, 6]])


def test_truncating_post_and_longer_maxlen():
    np.testing.assert_array_equal(pad_sequences(SEQUENCES, maxlen=2, truncating="post"),
                                  [[0, 1], [2, 3], [4, 5]])
    np.testing.assert_array_equal(
        pad_sequences([[1, 2]], maxlen=4, padding="post", value=9), [[1, 2, 9, 9]])


def test_dtype_float_and_value():
    out = pad_sequences([[0.5], [1.5, 2.5]], dtype="float32", value=-1.0)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[-1.0, 0.5], [1.5, 2.5]])


def test_empty_sequences_are_all_padding():
    np.testing.assert_array_equal(pad_sequences([[], [1, 2], []]),
                                  [[0, 0], [1, 2], [0, 0]])
    assert pad_sequences([[], []]).shape == (2, 0)
    assert pad_sequences([]).shape == (0, 0)
    assert pad_sequences([[1, 2]], maxlen=0).shape == (1, 0)


def test_numpy_input_and_element_shape():
    out = pad_sequences(np.array([[1, 2, 3]]), maxlen=2)
    np.testing.assert_array_equal(out, [[2, 3]])
    out = pad_sequences([[[1, 1]], [[2, 2], [3, 3]]])
    assert out.shape == (2, 2, 2)
    np.testing.assert_array_equal(out[0], [[0, 0], [1, 1]])


def test_strings_need_object_or_string_dtype():
    out = pad_sequences([["a"], ["b", "c"]], dtype=object, value="")
    assert out.tolist() == [["", "a"], ["b", "c"]]
    out = pad_sequences([["a"], ["bb", "c"]], dtype="<U2", value="-")
    assert out.tolist() == [["-", "a"], ["bb", "c"]]
    with pytest.raises(ValueError, match="`dtype` int32 is not compatible with `value`'s "
                                         "type: <class 'str'>\nYou should set `dtype=object`"):
        pad_sequences([["a"]], value="x")


def test_errors():
    with pytest.raises(ValueError, match="^`sequences` must be iterable.$"):
        pad_sequences(iter([[1]]))
    with pytest.raises(ValueError, match="`sequences` must be a list of iterables. "
                                         "Found non-iterable: 3"):
        pad_sequences([[1], 3])
    with pytest.raises(ValueError, match='Padding type "middle" not understood'):
        pad_sequences(SEQUENCES, padding="middle")
    with pytest.raises(ValueError, match='Truncating type "x" not understood'):
        pad_sequences(SEQUENCES, truncating="x")
    with pytest.raises(ValueError, match=r"Shape of sample \(3,\) of sequence at position 1 "
                                         r"is different from expected shape \(2,\)"):
        pad_sequences([[[1, 1]], [[2, 2, 2]]])
    with pytest.raises(ValueError, match="`maxlen` must be None or a non-negative int"):
        pad_sequences(SEQUENCES, maxlen=-1)
