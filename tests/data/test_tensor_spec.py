import numpy as np

from kerasish.data import DatasetSpec, TensorSpec
from kerasish.data.tensor_spec import as_shape, spec_of


def test_repr_is_tf_like():
    # as TensorFlow 2.21 prints a dataset's element_spec
    assert repr(TensorSpec((None, 3), "float32")) == \
        "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)"
    assert repr(TensorSpec((), np.int64, name="x")) == \
        "TensorSpec(shape=(), dtype=tf.int64, name='x')"
    assert repr(TensorSpec((None,), object)) == \
        "TensorSpec(shape=(None,), dtype=tf.string, name=None)"
    assert repr(DatasetSpec(TensorSpec((), "int64"))) == \
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None))"


def test_shapes_normalise():
    assert as_shape(3) == (3,)
    assert as_shape([None, -1, 2]) == (None, None, 2)
    assert as_shape(None) is None


def test_compatibility():
    spec = TensorSpec((None, 2), "float32")
    assert spec.is_compatible_with(np.zeros((5, 2), np.float32))
    assert not spec.is_compatible_with(np.zeros((5, 3), np.float32))
    assert not spec.is_compatible_with(np.zeros((5, 2), np.float64))
    assert TensorSpec(None, "float32").is_compatible_with(np.zeros((1, 2, 3), np.float32))


def test_most_specific_common_and_equality():
    a, b = TensorSpec((2, 3)), TensorSpec((4, 3))
    assert a.most_specific_common(b) == TensorSpec((None, 3))
    assert a != b and a == TensorSpec((2, 3))
    assert TensorSpec((2,)).most_specific_common(TensorSpec((2, 2))).shape is None


def test_spec_of_nested_value():
    spec = spec_of({"a": np.zeros((2,), np.uint8), "b": b"x"})
    assert spec == {"a": TensorSpec((2,), np.uint8), "b": TensorSpec((), object)}
