"""kerasish.ops.numpy_extras against numpy/scipy; result dtypes as Keras 3.15.1 gives them."""
import numpy as np
import pytest
from scipy import special

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(11)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 4))
A[0, 0], B[0, 1], A[1, 1], B[1, 1] = np.nan, np.nan, np.nan, np.nan


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_ignore_nan(name):
    np.testing.assert_array_equal(getattr(ops, name)(A, B).numpy(), getattr(np, name)(A, B))
    assert getattr(ops, name)(np.array([1, 5], "int32"), np.array([2, 3], "int32")).dtype == "int32"
    assert getattr(ops, name)(np.array([1], "int32"), np.array([2.0], "float32")).dtype == "float32"
    finite = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    check_gradients(getattr(ops, name), list(finite))


def test_ldexp():
    out = ops.ldexp(np.array([1.0, 3.0], "float32"), np.array([2, -1]))
    assert out.numpy().tolist() == [4.0, 1.5] and out.dtype == "float32"
    assert ops.ldexp(np.array([1, 3], "int32"), np.array([2, 1])).dtype == "float32"
    assert ops.ldexp(np.array([1.0], "float16"), np.array([2])).dtype == "float16"
    with pytest.raises(TypeError, match="ops.ldexp: ldexp exponent must be an integer type"):
        ops.ldexp(np.ones(2), np.ones(2))
    exps = np.array([[1, -2, 3, 0]])
    check_gradients(lambda x: ops.ldexp(x, exps), [RNG.standard_normal((3, 4))])


def test_nextafter_angle_fabs_isreal():
    # Keras 3.15.1 on TensorFlow steps in float64 and casts back: float32 stays 1.0
    out = ops.nextafter(np.array([1.0], "float32"), 2.0)
    assert out.numpy()[0] == 1.0 and out.dtype == "float32"
    wide = ops.nextafter(np.array([1.0, 0.0]), np.array([2.0, 1.0])).numpy()
    assert wide.tolist() == [1.0000000000000002, 5e-324]
    assert ops.nextafter(np.array([1], "int32"), np.array([2], "int32")).dtype == "float32"
    np.testing.assert_allclose(ops.angle(np.array([-1.0, 0.0, -0.0, 2.0])).numpy(),
                               np.angle(np.array([-1.0, 0.0, -0.0, 2.0])))
    assert ops.angle(np.array([1], "int32")).dtype == "float32"
    assert ops.angle(np.array([1], "float16")).dtype == "float16"
    np.testing.assert_allclose(ops.angle(np.array([1 + 1j], "complex64")).numpy(), [np.pi / 4])
    assert ops.fabs(np.array([-2, 3])).numpy().tolist() == [2.0, 3.0]
    assert ops.fabs(np.array([True])).dtype == "float32"
    assert ops.isreal(np.array([1 + 0j, 1 + 1j])).numpy().tolist() == [True, False]
    assert ops.isreal(np.ones(2)).numpy().tolist() == [True, True]


def test_i0_and_gradients():
    x = np.array([-2.0, 0.0, 0.5, 3.0])
    np.testing.assert_allclose(ops.i0(x).numpy(), special.i0(x))
    assert ops.i0(np.array([1], "int32")).dtype == "float32"
    check_gradients(ops.i0, [x])
    check_second_order(ops.i0, [x])


def test_geomspace_and_windows():
    np.testing.assert_allclose(ops.geomspace(1, 100, 3).numpy(), [1.0, 10.0, 100.0], rtol=1e-6)
    assert ops.geomspace(1, 100, 3).dtype == "float32"
    out = ops.geomspace(np.array([1, 2]), np.array([10, 20]), 3, axis=1)
    np.testing.assert_allclose(out.numpy(), np.geomspace([1, 2], [10, 20], 3, axis=1), rtol=1e-6)
    np.testing.assert_allclose(ops.geomspace(-1.0, -100.0, 3).numpy(), [-1, -10, -100], rtol=1e-6)
    for name in ["bartlett", "blackman", "hamming", "hanning"]:
        np.testing.assert_allclose(getattr(ops, name)(7).numpy(), getattr(np, name)(7), atol=1e-7)
        assert getattr(ops, name)(7).dtype == "float32"
    np.testing.assert_allclose(ops.kaiser(6, 14.0).numpy(), np.kaiser(6, 14.0), rtol=1e-6)


def test_argpartition_corrcoef_correlate():
    x = RNG.standard_normal((4, 6))
    idx = ops.argpartition(x, 2, axis=1).numpy()
    part = np.take_along_axis(x, idx, axis=1)
    assert np.all(part[:, :2] <= part[:, 2:3]) and np.all(part[:, 3:] >= part[:, 2:3])
    assert ops.argpartition(x, 2).dtype == "int32"
    np.testing.assert_allclose(ops.corrcoef(x).numpy(), np.corrcoef(x), atol=1e-12)
    assert ops.corrcoef(np.ones((2, 3), "int32") * [[1, 2, 4]]).dtype == "float32"
    check_gradients(ops.corrcoef, [x])
    for la in range(1, 5):
        for lv in range(1, 5):
            a, v = RNG.standard_normal(la), RNG.standard_normal(lv)
            for mode in ["valid", "same", "full"]:
                np.testing.assert_allclose(ops.correlate(a, v, mode).numpy(),
                                           np.correlate(a, v, mode), atol=1e-12)
    assert ops.correlate(np.array([1, 2, 3]), np.array([1, 0])).dtype == "float32"
    check_gradients(lambda a, v: ops.correlate(a, v, "full"), [RNG.standard_normal(5),
                                                                RNG.standard_normal(3)])
    with pytest.raises(ValueError, match="ops.correlate: both inputs must be 1-D"):
        ops.correlate(np.ones(3), np.ones((3, 4)))


def test_histogram_cdist_views():
    x = RNG.random(20)
    counts, edges = ops.histogram(x, bins=5, range=(0.1, 0.9))
    ref_counts, ref_edges = np.histogram(x, bins=5, range=(0.1, 0.9))
    np.testing.assert_array_equal(counts.numpy(), ref_counts)
    np.testing.assert_allclose(edges.numpy(), ref_edges)
    counts, edges = ops.histogram(np.array([1, 2, 3, 7], "int32"), bins=3)
    assert counts.numpy().tolist() == [2, 1, 1] and edges.numpy().tolist() == [1, 3, 5, 7]
    with pytest.raises(ValueError, match="Argument `bins` should be a non-negative integer"):
        ops.histogram(x, bins=-5)
    with pytest.raises(ValueError, match="The second element of `range` must be greater"):
        ops.histogram(x, range=(5, 1))
    p, q = RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 4, 3))
    ref = np.stack([np.linalg.norm(p[b][:, None] - q[b][None], axis=-1) for b in range(2)])
    np.testing.assert_allclose(ops.cdist(p, q).numpy(), ref)
    check_gradients(ops.cdist, [p, q])
    with pytest.raises(ValueError, match="ops.cdist"):
        ops.cdist(np.ones((3, 4)), np.ones((5, 5)))
    np.testing.assert_array_equal(ops.view(np.ones(2, "float32"), "int32").numpy(),
                                  np.ones(2, "float32").view("int32"))
    c = ops.view_as_complex(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert c.dtype == "complex64" and c.numpy().tolist() == [1 + 2j, 3 + 4j]
    r = ops.view_as_real(np.array([1 + 2j], "complex64"))
    assert r.dtype == "float32" and r.numpy().tolist() == [[1.0, 2.0]]
    with pytest.raises(ValueError, match="Last dimension of input must be size 2"):
        ops.view_as_complex(np.ones(3))
    np.testing.assert_allclose(ops.polar(np.array([2.0]), np.array([np.pi / 2])).numpy(), [2j],
                               atol=1e-6)


def test_view_as_real_and_angle_dtypes_as_keras():
    # Keras 3.15.1 (TensorFlow backend): view_as_real keeps real(x)'s dtype (the docstring's
    # complex128 example gives float64), angle casts complex128 to complex64 (float32 out)
    r = ops.view_as_real(np.array([1 + 2j, 3 + 4j]))
    assert r.dtype == "float64" and r.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ops.view_as_real(np.array([1, 0], "int32")).numpy().tolist() == [[1, 0], [0, 0]]
    assert ops.view_as_real(np.array([1, 0], "int32")).dtype == "int32"
    assert ops.view_as_real(np.array([1.0], "float16")).dtype == "float16"
    a = ops.angle(np.array([1 + 3j, -2j]))
    assert a.dtype == "float32"
    np.testing.assert_allclose(a.numpy(), [1.2490458, -1.5707964], rtol=1e-6)


def test_nextafter_bfloat16_rounds_back_as_keras():
    pytest.importorskip("ml_dtypes", reason="bfloat16 needs ml_dtypes on the numpy backend")
    x = ops.cast(np.array([1.0, -1.0, 0.0, 0.0, 2.0, np.nan]), "bfloat16")
    y = ops.cast(np.array([2.0, 0.0, 1.0, -1.0, 2.0, 1.0]), "bfloat16")
    out = ops.nextafter(x, y)
    assert out.dtype == "bfloat16"
    got = ops.cast(out, "float32").numpy()
    # Keras 3.15.1 printed [1.0, -1.0, 0.0, -0.0, 2.0, nan]: the float64 step rounds away
    np.testing.assert_array_equal(got[:5], [1.0, -1.0, 0.0, -0.0, 2.0])
    assert np.signbit(got[3]) and np.isnan(got[5])


def test_vectorize_matches_numpy():
    stack = RNG.standard_normal((3, 2, 4, 4))
    traces = ops.vectorize(ops.trace, signature="(d,d)->()")
    np.testing.assert_allclose(traces(stack).numpy(),
                               np.vectorize(np.trace, signature="(d,d)->()")(stack))
    diagonals = ops.vectorize(ops.diagonal, signature="(d,d)->(d)")
    np.testing.assert_allclose(diagonals(stack).numpy(),
                               np.vectorize(np.diagonal, signature="(d,d)->(d)")(stack))
    add = ops.vectorize(lambda a, b: a + b)
    assert add(np.array([1, 2, 3]), 2).numpy().tolist() == [3, 4, 5]
    scaled = ops.vectorize(lambda a, k: a * k, excluded={1}, signature="(n)->(n)")
    np.testing.assert_allclose(scaled(np.ones((2, 3)), 2.0).numpy(), np.full((2, 3), 2.0))
    check_gradients(lambda s: traces(s * s), [stack[0]])


def test_fmax_fmin_keep_python_numbers_weak_as_keras():
    # Keras 3.15.1: fmax(float16, 1.5) is float16, fmin(int8, 2) int8.
    out = ops.fmax(np.array([0.5, 1.5, -2.5], "float16"), 1.5)
    assert out.dtype == "float16" and out.numpy().tolist() == [1.5, 1.5, 1.5]
    out = ops.fmin(np.array([1, -2, 3], "int8"), 2)
    assert out.dtype == "int8" and out.numpy().tolist() == [1, -2, 2]


def test_polar_of_float64_is_complex128_as_keras():
    out = ops.polar(np.array([1.0, 2.0]), np.array([0.3, 1.0]))
    assert out.dtype == "complex128"
    np.testing.assert_allclose(out.numpy(), [0.955336489125606 + 0.29552020666133955j,
                                             1.0806046117362795 + 1.682941969615793j], rtol=1e-15)
    assert ops.polar(np.array([1.0], "float32"), np.array([0.3], "float32")).dtype == "complex64"


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(x=np.ones((2, 3))), ValueError,
     "Input tensor must be 1-dimensional. Received: input.shape=(2, 3)"),
    (dict(x=np.ones(3), bins=2.0), TypeError,
     "Argument `bins` must be of type `int`. Received: bins=2.0"),
    (dict(x=np.ones(3), bins=-1), ValueError,
     "Argument `bins` should be a non-negative integer. Received: bins=-1"),
    (dict(x=np.ones(3), range=[0, 1]), ValueError,
     "Argument `range` must be a tuple of two elements. Received: range=[0, 1]"),
    (dict(x=np.ones(3), range=(1, 0)), ValueError,
     "The second element of `range` must be greater than the first. Received: range=(1, 0)"),
])
def test_histogram_refuses_as_keras(kwargs, error, message):
    # the types and texts Keras 3.15.1 prints for these calls
    with pytest.raises(error) as info:
        ops.histogram(**kwargs)
    assert str(info.value) == message
