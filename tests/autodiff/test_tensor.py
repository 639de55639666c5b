"""Tensor and Variable basics: conversions, in-place updates, errors, pickling."""
import pickle

import numpy as np
import pytest

import kerasish as keras
from kerasish import Variable, ops


def test_tensor_properties_and_conversions():
    t = ops.convert_to_tensor([[1.0, 2.0]])
    assert t.shape == (1, 2) and t.dtype == "float32" and t.ndim == 2 and t.size == 2
    assert t.device == "cpu:0"
    np.testing.assert_array_equal(np.asarray(t), [[1.0, 2.0]])
    assert np.asarray(t, dtype="float64").dtype == np.float64
    assert t.tolist() == [[1.0, 2.0]] and float(ops.sum(t)) == 3.0 and int(ops.sum(t)) == 3
    assert f"{ops.sum(t):.1f}" == "3.0" and "shape=(1, 2)" in repr(t)
    assert pickle.loads(pickle.dumps(t)).numpy().tolist() == [[1.0, 2.0]]


def test_tensor_text_matches_keras_tensorflow_backend():
    # Literal texts printed by Keras 3.15.1 (TensorFlow 2.21 backend, numpy 2.4).
    s = ops.sum(ops.convert_to_tensor([0.1, 0.2]))
    assert str(s) == "tf.Tensor(0.3, shape=(), dtype=float32)"
    assert repr(s) == "<tf.Tensor: shape=(), dtype=float32, numpy=0.30000001192092896>"
    assert f"{s}" == "0.30000001192092896" and f"{s:.3f}" == "0.300"
    m = ops.convert_to_tensor([[1, 2], [3, 4]], dtype="uint8")
    assert str(m) == "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=uint8)"
    h = ops.convert_to_tensor([[1, 2], [3, 4]], dtype="float16")
    assert repr(h) == ("<tf.Tensor: shape=(2, 2), dtype=float16, numpy=\n"
                       "array([[1., 2.],\n       [3., 4.]], dtype=float16)>")
    assert repr(ops.convert_to_tensor(True)) == "<tf.Tensor: shape=(), dtype=bool, numpy=True>"
    assert str(ops.zeros((0, 3))) == "tf.Tensor([], shape=(0, 3), dtype=float32)"
    assert f"{ops.convert_to_tensor([1.0, 2.0])}" == "[1. 2.]"
    assert str([ops.convert_to_tensor([1, 2])]) == (
        "[<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>]")


def test_tensor_errors():
    with pytest.raises(TypeError, match="Only integer tensors can be used as an index"):
        [1, 2][ops.convert_to_tensor(1.0)]
    assert [1, 2][ops.convert_to_tensor(1)] == 2
    with pytest.raises(TypeError, match="len"):
        len(ops.convert_to_tensor(1.0))
    with pytest.raises(TypeError, match="Iteration"):
        iter(ops.convert_to_tensor(1.0)).__next__()
    with pytest.raises(ValueError, match=r"truth value.*\(2,\)"):
        bool(ops.ones(2))


def test_variable_dtype_inference_and_in_place_updates():
    assert Variable(1.0).dtype == "float32" and Variable(3).dtype == "int32"
    # Keras 3.15.1 (TF): an array keeps its dtype; Python numbers give float32/int32
    assert Variable(np.ones(2)).dtype == "float64" and Variable([1.0], dtype="float64").dtype == "float64"
    assert Variable([1.0, 2.0]).dtype == "float32" and Variable(np.float64(1.0)).dtype == "float64"
    assert Variable(np.int64(3)).dtype == "int64" and Variable(np.arange(3)).dtype == "int64"
    assert Variable(np.ones(2, "float16")).dtype == "float16"
    v = Variable([1.0, 2.0], name="w")
    buffer = v.value
    v.assign([3.0, 4.0])
    v.assign_add(1.0)
    v.assign_sub(ops.convert_to_tensor([0.5, 0.5]))
    assert v.value is buffer and v.numpy().tolist() == [3.5, 4.5]
    snapshot = v.numpy()
    v.assign([0.0, 0.0])
    assert snapshot.tolist() == [3.5, 4.5]
    with pytest.raises(ValueError, match=r"Variable.assign.*\(3,\).*'w'.*\(2,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="shape"):
        Variable("zeros")
    assert Variable("ones", shape=(2,)).numpy().tolist() == [1.0, 1.0]
    restored = pickle.loads(pickle.dumps(Variable([1.0], trainable=False, name="m")))
    assert restored.name == "m" and not restored.trainable


def test_print_variable_shows_its_repr_as_keras():
    # Keras 3.15.1 printed: <Variable path=myvar, shape=(2,), dtype=float32, value=[1. 1.]>
    v = Variable(np.ones((2,), "float32"), name="myvar")
    text = "<Variable path=myvar, shape=(2,), dtype=float32, value=[1. 1.]>"
    assert str(v) == text and f"{v}" == text and repr(v) == text


def test_string_tensors_print_bytes_as_tensorflow():
    # Keras 3.15.1 (TF): StringLookup(invert=True) outputs print as bytes.
    from kerasish import layers
    inv = layers.StringLookup(vocabulary=["a", "b"], invert=True)
    assert repr(inv(np.array([1, 0]))) == (
        "<tf.Tensor: shape=(2,), dtype=string, numpy=array([b'a', b'[UNK]'], dtype=object)>")
    assert repr(inv(np.array(2))) == "<tf.Tensor: shape=(), dtype=string, numpy=b'b'>"
    assert str(inv(np.array([[1, 2]]))) == "tf.Tensor([[b'a' b'b']], shape=(1, 2), dtype=string)"


def test_tensor_dtype_is_its_name_but_prints_as_tensorflows_dtype():
    # Keras 3.15.1 (TF): print(x.dtype) -> <dtype: 'float32'>, repr -> tf.float32;
    # variables' dtype is a plain "float32".
    x = ops.ones((2, 3))
    assert x.dtype == "float32" and x.dtype.name == "float32" and {x.dtype: 1}["float32"] == 1
    assert str(x.dtype) == "<dtype: 'float32'>" and repr(x.dtype) == "tf.float32"
    assert f"{x.dtype}" == "<dtype: 'float32'>" and np.dtype(x.dtype) == np.float32
    assert str(ops.cast(x, "int32").dtype) == "<dtype: 'int32'>"
    assert pickle.loads(pickle.dumps(x.dtype)) == "float32"
    assert str(Variable(1.0).dtype) == "float32"


def test_shape_is_tensorflows_tensorshape():
    # Keras 3.15.1 on TensorFlow (/tmp/probe4/mha_a.py, gqa.py): an eager
    # tensor's or variable's shape prints as TensorShape([2, 3]) in a repr
    # (a list of shapes), as (2, 3) with print; slices and sums stay
    # TensorShapes; a KerasTensor's shape is a plain tuple.
    shape = keras.ops.ones((2, 3)).shape
    assert repr(shape) == "TensorShape([2, 3])" and str(shape) == "(2, 3)"
    assert f"{shape}" == "(2, 3)" and shape == (2, 3) and shape == [2, 3]
    assert repr(shape[1:]) == "TensorShape([3])" and shape[0] == 2
    assert repr(shape + (1,)) == "TensorShape([2, 3, 1])"
    assert shape.as_list() == [2, 3] and shape.rank == 2 and shape.num_elements() == 6
    assert hash(shape) == hash((2, 3))
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    assert repr([w.shape for w in layer.weights]) == "[TensorShape([3, 2]), TensorShape([2])]"
    assert repr(keras.ops.convert_to_tensor(1.0).shape) == "TensorShape([])"
    assert repr(keras.Input((3,)).shape) == "(None, 3)"


def test_string_tensors_give_bytes_to_numpy_as_tensorflow():
    # Keras 3.15.1 on TensorFlow (/tmp/probe4/lookup2.py): `.numpy()` (and
    # np.asarray, ops.convert_to_numpy) of a string tensor is an object array of
    # bytes, a scalar one a bytes object: `t.numpy()[0].decode()` works.
    inv = keras.layers.StringLookup(vocabulary=["a", "b"], invert=True)
    out = inv(np.array([[1, 0]]))
    assert repr(out.numpy()) == "array([[b'a', b'[UNK]']], dtype=object)"
    assert np.asarray(out).tolist() == [[b"a", b"[UNK]"]]
    assert ops.convert_to_numpy(out)[0, 0].decode("utf-8") == "a"
    assert inv(np.array(2)).numpy() == b"b"
    assert str(out) == "tf.Tensor([[b'a' b'[UNK]']], shape=(1, 2), dtype=string)"
    assert pickle.loads(pickle.dumps(out)).numpy().tolist() == [[b"a", b"[UNK]"]]


def test_slices_and_reshapes_of_a_variable_keep_the_value_read():
    # Keras 3.15.1 (TF): v[0], v[:, 1:], reshape, transpose, expand_dims and unstack of a
    # variable are new tensors; after v.assign_add(1) they still hold the old values
    # (printed by the oracle). kerasish returned numpy views that followed the variable.
    v = Variable(np.arange(6.0).reshape(2, 3).astype("float32"))
    reads = [v[0], v[:, 1:], ops.reshape(v, (3, 2)), ops.transpose(v), ops.expand_dims(v, 0),
             ops.unstack(v)[1]]
    v.assign_add(np.ones((2, 3), "float32"))
    assert [np.asarray(r).ravel().tolist() for r in reads] == [
        [0.0, 1.0, 2.0], [1.0, 2.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        [0.0, 3.0, 1.0, 4.0, 2.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [3.0, 4.0, 5.0]]


def test_dtype_equals_numpy_types_as_tf_dtype():
    # TensorFlow 2.21: tf.float32 == np.float32 and == np.dtype("float32") are True
    import numpy as np
    from kerasish import ops
    dtype = ops.ones(2).dtype
    assert dtype == np.float32 and np.float32 == dtype and dtype == np.dtype("float32")
    assert dtype != np.int32 and not (dtype == 3) and dtype == "float32"
    assert {dtype: 1}["float32"] == 1
