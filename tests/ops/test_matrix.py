"""kerasish.ops.matrix: tril/triu/diag/diagonal/trace and inv/solve/det/slogdet."""
import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(6)
X = RNG.standard_normal((3, 4))
A = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_triangles(k):
    np.testing.assert_array_equal(ops.tril(X, k).numpy(), np.tril(X, k))
    np.testing.assert_array_equal(ops.triu(A, k).numpy(), np.triu(A, k))
    check_gradients(lambda x: ops.tril(x, k) * x, [X])
    check_second_order(lambda x: ops.triu(ops.square(x), k), [X[:2, :2]])
    assert ops.tril(ops.ones((2, 2), "int32")).dtype == "int32"


@pytest.mark.parametrize("k", [-2, 0, 1])
def test_diag_and_diagonal(k):
    v = X[0]
    np.testing.assert_array_equal(ops.diag(v, k).numpy(), np.diag(v, k))
    np.testing.assert_array_equal(ops.diag(X, k).numpy(), np.diag(X, k))
    np.testing.assert_array_equal(ops.diagonal(A, k, 1, 2).numpy(), np.diagonal(A, k, 1, 2))
    np.testing.assert_array_equal(ops.diagonal(A, k, 0, 2).numpy(), np.diagonal(A, k, 0, 2))
    check_gradients(lambda v: ops.diag(v, k), [v])
    check_gradients(lambda x: ops.diag(x, k), [X])
    check_gradients(lambda a: ops.diagonal(a, k, 2, 1), [A])
    assert ops.diag(ops.convert_to_tensor([1, 2])).dtype == "int32"


def test_trace():
    assert float(ops.trace(X)) == pytest.approx(np.trace(X))
    np.testing.assert_allclose(ops.trace(A, 1, 1, 2).numpy(), np.trace(A, 1, 1, 2))
    assert ops.trace(ops.ones((2, 2), "int8")).dtype == "int32"
    check_gradients(lambda a: ops.trace(a, axis1=1, axis2=2), [A])
    check_second_order(lambda x: ops.trace(ops.matmul(x, x)), [X[:, :3]])


def test_inverse_solve_determinants():
    np.testing.assert_allclose(ops.inv(A).numpy(), np.linalg.inv(A), rtol=1e-10)
    b = RNG.standard_normal((2, 3, 2))
    np.testing.assert_allclose(ops.solve(A, b).numpy(), np.linalg.solve(A, b), rtol=1e-10)
    np.testing.assert_allclose(ops.solve(A[0], b[0, :, 0]).numpy(), np.linalg.solve(A[0], b[0, :, 0]))
    np.testing.assert_allclose(ops.det(A).numpy(), np.linalg.det(A), rtol=1e-10)
    sign, logabs = ops.slogdet(A)
    np.testing.assert_allclose(logabs.numpy(), np.linalg.slogdet(A)[1])
    np.testing.assert_allclose(ops.logdet(A).numpy(), np.log(np.linalg.det(A)))
    check_gradients(ops.inv, [A[0]])
    check_gradients(ops.solve, [A[0], b[0]])
    check_gradients(ops.det, [A])
    check_gradients(lambda a: ops.slogdet(a)[1], [A])
    check_second_order(ops.inv, [A[0, :2, :2]])
    with pytest.raises(ValueError, match=r"ops.inv: needs square matrices.*\(3, 4\)"):
        ops.inv(X)
    with pytest.raises(ValueError, match="ops.inv: singular"):
        ops.inv(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="ops.tril: needs a tensor of rank >= 2"):
        ops.tril(X[0])
