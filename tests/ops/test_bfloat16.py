"""bfloat16 inputs stay bfloat16 through the ops (as in Keras) and are differentiated."""
import numpy as np
import pytest

from kerasish import GradientTape, ops

ml_dtypes = pytest.importorskip("ml_dtypes", reason="bfloat16 needs the ml_dtypes package")
X = np.array([-1.5, -0.25, 0.5, 2.0])


def _bf16(values):
    return ops.cast(ops.convert_to_tensor(np.asarray(values, np.float32)), "bfloat16")


@pytest.mark.parametrize("name", ["celu", "elu", "selu", "leaky_relu", "gelu", "relu", "sigmoid",
                                  "softplus", "sparse_plus", "squareplus", "exp", "tanh",
                                  "erfc", "square"])
def test_unary_ops_keep_bfloat16_and_match_float32_rounded(name):
    fn = getattr(ops, name)
    out = fn(_bf16(X))
    assert out.dtype == "bfloat16"
    reference = fn(ops.convert_to_tensor(X.astype(np.float32))).numpy()
    np.testing.assert_allclose(out.numpy().astype(np.float32), reference, rtol=2e-2, atol=2e-2)


def test_python_scalars_stay_weak_with_bfloat16():
    x = _bf16(X)
    for out in (x + 1, x * 2.5, 2.0 - x, ops.minimum(x, 0.0), ops.rsqrt(ops.abs(x))):
        assert out.dtype == "bfloat16"


def test_bfloat16_inputs_get_gradients():
    x = _bf16(X)
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.square(x) * 3.0)
    grad = tape.gradient(y, x)
    assert grad is not None and grad.dtype == "bfloat16"
    np.testing.assert_allclose(grad.numpy().astype(np.float32), 6.0 * X, rtol=1e-2)


def test_saturate_cast_to_bfloat16_clips_to_its_range():
    out = ops.saturate_cast(ops.convert_to_tensor(np.array([1e39, -1e39, 1.0])), "bfloat16")
    assert out.dtype == "bfloat16"
    finite_max = float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    np.testing.assert_array_equal(out.numpy().astype(np.float64), [finite_max, -finite_max, 1.0])


@pytest.mark.parametrize("other", ["bfloat16", "int8", "uint8", "int32", "bool"])
def test_products_keep_bfloat16(other):
    # Keras: the product ops give result_type(x1, x2); numpy would return float32
    # for bfloat16 matmul and refuse bfloat16 in einsum.
    a = _bf16([[1.0, 2.0], [3.0, 4.0]])
    b = ops.cast(ops.convert_to_tensor([[1, 0], [1, 1]]), other)
    expected = np.array([[3.0, 2.0], [7.0, 4.0]])
    for out in (ops.matmul(a, b), ops.dot(a, b), ops.tensordot(a, b, 1),
                ops.einsum("ij,jk->ik", a, b)):
        assert out.dtype == "bfloat16"
        np.testing.assert_array_equal(out.numpy().astype(np.float32), expected)
    inner = ops.inner(b, a)
    assert inner.dtype == "bfloat16"
    np.testing.assert_array_equal(inner.numpy().astype(np.float32), [[1.0, 3.0], [3.0, 7.0]])


def test_corrcoef_keeps_bfloat16():
    out = ops.corrcoef(_bf16([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))
    assert out.dtype == "bfloat16"
    np.testing.assert_array_equal(out.numpy().astype(np.float32), [[1.0, -1.0], [-1.0, 1.0]])


def test_dot_product_attention_keeps_bfloat16():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 3, 2, 4)).astype(np.float32) for _ in range(3))
    out = ops.dot_product_attention(_bf16(q), _bf16(k), _bf16(v))
    assert out.dtype == "bfloat16"
    reference = ops.dot_product_attention(*(ops.cast(_bf16(t), "float32") for t in (q, k, v)))
    np.testing.assert_allclose(out.numpy().astype(np.float32), reference.numpy(), rtol=2e-2, atol=2e-2)
    mixed = ops.dot_product_attention(_bf16(q), k, v)
    assert mixed.dtype == "float32"


@pytest.mark.parametrize("name", ["rgb_to_hsv", "hsv_to_rgb", "gaussian_blur"])
def test_image_colour_ops_and_blur_accept_and_keep_bfloat16(name):
    # they refused bfloat16 (a "kind V" dtype) or returned float32
    x = np.random.default_rng(0).random((2, 4, 4, 3)).astype(np.float32)
    out = getattr(ops.image, name)(_bf16(x))
    assert out.dtype == "bfloat16"
    reference = getattr(ops.image, name)(ops.cast(_bf16(x), "float32")).numpy()
    np.testing.assert_allclose(out.numpy().astype(np.float32), reference, rtol=2e-2, atol=2e-2)
