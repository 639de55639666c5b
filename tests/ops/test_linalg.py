"""kerasish.ops.linalg: matmul, dot, tensordot, einsum (with '...'), outer, norm."""
import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(5)


def _r(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("sa, sb", [
    ((2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)),
    ((2, 2, 3), (3, 4)), ((2, 1, 2, 3), (4, 3, 2)),
], ids=str)
def test_matmul_values_and_gradients(sa, sb):
    a, b = _r(*sa), _r(*sb)
    np.testing.assert_allclose(ops.matmul(a, b).numpy(), np.matmul(a, b), rtol=1e-12)
    check_gradients(ops.matmul, [a, b])


def test_matmul_second_order_and_operator():
    check_second_order(lambda a, b: ops.matmul(a, b) ** 2, [_r(2, 3), _r(3, 2)])
    a = ops.convert_to_tensor(_r(2, 3))
    np.testing.assert_allclose((a @ a.T).numpy(), a.numpy() @ a.numpy().T)
    np.testing.assert_allclose((a.numpy().T @ a).numpy(), a.numpy().T @ a.numpy())


def test_matmul_dtypes():
    i8 = ops.ones((2, 2), "int8")
    assert ops.matmul(i8, i8).dtype == "int32"
    assert ops.matmul(ops.ones((2, 2), "int32"), ops.ones((2, 2))).dtype == "float32"
    assert ops.matmul(ops.ones((2, 2), "float16"), ops.ones((2, 2), "float16")).dtype == "float16"


@pytest.mark.parametrize("spec, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("i,i->", [(3,), (3,)]), ("i,j->ij", [(2,), (3,)]), ("ij->ji", [(2, 3)]), ("ij->i", [(2, 3)]),
    ("ijk,k->ij", [(2, 3, 4), (4,)]), ("abc,cd,de->abe", [(2, 2, 3), (3, 2), (2, 2)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 2)]), ("...ij,jk->...ik", [(2, 2, 3, 4), (4, 2)]),
    ("...ij,...jk->...ik", [(1, 3, 4), (2, 4, 2)]), ("b...,b...->b...", [(2, 3, 2), (2, 3, 2)]),
    ("btnh,bsnh->bnts", [(1, 2, 2, 3), (1, 3, 2, 3)]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_einsum_values_and_gradients(spec, shapes):
    args = [_r(*s) for s in shapes]
    np.testing.assert_allclose(ops.einsum(spec, *args).numpy(), np.einsum(spec, *args), rtol=1e-10, atol=1e-12)
    check_gradients(lambda *a: ops.einsum(spec, *a), args)


def test_einsum_second_order_and_errors():
    check_second_order(lambda a, b: ops.einsum("ij,jk->ik", ops.sin(a), b), [_r(2, 2), _r(2, 2)])
    assert ops.einsum("ii->", _r(3, 3)).shape == ()
    from kerasish import GradientTape
    x = ops.convert_to_tensor(_r(2, 2))
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.einsum("ii->", x)
    with pytest.raises(NotImplementedError, match="ops.einsum.*repeated letter.*ops.trace"):
        tape.gradient(y, x)
    with pytest.raises(ValueError, match="ops.einsum.*2 operands but 1"):
        ops.einsum("ij,jk->ik", _r(2, 2))
    with pytest.raises(ValueError, match=r"ops.einsum.*\(2, 3\).*\(4, 2\)"):
        ops.einsum("ij,jk->ik", _r(2, 3), _r(4, 2))


def test_dot_tensordot_outer_inner_vdot():
    a, b = _r(2, 3), _r(3, 4)
    np.testing.assert_allclose(ops.dot(a, b).numpy(), np.dot(a, b))
    np.testing.assert_allclose(ops.dot(a, 2.0).numpy(), a * 2)
    c = _r(4, 3, 2)
    np.testing.assert_allclose(ops.dot(a, c).numpy(), np.dot(a, c))
    check_gradients(ops.dot, [a, c])
    for axes in (1, [[1], [0]], ([0, 1], [0, 1])):
        y = b if axes != ([0, 1], [0, 1]) else _r(2, 3)
        np.testing.assert_allclose(ops.tensordot(a, y, axes).numpy(), np.tensordot(a, y, axes))
    check_gradients(lambda a, b: ops.tensordot(a, b, axes=[[0], [1]]), [_r(3, 2), _r(2, 3)])
    np.testing.assert_allclose(ops.outer(a[0], b[0]).numpy(), np.outer(a[0], b[0]))
    np.testing.assert_allclose(ops.inner(a, _r(5, 3)).shape, (2, 5))
    assert float(ops.vdot(a, a)) == pytest.approx(np.vdot(a, a))
    with pytest.raises(ValueError, match=r"ops.tensordot.*\[3\] vs \[4\]"):
        ops.tensordot(a, b, axes=[[1], [1]])


def test_norms():
    x = _r(3, 4)
    np.testing.assert_allclose(float(ops.norm(x)), np.linalg.norm(x))
    np.testing.assert_allclose(ops.norm(x, axis=1).numpy(), np.linalg.norm(x, axis=1))
    np.testing.assert_allclose(ops.norm(x, ord=1, axis=0).numpy(), np.linalg.norm(x, 1, axis=0))
    np.testing.assert_allclose(ops.norm(x, ord=np.inf, axis=1).numpy(), np.linalg.norm(x, np.inf, axis=1))
    np.testing.assert_allclose(ops.norm(x, ord=3, axis=1).numpy(), np.linalg.norm(x, 3, axis=1))
    check_gradients(lambda x: ops.norm(x, axis=-1), [x])
    with pytest.raises(ValueError, match="Invalid `ord` argument for vector norm"):
        ops.norm(x, ord="nuc", axis=1)


def test_matrix_norms_as_keras():
    # Keras 3.15.1 printed these: with no axis a matrix gets a matrix norm (ord=1 is the
    # largest column sum, inf the largest row sum, 2 the largest singular value); kerasish
    # used to flatten it (ord=1 summed every entry, ord=2 gave the Frobenius norm).
    x = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]], "float32")
    expected = {None: 5.590169906616211, "fro": 5.590169906616211, "nuc": 7.201773643493652,
                1: 6.0, -1: 1.5, 2: 5.231413841247559, -2: 1.9703596830368042,
                np.inf: 8.0, -np.inf: 3.5}
    for order, value in expected.items():
        np.testing.assert_allclose(float(ops.norm(x, ord=order)), value, rtol=1e-6,
                                   err_msg=repr(order))
    np.testing.assert_allclose(ops.norm(x, ord=-np.inf, axis=1).numpy(), [0.5, 1.0])
    np.testing.assert_allclose(ops.norm(x, ord=0, axis=1).numpy(), [3.0, 3.0])
    np.testing.assert_allclose(ops.norm(x, ord=0.5, axis=1).numpy(), [9.742641, 22.392305],
                               rtol=1e-6)
    stack = np.stack([x, 2 * x])
    # Keras's quirk: the singular-value norms re-insert the axes as given, so negative
    # axes land elsewhere (Keras 3.15.1: shape (1, 2, 1))
    assert ops.norm(stack, ord=2, axis=(-2, -1), keepdims=True).shape == (1, 2, 1)
    assert ops.norm(stack, ord=1, axis=(1, 2), keepdims=True).shape == (2, 1, 1)
    assert ops.norm(np.arange(4, dtype="int64")).dtype == "float32"
    check_gradients(lambda m: ops.norm(m, ord=1), [x.astype("float64")])
    check_gradients(lambda m: ops.norm(m, ord="nuc"), [x.astype("float64")])


def test_matmul_shape_mismatch_names_op_shapes_and_dtypes():
    with pytest.raises(ValueError, match=r"ops.matmul.*shape \(2, 3\) float32, shape \(2, 3\) float32"):
        ops.matmul(ops.ones((2, 3)), ops.ones((2, 3)))
    with pytest.raises(ValueError, match=r"ops.matmul.*batch shapes.*\(2, 2, 3\).*\(3, 3, 1\)"):
        ops.matmul(ops.ones((2, 2, 3)), ops.ones((3, 3, 1)))
    with pytest.raises(ValueError, match=r"ops.matmul"):
        ops.matmul(ops.ones(()), ops.ones((2,)))


@pytest.mark.parametrize("subscripts", ["i...,j...k->...ijk", "i...,j...k", "...ij,...jk->...ik"])
def test_einsum_ellipsis_inside_a_spec_broadcasts_like_numpy(subscripts):
    # the ellipsis dims of "j...k" start after j; ranks differ, so they broadcast
    x = np.arange(24, dtype="float64").reshape(2, 3, 4)
    y = np.arange(24, dtype="float64").reshape(2, 4, 3)
    if subscripts.startswith("..."):
        y = np.arange(12, dtype="float64").reshape(4, 3)
    np.testing.assert_allclose(ops.einsum(subscripts, x, y).numpy(), np.einsum(subscripts, x, y))
    check_gradients(lambda a, b: ops.einsum(subscripts, a, b), [x / 10, y / 10])


def test_dot_family_keeps_the_inputs_result_type_as_keras():
    # Keras 3.15.1 (TF): dot/vdot/inner/tensordot of int8 stay int8; matmul and
    # einsum of int8 give int32.
    x = ops.convert_to_tensor([[1, 2], [3, 4]], dtype="int8")
    for fn in (lambda: ops.tensordot(x, x, axes=1), lambda: ops.dot(x, x)):
        out = fn()
        assert out.dtype == "int8" and out.numpy().tolist() == [[7, 10], [15, 22]]
    assert ops.tensordot(x, x, axes=2).dtype == "int8" and int(ops.vdot(x, x)) == 30
    assert ops.vdot(x, x).dtype == "int8" and ops.inner(x, x).dtype == "int8"
    assert ops.matmul(x, x).dtype == "int32" and ops.einsum("ij,jk->ik", x, x).dtype == "int32"
    assert ops.tensordot(x, ops.cast(x, "int16"), axes=1).dtype == "int16"
