"""kerasish.ops.elementwise: binary math, comparisons, where, clip (values, dtypes, grads)."""
import numpy as np
import pytest

from kerasish import GradientTape, ops
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(0)
SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((4,), ())]


def _pos(shape):
    return RNG.uniform(0.5, 2.0, shape)


def _any(shape):
    return RNG.uniform(-2.0, 2.0, shape)


BINARY = {
    "add": (np.add, _any, _any), "subtract": (np.subtract, _any, _any),
    "multiply": (np.multiply, _any, _any), "divide": (np.divide, _any, _pos),
    "power": (np.power, _pos, _any), "maximum": (np.maximum, _any, _any),
    "minimum": (np.minimum, _any, _any), "mod": (np.mod, _pos, _pos),
    "arctan2": (np.arctan2, _any, _pos), "logaddexp": (np.logaddexp, _any, _any),
    "hypot": (np.hypot, _pos, _pos),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_forward_matches_numpy(name, shapes):
    ref, gen1, gen2 = BINARY[name]
    a, b = gen1(shapes[0]), gen2(shapes[1])
    out = getattr(ops, name)(a, b)
    np.testing.assert_allclose(out.numpy(), ref(a, b), rtol=1e-12)
    assert out.shape == np.broadcast_shapes(*shapes)


@pytest.mark.parametrize("name", sorted(set(BINARY) - {"mod"}))
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_gradients_with_broadcasting(name, shapes):
    _, gen1, gen2 = BINARY[name]
    a, b = gen1(shapes[0]), gen2(shapes[1])
    if name in ("maximum", "minimum"):
        b = b + 0.05  # keep away from ties, where the derivative jumps
    check_gradients(getattr(ops, name), [a, b])


def test_mod_gradient_away_from_jumps():
    a, b = np.array([0.7, 2.3, 4.1]), np.array([1.5, 1.0, 1.6])
    check_gradients(ops.mod, [a, b])


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power",
                                  "arctan2", "logaddexp", "hypot"])
def test_binary_second_order(name):
    _, gen1, gen2 = BINARY[name]
    check_second_order(getattr(ops, name), [gen1((2, 3)), gen2((3,))])


def test_python_scalars_are_weak_and_not_differentiated():
    x = ops.convert_to_tensor(np.ones(3, "float16"))
    assert (x * 2.5).dtype == "float16"
    assert (2 * x).dtype == "float16"
    ints = ops.convert_to_tensor(np.array([1, 2], "int8"))
    assert (ints + 3).dtype == "int8"
    assert (ints * 0.5).dtype == "float32"
    check_gradients(lambda x: ops.multiply(3.0, ops.power(x, 2)), [np.array([1.0, -2.0])])


@pytest.mark.parametrize("a, b, expected", [
    ("int32", "float32", "float32"), ("int8", "uint8", "int16"), ("int32", "float16", "float16"),
    ("float32", "float64", "float64"), ("bool", "int32", "int32"), ("int64", "int32", "int64"),
])
def test_promotion_of_two_tensors(a, b, expected):
    x = ops.ones((2,), dtype=a)
    y = ops.ones((2,), dtype=b)
    assert ops.add(x, y).dtype == expected
    assert ops.multiply(y, x).dtype == expected


def test_divide_gives_floats_like_keras():
    i = ops.convert_to_tensor([3, 4])
    assert (i / i).dtype == "float64"  # the operator is TensorFlow's (Keras 3.15.1 on TF)
    assert ops.divide(i, i).dtype == "float32" and ops.divide(i, 2).dtype == "float32"
    assert ops.true_divide(ops.ones((2,), "int64"), ops.ones((2,), "int64")).dtype == "float32"
    assert ops.divide(ops.ones((2,), "float64"), 3).dtype == "float64"
    np.testing.assert_allclose((i / 2).numpy(), [1.5, 2.0])
    assert (i // 2).dtype == "int32"


def test_integer_power_and_negative_exponent_error():
    i = ops.convert_to_tensor([2, 3])
    assert ops.power(i, 2).dtype == "int32"
    np.testing.assert_array_equal(ops.power(i, 2).numpy(), [4, 9])
    with pytest.raises(ValueError) as info:   # TensorFlow's InvalidArgumentError (Keras 3.15.1)
        ops.power(i, ops.convert_to_tensor([-1, 1]))
    assert type(info.value).__name__ == "InvalidArgumentError"
    assert str(info.value) == (
        "{{function_node __wrapped__Pow_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
        "Integers to negative integer powers are not allowed [Op:Pow] name: ")


@pytest.mark.parametrize("name, kernel", [("add", "AddV2"), ("multiply", "Mul"),
                                          ("divide", "RealDiv"), ("equal", "Equal"),
                                          ("mod", "FloorMod")])
def test_incompatible_shapes_raise_tensorflows_eager_error(name, kernel):
    # Keras 3.15.1 on TensorFlow 2.21 (recorded with /tmp/probe16/shape_err.py)
    with pytest.raises(ValueError) as info:
        getattr(ops, name)(ops.ones((2, 3)), ops.ones((2, 4)))
    assert type(info.value).__name__ == "InvalidArgumentError"
    assert str(info.value) == (
        f"{{{{function_node __wrapped__{kernel}_device_/job:localhost/replica:0/task:0/"
        f"device:CPU:0}}}} Incompatible shapes: [2,3] vs. [2,4] [Op:{kernel}] name: ")


def test_equality_operators_of_incompatible_shapes_are_a_scalar_as_tensorflow():
    a, b = ops.ones((2, 3)), ops.ones((2, 4))
    assert repr(a == b) == "<tf.Tensor: shape=(), dtype=bool, numpy=False>"
    assert repr(a != b) == "<tf.Tensor: shape=(), dtype=bool, numpy=True>"
    assert (a == None) is False and (a != None) is True  # noqa: E711 - TensorFlow's answer


def test_comparisons_and_logic():
    a = ops.convert_to_tensor([1.0, 2.0, 3.0])
    assert (a > 2).numpy().tolist() == [False, False, True]
    assert (a <= 2).numpy().tolist() == [True, True, False]
    assert ops.equal(a, [1, 5, 3]).numpy().tolist() == [True, False, True]
    assert ops.not_equal(a, 2).numpy().tolist() == [True, False, True]
    assert ops.greater_equal(a, 2).numpy().tolist() == [False, True, True]
    m = a > 1
    assert ops.logical_and(m, a < 3).numpy().tolist() == [False, True, False]
    assert ops.logical_or(m, a < 2).numpy().tolist() == [True, True, True]
    assert ops.logical_xor(m, a < 3).numpy().tolist() == [True, False, True]
    assert ops.logical_not(m).numpy().tolist() == [True, False, False]
    assert ops.isclose(a, a + 1e-9).numpy().all()
    assert not ops.isclose(a, a + 1e-3).numpy().any()


def test_where_values_dtypes_and_gradient():
    cond = np.array([True, False, True])
    out = ops.where(cond, ops.convert_to_tensor([1, 2, 3]), 0.5)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [1, 0.5, 3])
    check_gradients(lambda a, b: ops.where(cond, a, b), [_any((3,)), _any((2, 3))])
    check_second_order(lambda a, b: ops.where(cond, ops.square(a), b * a), [_any((3,)), _any((3,))])
    idx = ops.where(ops.convert_to_tensor([0, 3, 0, 4]))
    assert idx[0].dtype == "int32" and idx[0].numpy().tolist() == [1, 3]
    with pytest.raises(ValueError, match="ops.where"):
        ops.where(cond, 1.0)


def test_clip_values_gradient_and_int_dtype():
    x = np.array([-2.0, 0.5, 3.0, 0.9])
    np.testing.assert_allclose(ops.clip(x, 0.0, 1.0).numpy(), [0.0, 0.5, 1.0, 0.9])
    check_gradients(lambda x: ops.clip(x, -1.0, 1.0), [np.array([-2.0, 0.3, -0.4, 3.0])])
    assert ops.clip(ops.convert_to_tensor([1, 5]), 2, 3).dtype == "int32"
    assert ops.clip(ops.convert_to_tensor([True, False]), 0, 1).dtype == "int32"


def test_divide_no_nan_is_zero_with_zero_gradient():
    from kerasish import GradientTape
    x = ops.convert_to_tensor([1.0, 2.0])
    y = ops.convert_to_tensor([0.0, 4.0])
    np.testing.assert_allclose(ops.divide_no_nan(x, y).numpy(), [0.0, 0.5])
    with GradientTape() as tape:
        tape.watch([x, y])
        z = ops.divide_no_nan(x, y)
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_allclose(gx.numpy(), [0.0, 0.25])
    np.testing.assert_allclose(gy.numpy(), [0.0, -2.0 / 16.0])
    check_gradients(ops.divide_no_nan, [np.array([1.0, 2.0]), np.array([0.5, 4.0])])


def test_maximum_tie_gives_gradient_to_first_argument_like_tf():
    from kerasish import GradientTape
    a, b = ops.convert_to_tensor([1.0]), ops.convert_to_tensor([1.0])
    with GradientTape() as tape:
        tape.watch([a, b])
        y = ops.maximum(a, b)
    ga, gb = tape.gradient(y, [a, b])
    assert ga.numpy().tolist() == [1.0] and gb.numpy().tolist() == [0.0]


def test_gradient_dtype_follows_the_input_when_dtypes_mix():
    from kerasish import GradientTape
    a = ops.convert_to_tensor(np.ones(2, "float32"))
    b = ops.convert_to_tensor(np.ones(2, "float64"))
    with GradientTape() as tape:
        tape.watch([a, b])
        y = ops.multiply(a, b)
    ga, gb = tape.gradient(y, [a, b])
    assert y.dtype == "float64" and ga.dtype == "float32" and gb.dtype == "float64"


def test_bad_input_shape_mismatch_names_kernel_and_shapes_as_tensorflow():
    with pytest.raises(ValueError, match=r"Incompatible shapes: \[2\] vs. \[3\] \[Op:AddV2\]"):
        ops.add(ops.ones((2,)), ops.ones((3,)))
    with pytest.raises(ValueError, match=r"Incompatible shapes: \[2,2\] vs. \[3\] \[Op:Mul\]"):
        ops.multiply(ops.ones((2, 2)), ops.ones((3,), "int32"))


def test_where_with_one_branch_uses_keras_wording():
    with pytest.raises(ValueError, match="`x1` and `x2` either both should be `None`"):
        ops.where(ops.convert_to_tensor([True]), 1.0)


@pytest.mark.parametrize("x1, x2, dtype", [(1.0, 2.0, "float32"), (1, 2, "int32"),
                                           (1, 2.5, "float32"), (True, False, "bool")])
def test_where_of_two_python_numbers_has_keras_dtype(x1, x2, dtype):
    # Keras 3.15.1: ops.where(cond, 1.0, 2.0) is float32 and (cond, 1, 2) int32.
    out = ops.where(ops.convert_to_tensor([True, False]), x1, x2)
    assert out.dtype == dtype
    np.testing.assert_array_equal(ops.convert_to_numpy(out), np.array([x1, x2], dtype))


def test_mod_converts_python_numbers_like_keras_but_the_operator_keeps_the_dtype():
    # Keras 3.15.1 (TF): ops.mod(int8, 3) -> int32, ops.mod(float16, 3.0) -> float32,
    # ops.mod(bool, bool) -> int32; `int8_x % 3` stays int8.
    x = ops.convert_to_tensor([[1, 2], [3, 4]], dtype="int8")
    out = ops.mod(x, 3)
    assert out.dtype == "int32" and out.numpy().tolist() == [[1, 2], [0, 1]]
    assert (x % 3).dtype == "int8" and (7 % x).numpy().tolist() == [[0, 1], [1, 3]]
    assert ops.mod(x, 3.0).dtype == "float32" and ops.mod(x, x).dtype == "int8"
    assert ops.mod(ops.cast(x, "float16"), 3.0).dtype == "float32"
    assert ops.mod(ops.cast(x, "float16"), 3).dtype == "float16"
    b = ops.convert_to_tensor([True, True])
    assert ops.mod(b, b).dtype == "int32" and ops.mod(b, 3).dtype == "int32"
    assert ops.mod(KerasTensor((None, 2), "int8"), 3).dtype == "int8"  # symbolic: weak scalar
    assert ops.mod(KerasTensor((2,), "bool"), KerasTensor((2,), "bool")).dtype == "int32"


def test_nonzero_and_one_argument_where_return_lists_as_keras():
    # Keras 3.15.1 (TF): [<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 3], ...)>]
    out = ops.nonzero(ops.convert_to_tensor([0, 1, 0, 2]))
    assert isinstance(out, list) and len(out) == 1 and out[0].numpy().tolist() == [1, 3]
    assert out[0].dtype == "int32"
    out = ops.where(ops.convert_to_tensor([[True, False], [False, True]]))
    assert isinstance(out, list) and [i.numpy().tolist() for i in out] == [[0, 1], [0, 1]]


F16 = np.array([0.5, 1.5, -2.5], "float16")


def test_scalar_operands_convert_as_keras_tensorflow_backend():
    # Keras 3.15.1 (TensorFlow backend) converts both operands of arctan2/logaddexp/hypot
    # first, so a Python float is float32 there; its numbers (to float32 rounding).
    out = ops.arctan2(F16, 1.5)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [0.32175055, 0.78539819, -1.03037679], rtol=1e-6)
    out = ops.logaddexp(F16, 1.5)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [1.81326175, 2.19314718, 1.51814997], rtol=1e-6)
    out = ops.hypot(F16, 1.5)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [1.58113885, 2.12132025, 2.91547585], rtol=1e-7)
    # hypot of int64 is float64; its formula max * sqrt(1 + (min / max)**2) rounds as Keras
    assert ops.hypot(np.array([1, 2, 3], "int64"), 2).dtype == "float64"
    wide = ops.hypot(np.array([-2.5, 3.0], "float32"), np.array([250.0, 4.0], "float32"))
    assert wide.numpy().tolist() == [250.01248168945312, 5.0]
    # float16 logaddexp op by op in float16, as Keras
    half = ops.logaddexp(F16, np.array([1.0, 0.25, 3.0], "float16"))
    assert half.numpy().astype("float64").tolist() == [1.474609375, 1.751953125, 3.00390625]
    # divide_no_nan keeps Python numbers weak, as Keras
    out = ops.divide_no_nan(F16, 1.5)
    assert out.dtype == "float16"
    assert out.numpy().astype("float64").tolist() == [0.333251953125, 1.0, -1.6669921875]
    check_gradients(lambda a, b: ops.hypot(a, b), [np.array([3.0, -1.0, 0.5]), np.array([4.0, 2.0, -0.2])])
    check_gradients(lambda a, b: ops.logaddexp(a, b), [np.array([3.0, -1.0]), np.array([4.0, 2.0])])


def test_where_gradient_gives_true_zeros_to_the_branch_not_taken():
    # TensorFlow's where gradient is zeros_like(grad) off the branch: a NaN in the upstream
    # gradient where the other branch was picked does not reach this branch (g * 0 did).
    a = ops.convert_to_tensor([1.0, 2.0])
    b = ops.convert_to_tensor([3.0, 4.0])
    with GradientTape() as tape:
        tape.watch(a)
        tape.watch(b)
        out = ops.where(ops.convert_to_tensor([True, False]), a, b)
        total = ops.sum(ops.multiply(out, ops.convert_to_tensor([1.0, np.nan])))
    grad_a, grad_b = tape.gradient(total, [a, b])
    np.testing.assert_array_equal(grad_a.numpy(), [1.0, 0.0])
    np.testing.assert_array_equal(grad_b.numpy(), [0.0, np.nan])


def test_mod_zero_remainder_keeps_the_dividends_sign_as_tensorflow():
    # Keras 3.15.1 printed [-0.0, 0.0, -0.0, 0.0, -1.0] for mod(x, -2.0) (numpy gives the
    # divisor's sign to a zero remainder: [-0.0, -0.0, ...]).
    x = ops.convert_to_tensor(np.array([-4.0, 4.0, -0.0, 0.0, 3.0], "float32"))
    for out in (ops.mod(x, -2.0), x % -2.0):
        np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0, 0.0, -1.0])
        assert np.signbit(out.numpy()).tolist() == [True, False, True, False, True]
    assert np.signbit(ops.mod(x, 2.0).numpy()).tolist() == [True, False, True, False, False]
    check_gradients(lambda a: ops.mod(a, 0.7), [np.array([1.3, -2.2, 0.4])])


def test_broadcast_to_an_incompatible_shape_is_tensorflows_error():
    # Keras 3.15.1 on TensorFlow 2.21 (recorded)
    with pytest.raises(ValueError) as info:
        ops.broadcast_to(ops.ones((2, 3)), (4, 3))
    assert type(info.value).__name__ == "InvalidArgumentError"
    assert str(info.value) == (
        "{{function_node __wrapped__BroadcastTo_device_/job:localhost/replica:0/task:0/"
        "device:CPU:0}} Incompatible shapes: [2,3] vs. [4,3] [Op:BroadcastTo]")
