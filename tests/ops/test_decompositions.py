"""Decompositions, segment_prod and adaptive pooling against Keras 3.15.1 (TensorFlow).

Expected values come from tests/fixtures/ops/make_decompositions.py (run with
the Keras oracle). Singular vectors and eigenvectors are compared through
sign-invariant quantities, since their signs are a convention.
"""
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops",
                           "decompositions.npz"))
RNG = np.random.default_rng(3)


def _close(got, name, atol=1e-4):
    got = np.asarray(got)
    expected = FIX[name]
    assert got.shape == expected.shape and got.dtype == expected.dtype, name
    np.testing.assert_allclose(got, expected, atol=atol, rtol=1e-4)


def _spd(n=3, batch=()):
    m = RNG.normal(size=batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _sym(a):
    return (a + ops.swapaxes(a, -1, -2)) * 0.5


# ----------------------------------------------------------------------------- values

@pytest.mark.parametrize("name, compute", [
    ("cholesky", lambda f: ops.cholesky(f["batch_spd"])),
    ("cholesky_upper", lambda f: ops.cholesky(f["spd"], upper=True)),
    ("cholesky_inverse", lambda f: ops.cholesky_inverse(np.linalg.cholesky(f["spd"]))),
    ("cholesky_inverse_upper",
     lambda f: ops.cholesky_inverse(np.linalg.cholesky(f["spd"]).T, upper=True)),
    ("solve_triangular_lower", lambda f: ops.solve_triangular(f["spd"], f["rhs"], lower=True)),
    ("solve_triangular_upper_vec", lambda f: ops.solve_triangular(f["spd"], f["rhs"][:, 0])),
    ("eigh_w", lambda f: ops.eigh(f["spd"])[0]),
    ("svd_s", lambda f: ops.svd(f["tall"], compute_uv=False)),
    ("svd_s_wide", lambda f: ops.svd(f["wide"], compute_uv=False)),
    ("pinv_tall", lambda f: ops.pinv(f["tall"])),
    ("pinv_rank2", lambda f: ops.pinv(f["rank2"])),
    ("lstsq", lambda f: ops.lstsq(f["tall"], f["rhs_tall"])),
    ("lstsq_vec", lambda f: ops.lstsq(f["tall"], f["rhs_tall"][:, 0])),
    ("lstsq_wide", lambda f: ops.lstsq(f["wide"], f["rhs_tall"][:3])),
    ("matrix_rank_rank2", lambda f: ops.matrix_rank(f["rank2"])),
    ("matrix_rank_tol", lambda f: ops.matrix_rank(f["spd"], tol=5.0)),
    ("qr_q", lambda f: ops.qr(f["tall"])[0]),
    ("qr_r", lambda f: ops.qr(f["tall"])[1]),
    ("qr_q_complete", lambda f: ops.qr(f["tall"], mode="complete")[0]),
    ("qr_r_complete", lambda f: ops.qr(f["tall"], mode="complete")[1]),
    ("lu", lambda f: ops.lu_factor(f["square"])[0]),
    ("lu_pivots", lambda f: ops.lu_factor(f["square"])[1]),
    ("lu_big", lambda f: ops.lu_factor(f["lu_big_in"])[0]),
    ("lu_big_pivots", lambda f: ops.lu_factor(f["lu_big_in"])[1]),
    ("segment_prod", lambda f: ops.segment_prod(f["seg_data"], f["seg_ids"], num_segments=4)),
    ("adaptive_average_pool", lambda f: ops.adaptive_average_pool(f["pool_in"], (3, 2))),
    ("adaptive_max_pool", lambda f: ops.nn.adaptive_max_pool(f["pool_in"], (4, 3))),
    ("adaptive_max_pool_1d_cf",
     lambda f: ops.adaptive_max_pool(f["pool_in_1d"], 4, data_format="channels_first")),
    ("adaptive_average_pool_1d_cf",
     lambda f: ops.nn.adaptive_average_pool(f["pool_in_1d"], 3, data_format="channels_first")),
])
def test_matches_keras(name, compute):
    _close(compute(FIX), name)


def test_eig_eigenvalues_match_keras_up_to_order():
    w, v = ops.eig(FIX["square"])
    assert w.dtype == "complex64" and v.dtype == "complex64"
    np.testing.assert_allclose(np.sort_complex(np.asarray(w)), np.sort_complex(FIX["eig_w"]),
                               atol=1e-4)
    a = FIX["square"].astype("complex64")
    np.testing.assert_allclose(a @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-4)


def test_svd_vectors_match_keras_up_to_sign():
    u, s, vh = (np.asarray(t) for t in ops.svd(FIX["tall"]))
    assert u.shape == (5, 5) and s.shape == (3,) and vh.shape == (3, 3)
    np.testing.assert_allclose(np.abs(u[:, :3]), np.abs(FIX["svd_u_full"][:, :3]), atol=1e-4)
    np.testing.assert_allclose(np.abs(vh), np.abs(FIX["svd_vh_full"]), atol=1e-4)
    np.testing.assert_allclose((u[:, :3] * s) @ vh, FIX["tall"], atol=1e-5)
    u2, s2, vh2 = ops.svd(FIX["tall"], full_matrices=False)
    assert u2.shape == (5, 3) and vh2.shape == (3, 3)


def test_eigh_vectors_reconstruct():
    w, v = (np.asarray(t) for t in ops.eigh(FIX["spd"]))
    np.testing.assert_allclose((v * w) @ v.T, FIX["spd"], atol=1e-4)


def test_segment_prod_empty_segment_and_int_dtype():
    out = ops.segment_prod(np.array([2, 3, 4], "int32"), [0, 0, 2])
    assert out.dtype == "int32"
    assert np.asarray(out).tolist() == [6, 1, 4]


def test_adaptive_layers_use_the_op():
    x = FIX["pool_in"]
    layer = keras.layers.AdaptiveMaxPooling2D((4, 3))
    np.testing.assert_allclose(np.asarray(layer(x)), FIX["adaptive_max_pool"], atol=1e-6)


# ----------------------------------------------------------------------------- gradients vs TF

def _tf_grad(fn, x):
    x = ops.convert_to_tensor(x.astype("float64"))
    with keras.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return np.asarray(tape.gradient(y, x))


def _svd_vectors_objective(a):
    u, s, vh = ops.svd(a, full_matrices=False)
    w = FIX["grad_weights"]
    value = ops.sum(ops.matmul(u * ops.sqrt(s), vh) * float(w[:4, :3].sum()))
    return value + ops.sum(u[:, :1] * ops.sum(vh[:1, :2]) * float(w[0, 0]))


def _eigh_vectors_objective(a):
    w, v = ops.eigh(a)
    return ops.sum(v[:, :2] * v[:1, :2] * FIX["grad_weights"][1, :2])


def _qr_objective(a):
    q, r = ops.qr(a)
    return ops.sum(q * q[:, :1] * 0.3) + ops.sum(r * r[:1] * 0.7)


@pytest.mark.parametrize("name, source, fn", [
    ("grad_cholesky", "spd", lambda a: ops.sum(ops.cholesky(a) * FIX["grad_weights"])),
    ("grad_eigh_w", "spd", lambda a: ops.sum(ops.eigh(a)[0] * FIX["grad_weights"][0])),
    ("grad_svd_s", "tall",
     lambda a: ops.sum(ops.svd(a, compute_uv=False) * FIX["grad_weights"][0, :3])),
    ("grad_qr", "tall", _qr_objective),
    ("grad_svd_vectors", "tall", _svd_vectors_objective),
    ("grad_eigh_vectors", "spd", _eigh_vectors_objective),
])
def test_gradients_match_tensorflow(name, source, fn):
    np.testing.assert_allclose(_tf_grad(fn, FIX[source]), FIX[name], atol=1e-6)


# ----------------------------------------------------------------------------- finite differences

def _svd_sign_free(a, full_matrices):
    """Quantities of (u, s, vh) that do not depend on the singular vectors' signs."""
    u, s, vh = ops.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    u, vh = u[..., :, :k], vh[..., :k, :]
    weighted = ops.matmul(u * ops.sqrt(s)[..., None, :], vh)
    first = u[..., :, :1] * ops.sum(vh[..., :1, :2], axis=(-1, -2))[..., None, None]
    return ops.concatenate([ops.reshape(weighted, (-1,)), ops.reshape(first, (-1,))])


GRADIENT_CASES = {
    "cholesky": (lambda a: ops.cholesky(_sym(a)), [_spd(3, (2,))]),
    "cholesky_upper": (lambda a: ops.cholesky(_sym(a), upper=True), [_spd(3)]),
    "cholesky_inverse": (lambda l: ops.cholesky_inverse(ops.tril(l)),
                         [np.linalg.cholesky(_spd(3))]),
    "solve_triangular": (lambda a, b: ops.solve_triangular(a, b, lower=True),
                         [_spd(3), RNG.normal(size=(3, 2))]),
    "solve_triangular_upper_vec": (lambda a, b: ops.solve_triangular(a, b),
                                   [_spd(3), RNG.normal(size=(3,))]),
    "eigh_values": (lambda a: ops.eigh(a)[0], [_spd(3)]),
    "eigh_vectors": (lambda a: ops.abs(ops.eigh(_sym(a))[1]), [_spd(3)]),
    "svd_values": (lambda a: ops.svd(a, compute_uv=False), [RNG.normal(size=(2, 4, 3))]),
    "svd_vectors": (lambda a: _svd_sign_free(a, False), [RNG.normal(size=(2, 4, 3))]),
    "svd_vectors_wide_full": (lambda a: _svd_sign_free(a, True), [RNG.normal(size=(3, 5))]),
    "pinv": (lambda a: ops.pinv(a), [RNG.normal(size=(4, 3))]),
    "pinv_wide": (lambda a: ops.pinv(a), [RNG.normal(size=(2, 4))]),
    "lstsq": (lambda a, b: ops.lstsq(a, b), [RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2))]),
    "lstsq_vec": (lambda a, b: ops.lstsq(a, b), [RNG.normal(size=(4, 2)), RNG.normal(size=(4,))]),
    "qr_square": (lambda a: ops.qr(a), [RNG.normal(size=(3, 3))]),
    "qr_tall": (lambda a: ops.qr(a), [RNG.normal(size=(2, 5, 3))]),
    "segment_prod": (lambda d: ops.segment_prod(d, [0, 1, 0, 0, -1], num_segments=3),
                     [np.array([[1.5, 0.0], [2.0, 3.0], [0.0, 0.0], [-1.0, 2.0], [4.0, 5.0]])]),
    "adaptive_average_pool": (lambda x: ops.adaptive_average_pool(x, (2, 3)),
                              [RNG.normal(size=(1, 5, 7, 2))]),
    "adaptive_max_pool": (lambda x: ops.adaptive_max_pool(x, 3), [RNG.normal(size=(2, 7, 2))]),
}


def _qr_sum(fn):
    def both(*args):
        out = fn(*args)
        if isinstance(out, tuple):
            return ops.concatenate([ops.reshape(t, (-1,)) for t in out])
        return out
    return both


@pytest.mark.parametrize("case", sorted(GRADIENT_CASES))
def test_gradients_match_finite_differences(case):
    fn, inputs = GRADIENT_CASES[case]
    check_gradients(_qr_sum(fn), inputs, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("case", ["cholesky", "solve_triangular", "eigh_values", "eigh_vectors",
                                  "svd_values", "svd_vectors", "pinv",
                                  "lstsq", "qr_tall", "segment_prod", "adaptive_average_pool"])
def test_second_order(case):
    fn, inputs = GRADIENT_CASES[case]
    check_second_order(_qr_sum(fn), inputs, atol=1e-4, rtol=1e-3)


def test_svd_gradient_through_extra_columns_is_not_implemented():
    x = ops.convert_to_tensor(RNG.normal(size=(4, 2)))
    with keras.GradientTape() as tape:
        tape.watch(x)
        u, s, vh = ops.svd(x)                            # u is (4, 4): columns 2, 3 not unique
        y = ops.sum(u[:, 3])
    with pytest.raises(NotImplementedError, match="ops.svd.*full_matrices"):
        tape.gradient(y, x)


def test_non_differentiable_ops_record_nothing():
    x = ops.convert_to_tensor(_spd(3))
    with keras.GradientTape() as tape:
        tape.watch(x)
        rank = ops.matrix_rank(x)
        lu, pivots = ops.lu_factor(x)
    assert tape.gradient(ops.sum(lu), x) is None
    assert rank.dtype == "int32" and pivots.dtype == "int32"


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("fn, match", [
    (lambda: ops.cholesky(np.ones((2, 3))), r"ops\.cholesky.*square.*\(2, 3\)"),
    (lambda: ops.cholesky(-np.eye(2)), r"ops\.cholesky.*positive definite"),
    (lambda: ops.eigh(np.ones((3,))), r"ops\.eigh.*square"),
    (lambda: ops.eig(np.ones((2, 3))), r"ops\.eig.*square"),
    (lambda: ops.cholesky_inverse(np.ones((2, 3))), r"ops\.cholesky_inverse.*square"),
    (lambda: ops.solve_triangular(np.eye(3), np.ones((2, 1))), r"ops\.solve_triangular.*fit"),
    (lambda: ops.lstsq(np.ones((3, 2)), np.ones((4,))), r"ops\.lstsq.*\(3, 2\)"),
    (lambda: ops.lu_factor(np.ones((2, 3, 3))), r"ops\.lu_factor.*one square matrix"),
    (lambda: ops.qr(np.ones((3, 3)), mode="r"), r"ops\.qr.*mode"),
    (lambda: ops.svd(np.ones((3,))), r"ops\.svd.*\(\.\.\., m, n\)"),
    (lambda: ops.pinv(np.ones((3,))), r"ops\.pinv"),
    (lambda: ops.matrix_rank(np.ones((3,))), r"ops\.matrix_rank"),
    (lambda: ops.segment_prod(np.ones((3,)), [0, 1]), r"ops\.segment_prod"),
    (lambda: ops.adaptive_max_pool(np.ones((2, 3)), 2), r"ops\.adaptive_max_pool.*3-D"),
    (lambda: ops.adaptive_average_pool(np.ones((1, 4, 4, 1)), (2, 2, 2)),
     r"ops\.adaptive_average_pool.*output_size"),
])
def test_bad_input_raises_clear_error(fn, match):
    with pytest.raises(ValueError, match=match):
        fn()


@pytest.mark.parametrize("fn, shape", [
    (lambda a: ops.qr(a)[1], (2, 4)),
    (lambda a: ops.qr(a, mode="complete")[0], (4, 2)),
    (lambda a: ops.lstsq(a, ops.ones((2,), dtype="float64")), (2, 4)),
])
def test_gradients_outside_the_supported_shapes_raise(fn, shape):
    x = ops.convert_to_tensor(RNG.normal(size=shape))
    with keras.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(fn(x))
    with pytest.raises(NotImplementedError, match=r"ops\.(qr|lstsq)"):
        tape.gradient(y, x)
