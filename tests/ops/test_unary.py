"""kerasish.ops.unary: one-argument math against numpy/scipy, gradients, dtype rules."""
import numpy as np
import pytest
from scipy import special

from kerasish import GradientTape, ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(1)
ANY = RNG.uniform(-2.0, 2.0, (2, 3))
POS = RNG.uniform(0.3, 2.0, (2, 3))
UNIT = RNG.uniform(-0.8, 0.8, (2, 3))
BIG = RNG.uniform(1.2, 3.0, (2, 3))

# name: (numpy reference, domain)
UNARY = {
    "exp": (np.exp, ANY), "exp2": (np.exp2, ANY), "expm1": (np.expm1, ANY), "log": (np.log, POS),
    "log1p": (np.log1p, POS), "log2": (np.log2, POS), "log10": (np.log10, POS),
    "sqrt": (np.sqrt, POS), "rsqrt": (lambda a: 1 / np.sqrt(a), POS), "cbrt": (np.cbrt, POS),
    "square": (np.square, ANY), "reciprocal": (np.reciprocal, POS), "negative": (np.negative, ANY),
    "abs": (np.abs, ANY), "sin": (np.sin, ANY), "cos": (np.cos, ANY), "tan": (np.tan, UNIT),
    "sinh": (np.sinh, ANY), "cosh": (np.cosh, ANY), "tanh": (np.tanh, ANY),
    "arcsin": (np.arcsin, UNIT), "arccos": (np.arccos, UNIT), "arctan": (np.arctan, ANY),
    "arcsinh": (np.arcsinh, ANY), "arccosh": (np.arccosh, BIG), "arctanh": (np.arctanh, UNIT),
    "erf": (special.erf, ANY), "erfinv": (special.erfinv, UNIT),
    "deg2rad": (np.deg2rad, ANY), "rad2deg": (np.rad2deg, ANY),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_forward_matches_reference(name):
    ref, x = UNARY[name]
    np.testing.assert_allclose(getattr(ops, name)(x).numpy(), ref(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradient(name):
    _, x = UNARY[name]
    check_gradients(getattr(ops, name), [x])


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "square",
                                  "reciprocal", "erf", "arctan", "abs", "expm1", "cbrt"])
def test_second_order(name):
    _, x = UNARY[name]
    check_second_order(getattr(ops, name), [x[:1]])


def test_int_inputs_become_floatx_like_keras():
    i = ops.convert_to_tensor([1, 2])
    for name in ("exp", "log", "sqrt", "sin", "tanh", "erf", "floor", "ceil", "rsqrt"):
        assert getattr(ops, name)(i).dtype == "float32", name
    assert ops.square(i).dtype == "int32"
    assert ops.abs(i).dtype == "int32"
    assert ops.negative(i).dtype == "int32"
    assert ops.trunc(i).dtype == "int32"
    assert ops.exp(ops.ones((2,), "float16")).dtype == "float16"
    assert ops.exp(ops.ones((2,), "float64")).dtype == "float64"


def test_rounding_and_tests():
    x = ops.convert_to_tensor([0.5, 1.5, -2.7, 2.25])
    np.testing.assert_array_equal(ops.round(x).numpy(), [0.0, 2.0, -3.0, 2.0])
    np.testing.assert_array_equal(ops.round(x, 1).numpy(), np.round(x.numpy(), 1))
    np.testing.assert_array_equal(ops.floor(x).numpy(), [0.0, 1.0, -3.0, 2.0])
    np.testing.assert_array_equal(ops.ceil(x).numpy(), [1.0, 2.0, -2.0, 3.0])
    np.testing.assert_array_equal(ops.trunc(x).numpy(), [0.0, 1.0, -2.0, 2.0])
    np.testing.assert_array_equal(ops.sign(x).numpy(), [1.0, 1.0, -1.0, 1.0])
    y = ops.convert_to_tensor([np.nan, np.inf, -np.inf, 1.0])
    assert ops.isnan(y).numpy().tolist() == [True, False, False, False]
    assert ops.isinf(y).numpy().tolist() == [False, True, True, False]
    assert ops.isfinite(y).numpy().tolist() == [False, False, False, True]
    assert ops.isposinf(y).numpy().tolist() == [False, True, False, False]
    assert ops.signbit(ops.convert_to_tensor([-0.0, 1.0])).numpy().tolist() == [True, False]


def test_nan_to_num_values_and_gradient_only_where_finite():
    x = ops.convert_to_tensor([np.nan, np.inf, -np.inf, 2.0])
    out = ops.nan_to_num(x, nan=0.0, posinf=9.0, neginf=-9.0)
    np.testing.assert_array_equal(out.numpy(), [0.0, 9.0, -9.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.nan_to_num(x) * 0.5
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0, 0.0, 0.5])


def test_non_differentiable_ops_give_none():
    x = ops.convert_to_tensor([0.4, 1.6])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        outs = [ops.round(x), ops.floor(x), ops.sign(x)]
    assert all(tape.gradient(o, x) is None for o in outs)


def test_keras_docstring_values():
    np.testing.assert_allclose(ops.rsqrt(ops.convert_to_tensor([1.0, 10.0, 100.0])).numpy(),
                               [1.0, 0.31622776, 0.1], rtol=1e-6)
    np.testing.assert_allclose(ops.erf(ops.convert_to_tensor([-3.0, -2.0, -1.0, 0.0, 1.0])).numpy(),
                               [-0.99998, -0.99532, -0.8427, 0.0, 0.8427], atol=1e-4)
