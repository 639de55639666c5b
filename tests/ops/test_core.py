"""kerasish.ops.core: conversion, casting, stop_gradient, devices, input checks."""
import numpy as np
import pytest

from kerasish import GradientTape, Variable, device, ops
from kerasish.ops import core


def test_convert_to_tensor_dtypes_like_keras():
    assert ops.convert_to_tensor(1.5).dtype == "float32"
    assert ops.convert_to_tensor(2).dtype == "int32"
    assert ops.convert_to_tensor(True).dtype == "bool"
    assert ops.convert_to_tensor([1, 2]).dtype == "int32"
    assert ops.convert_to_tensor([[1.0, 2]]).dtype == "float32"
    assert ops.convert_to_tensor(np.ones(2)).dtype == "float64"
    assert ops.convert_to_tensor(np.ones(2, "int64")).dtype == "int64"
    assert ops.convert_to_tensor([1, 2], dtype="float16").dtype == "float16"
    t = ops.ones(2)
    assert ops.convert_to_tensor(t) is t
    assert ops.convert_to_tensor(t, dtype="float64").dtype == "float64"
    stacked = ops.convert_to_tensor([ops.ones(2), ops.zeros(2)])
    assert stacked.shape == (2, 2) and stacked.dtype == "float32"
    with pytest.raises(ValueError, match="convert_to_tensor.*ragged"):
        ops.convert_to_tensor([[1, 2], [3]])
    with pytest.raises(NotImplementedError, match="sparse"):
        ops.convert_to_tensor([1], sparse=True)


def test_small_helpers():
    x = ops.ones((2, 3))
    assert ops.is_tensor(x) and not ops.is_tensor(np.ones(2))
    assert ops.shape(x) == (2, 3) and ops.shape(np.ones((4,))) == (4,) and ops.ndim(x) == 2
    assert ops.dtype([1.0]) == "float32"
    np.testing.assert_array_equal(ops.convert_to_numpy(x), np.ones((2, 3)))
    assert isinstance(np.asarray(x), np.ndarray)


def test_cast_is_differentiable_between_floats_only():
    x = ops.convert_to_tensor(np.array([1.5, 2.5]))
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = ops.sum(ops.cast(x, "float32") * 2.0)
        z = ops.cast(x, "int32")
    g = tape.gradient(y, x)
    assert g.dtype == "float64" and g.numpy().tolist() == [2.0, 2.0]
    assert tape.gradient(z, x) is None
    assert z.numpy().tolist() == [1, 2]


def test_cast_of_a_variable_to_its_own_dtype_is_a_read():
    # Keras 3.15.1 (TensorFlow): tf.cast reads the variable, so a later assign
    # does not show in the cast ([1., 2.] after assigning [5., 6.]).
    v = Variable([1.0, 2.0])
    read = ops.cast(v, "float32")
    assert read is not v
    v.assign([5.0, 6.0])
    assert read.numpy().tolist() == [1.0, 2.0]
    with GradientTape() as tape:
        y = ops.sum(ops.cast(v, "float32") * 3.0)
    assert tape.gradient(y, v).numpy().tolist() == [3.0, 3.0]


def test_stop_gradient_blocks_and_snapshots_variables():
    v = Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = ops.sum(ops.stop_gradient(v) * v)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [1.0, 2.0])
    frozen = ops.stop_gradient(v)
    v.assign([5.0, 5.0])
    assert frozen.numpy().tolist() == [1.0, 2.0]


def test_mixing_devices_outside_a_scope_is_an_error_naming_op_and_shapes():
    a = ops.ones((2,))
    with device("cpu:1"):
        b = ops.ones((2,))
    assert a.device == "cpu:0" and b.device == "cpu:1"
    with pytest.raises(ValueError, match=r"ops.add.*cpu:0: shape \(2,\) float32.*cpu:1"):
        ops.add(a, b)
    with pytest.raises(ValueError, match=r"ops.matmul.*different devices"):
        ops.matmul(ops.ones((2, 2)), ops.reshape(ops.concatenate([b, b]), (2, 2)))
    with device("cpu:1"):
        c = ops.add(a, b)
    assert c.device == "cpu:1"
    assert ops.add(b, 1.0).device == "cpu:1"


def test_check_finite_input():
    core.check_finite_input("demo", np.array([1.0, 2.0]))
    core.check_finite_input("demo", np.array([1, 2]))
    with pytest.raises(ValueError, match=r"ops.demo: received 2 NaN/infinite.*shape \(3,\), dtype float32"):
        core.check_finite_input("demo", ops.convert_to_tensor([np.nan, 1.0, np.inf]))


def test_promote_keeps_python_scalars_weak():
    f16 = np.ones(2, "float16")
    assert core.promote(f16, 2.5)[0].dtype == np.float16
    assert core.promote(np.ones(2, "int32"), 2.5)[0].dtype == np.float32
    assert core.promote(3, np.ones(2, "bool"))[1].dtype == np.int32
    assert core.promote(np.ones(2, "int8"), 3)[0].dtype == np.int8
    a, b = core.promote(np.ones(2, "int32"), np.ones(2, "float32"))
    assert a.dtype == b.dtype == np.float32
    assert core.result_dtype(np.ones(1, "int16"), 1.0) == "float32"


def test_a_list_of_tensors_converts_differentiably_as_tf():
    # TF packs a list of tensors with a stack, so `ops.sum(model.losses)` inside a tape
    # has gradients (Keras 3.15.1: d/dk of sum([L1(0.01)(k)]) = 0.01 * sign(k), printed by
    # the probe /tmp/probe5/l1g.py); kerasish's conversion went through numpy: None.
    k = Variable(np.array([[0.5, -0.25], [0.0, 1.0]], "float32"))
    with GradientTape() as tape:
        total = ops.sum([0.01 * ops.sum(ops.absolute(k)), ops.sum(k * k)])
    np.testing.assert_allclose(tape.gradient(total, k).numpy(),
                               [[0.01 + 1.0, -0.01 - 0.5], [0.0, 0.01 + 2.0]], rtol=1e-6)
    with GradientTape() as tape:
        nested = ops.convert_to_tensor([[k[0, 0], 2.0], [k[1, 1], k[0, 1]]])
        total = ops.sum(nested * nested)
    np.testing.assert_allclose(tape.gradient(total, k).numpy(), [[1.0, -0.5], [0.0, 2.0]])
    assert nested.dtype == "float32" and nested.shape == (2, 2)


def test_python_ints_beyond_int32_become_int64_as_tensorflow():
    # Keras 3.15.1 on TensorFlow: int64 (kerasish made them int32 and wrapped 2**40 to 0).
    assert ops.convert_to_tensor(2 ** 40).numpy() == 2 ** 40
    big = ops.convert_to_tensor([2 ** 40, 1])
    assert big.dtype == "int64" and big.numpy().tolist() == [2 ** 40, 1]
    assert ops.convert_to_tensor(2 ** 31).dtype == "int64"
    assert ops.convert_to_tensor(-2 ** 31).dtype == "int32"
    assert ops.convert_to_tensor([]).dtype == "float32"


def test_ops_dtype_is_a_plain_string():
    # Keras 3.15.1: keras.ops.dtype(keras.ops.zeros((8, 12))) is 'float32' (type str, repr
    # 'float32'), while the tensor's own .dtype prints as TensorFlow's tf.float32
    x = ops.zeros((8, 12))
    name = ops.dtype(x)
    assert type(name) is str and repr(name) == "'float32'"
    assert repr(x.dtype) == "tf.float32"
    assert repr(ops.dtype([1, 2])) == "'int32'"
