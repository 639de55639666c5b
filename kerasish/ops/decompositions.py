"""Matrix decompositions and solvers of `keras.ops.linalg`.

cholesky, cholesky_inverse, eig, eigh, lstsq, lu_factor, matrix_rank, pinv,
qr, solve_triangular, svd. Results follow Keras 3.15 on TensorFlow (output
structure, dtypes, defaults); where TensorFlow differentiates an op, the
gradient here is TensorFlow's formula written with ops (second order works).

Sign/phase conventions: `qr` matches TensorFlow (both use Householder QR).
The singular vectors of `svd`, the eigenvectors of `eigh`/`eig` and the order
of `eig`'s eigenvalues are only defined up to sign/phase (and order); they may
differ from TensorFlow's, while every sign-invariant quantity (values,
reconstructions, projectors) is the same.
"""
import numpy as np

from kerasish.autodiff.op import Op
from kerasish.backend.devices import to_host
from kerasish.ops import core, creation, elementwise as ew, linalg, matrix
from kerasish.ops import manipulation as shape_ops
from kerasish.ops.core import float_operand
from kerasish.ops.symbolic import keras_op


def _mT(x):
    return shape_ops.swapaxes(x, -1, -2)


def _mm(a, b):
    return linalg.matmul(a, b)


def _square(name, x):
    x = float_operand(x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"ops.{name}: expects square matrices of shape (..., n, n); "
                         f"got {core.describe(x)}.")
    return x


def _matrices(name, x):
    x = float_operand(x)
    if x.ndim < 2:
        raise ValueError(f"ops.{name}: expects matrices of shape (..., m, n); "
                         f"got {core.describe(x)}.")
    return x


def _eye_like(x, n):
    return creation.eye(n, dtype=x.dtype)


def _set_diag_half(x):
    """x with its diagonal halved (TensorFlow's `matrix_set_diag(x, 0.5 * diag)`)."""
    n = x.shape[-1]
    return ew.subtract(x, ew.multiply(ew.multiply(x, _eye_like(x, n)), 0.5))


def _any_nonzero(g):
    return g is not None and bool(core.convert_to_numpy(g).any())


# ----------------------------------------------------------------------------- cholesky

@keras_op
def cholesky(x, upper=False):
    """Cholesky factor of symmetric positive-definite matrices.

    Only the lower triangle of `x` is read. The gradient is TensorFlow's
    (symmetric in the input).

    Args:
        x: tensor (..., n, n), symmetric positive definite.
        upper: return the upper factor `U` (`x = U^T U`) instead of the
            lower `L` (`x = L L^T`).

    Returns:
        Tensor (..., n, n), triangular.

    Example:
        >>> ops.cholesky(ops.eye(2) * 4.0)   # [[2, 0], [0, 2]]
    """
    x = _square("cholesky", x)
    try:
        lower = _CHOLESKY(x)
    except np.linalg.LinAlgError as err:
        raise ValueError(f"ops.cholesky: the input is not positive definite "
                         f"({core.describe(x)}): {err}.") from None
    return _mT(lower) if upper else lower


class Cholesky(Op):
    """Lower Cholesky factor; gradient `sym(L^-T Phi(L^T g) L^-1)` (TensorFlow's)."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "cholesky"

    def forward(self, device, x):
        xp = device.xp
        out = xp.linalg.cholesky(x)
        if not bool(xp.all(xp.isfinite(out))):
            raise np.linalg.LinAlgError("Matrix is not positive definite")
        return out

    def save(self, inputs, outputs):
        return (outputs[0],)

    def backward(self, saved, needs, g):
        (lower,) = saved
        middle = matrix.tril(_set_diag_half(_mm(_mT(lower), g)))
        left = solve_triangular(_mT(lower), middle, lower=False)          # L^-T middle
        grad = _mT(solve_triangular(_mT(lower), _mT(left), lower=False))  # ... L^-1
        return (ew.multiply(ew.add(grad, _mT(grad)), 0.5),)


_CHOLESKY = Cholesky()


@keras_op
def cholesky_inverse(x, upper=False):
    """Inverse of a matrix from its Cholesky factor.

    Args:
        x: the factor (..., n, n): lower `L` (`A = L L^T`), or upper `U`
            (`A = U^T U`) when `upper=True`.
        upper: whether `x` is the upper factor.

    Returns:
        Tensor (..., n, n): `inv(A)`.

    Example:
        >>> ops.cholesky_inverse(ops.eye(2) * 2.0)   # [[0.25, 0], [0, 0.25]]
    """
    x = _square("cholesky_inverse", x)
    a = _mm(_mT(x), x) if upper else _mm(x, _mT(x))
    return matrix.inv(a)


# ----------------------------------------------------------------------------- triangular

@keras_op
def solve_triangular(a, b, lower=False):
    """Solves `a @ x = b` for triangular `a` (only its `lower`/upper triangle is read).

    Args:
        a: tensor (..., n, n).
        b: tensor (..., n, k) or (..., n).
        lower: whether `a` is lower (True) or upper (False) triangular.

    Returns:
        Tensor shaped like `b`.

    Example:
        >>> ops.solve_triangular(ops.eye(2) * 2.0, ops.ones((2,)))   # [0.5, 0.5]
    """
    a = _square("solve_triangular", a)
    b = float_operand(b)
    vector = b.ndim == a.ndim - 1
    b2 = shape_ops.expand_dims(b, -1) if vector else b
    if b2.ndim < 2 or b2.shape[-2] != a.shape[-1]:
        raise ValueError(f"ops.solve_triangular: a and b do not fit; a must be (..., n, n) "
                         f"and b (..., n, k) or (..., n), got {core.describe(a, b)}.")
    if a.dtype != b2.dtype:
        dtype = np.result_type(a.dtype, b2.dtype)
        a, b2 = core.cast(a, dtype), core.cast(b2, dtype)
    out = SolveTriangular(bool(lower))(a, b2)
    return shape_ops.squeeze(out, -1) if vector else out


class SolveTriangular(Op):
    """Triangular solve; gradients `gb = solve_tri(a^T, g)`, `ga = -tri(gb x^T)`."""

    name = "solve_triangular"

    def __init__(self, lower):
        self.lower = lower

    def forward(self, device, a, b):
        xp = device.xp
        tri = xp.tril(a) if self.lower else xp.triu(a)
        return xp.linalg.solve(tri, b)

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        a, out = saved
        gb = solve_triangular(_mT(a), g, lower=not self.lower)
        ga = None
        if needs[0]:
            full = ew.negative(_mm(gb, _mT(out)))
            ga = matrix.tril(full) if self.lower else matrix.triu(full)
        return ga, gb

    def compute_output_spec(self, a, b):
        return b


# ----------------------------------------------------------------------------- eigen

@keras_op
def eigh(x):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices.

    Only the lower triangle is read; both outputs are differentiable
    (TensorFlow's gradient: lower-triangular, assumes distinct eigenvalues).

    Args:
        x: tensor (..., n, n).

    Returns:
        tuple (eigenvalues (..., n), eigenvectors (..., n, n) as columns).

    Example:
        >>> w, v = ops.eigh(ops.convert_to_tensor([[2.0, 0.0], [0.0, 1.0]]))   # w = [1, 2]
    """
    return _EIGH(_square("eigh", x))


class Eigh(Op):
    """Symmetric eigendecomposition with TensorFlow's gradient."""

    name = "eigh"

    def forward(self, device, x):
        w, v = device.xp.linalg.eigh(x)
        return w, v

    def save(self, inputs, outputs):
        return outputs

    def backward(self, saved, needs, grads):
        w, v = saved
        gw, gv = grads
        n = w.shape[-1]
        eye = _eye_like(w, n)
        gap = ew.subtract(shape_ops.expand_dims(w, -2), shape_ops.expand_dims(w, -1))
        safe_gap = ew.where(ew.equal(eye, 1), creation.ones_like(gap), gap)
        f = ew.where(ew.equal(eye, 1), creation.zeros_like(gap), ew.divide(1.0, safe_gap))
        inner = ew.add(ew.multiply(shape_ops.expand_dims(gw, -2), eye),
                       ew.multiply(f, _mm(_mT(v), gv)))
        grad = _mm(v, _mm(inner, _mT(v)))
        return (_set_diag_half(matrix.tril(ew.add(grad, _mT(grad)))),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        return [(shape[:-1], dtype), (shape, dtype)]


_EIGH = Eigh()


@keras_op
def eig(x):
    """Eigenvalues and eigenvectors of general square matrices (complex results).

    Not differentiable. float32 input gives complex64, float64 complex128 (as
    Keras on TensorFlow). The order of the eigenvalues and the phase of the
    eigenvectors may differ from TensorFlow's.

    Args:
        x: tensor (..., n, n).

    Returns:
        tuple (eigenvalues (..., n), eigenvectors (..., n, n) as columns).

    Example:
        >>> w, v = ops.eig(ops.eye(2))   # w = [1+0j, 1+0j]
    """
    return _EIG(_square("eig", x))


class Eig(Op):
    """General eigendecomposition (no gradient)."""

    name = "eig"
    differentiable = False

    def forward(self, device, x):
        complex_dtype = np.complex64 if x.dtype.itemsize <= 4 else np.complex128
        if hasattr(device.xp.linalg, "eig"):
            w, v = device.xp.linalg.eig(x)
        else:   # array libraries without a general eigensolver: LAPACK on the host
            w, v = (device.send(t) for t in np.linalg.eig(to_host(x)))
        return w.astype(complex_dtype), v.astype(complex_dtype)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        cdtype = "complex128" if str(dtype) == "float64" else "complex64"
        return [(shape[:-1], cdtype), (shape, cdtype)]


_EIG = Eig()


# ----------------------------------------------------------------------------- svd

@keras_op
def svd(x, full_matrices=True, compute_uv=True):
    """Singular value decomposition `x = u @ diag(s) @ vh`.

    Differentiable (TensorFlow's/Townsend's formula; the vectors' gradient
    assumes distinct, nonzero singular values). With `full_matrices=True`
    and m != n, a gradient through the extra columns of u/vh raises
    `NotImplementedError` (they are not unique).

    Args:
        x: tensor (..., m, n).
        full_matrices: u (..., m, m) and vh (..., n, n) when True, else
            (..., m, k) and (..., k, n), k = min(m, n).
        compute_uv: when False only `s` is returned.

    Returns:
        tuple (u, s, vh), or `s` (..., k) alone when `compute_uv=False`.

    Example:
        >>> ops.svd(ops.eye(2) * 3.0, compute_uv=False)   # [3, 3]
    """
    x = _matrices("svd", x)
    u, s, vh = Svd(bool(full_matrices) and bool(compute_uv))(x)
    return (u, s, vh) if compute_uv else s


class Svd(Op):
    """SVD; gradient `u diag(g_s) vh` plus the singular vectors' terms."""

    name = "svd"

    def __init__(self, full_matrices):
        self.full_matrices = full_matrices

    def forward(self, device, x):
        u, s, vh = device.xp.linalg.svd(x, full_matrices=self.full_matrices)
        return u, s, vh

    def save(self, inputs, outputs):
        return outputs

    def backward(self, saved, needs, grads):
        u, s, vh = saved
        gu, gs, gvh = grads
        k = s.shape[-1]
        u_k, vh_k = u[..., :, :k], vh[..., :k, :]
        grad = _mm(ew.multiply(u_k, shape_ops.expand_dims(gs, -2)), vh_k)
        if not (_any_nonzero(gu) or _any_nonzero(gvh)):
            return (grad,)
        if _any_nonzero(gu[..., :, k:]) or _any_nonzero(gvh[..., k:, :]):
            raise NotImplementedError(
                "ops.svd: the gradient through the extra columns of u/vh of "
                "full_matrices=True (m != n) is not defined; use full_matrices=False.")
        return (ew.add(grad, _svd_vector_grad(u_k, s, _mT(vh_k), gu[..., :, :k],
                                              _mT(gvh[..., :k, :]))),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        m, n = shape[-2], shape[-1]
        k = None if m is None or n is None else min(m, n)
        batch = tuple(shape[:-2])
        if self.full_matrices:
            return [(batch + (m, m), dtype), (batch + (k,), dtype), (batch + (n, n), dtype)]
        return [(batch + (m, k), dtype), (batch + (k,), dtype), (batch + (k, n), dtype)]


def _svd_vector_grad(u, s, v, gu, gv):
    """Townsend's adjoint of the singular vectors (distinct, nonzero singular values)."""
    k = s.shape[-1]
    eye = _eye_like(s, k)
    sq = ew.multiply(s, s)
    gap = ew.subtract(shape_ops.expand_dims(sq, -2), shape_ops.expand_dims(sq, -1))
    is_diag = ew.equal(eye, 1)
    f = ew.where(is_diag, creation.zeros_like(gap),
                 ew.divide(1.0, ew.where(is_diag, creation.ones_like(gap), gap)))
    utgu, vtgv = _mm(_mT(u), gu), _mm(_mT(v), gv)
    s_row = shape_ops.expand_dims(s, -2)                 # multiplies columns: X S
    s_col = shape_ops.expand_dims(s, -1)                 # multiplies rows: S X
    inner = ew.add(ew.multiply(ew.multiply(f, ew.subtract(utgu, _mT(utgu))), s_row),
                   ew.multiply(s_col, ew.multiply(f, ew.subtract(vtgv, _mT(vtgv)))))
    grad = _mm(u, _mm(inner, _mT(v)))
    m, n = u.shape[-2], v.shape[-2]
    if m > k:     # (I - U U^T) gU S^-1 V^T
        resid = ew.subtract(gu, _mm(u, utgu))
        grad = ew.add(grad, _mm(ew.divide(resid, s_row), _mT(v)))
    if n > k:     # U S^-1 gV^T (I - V V^T)
        resid = ew.subtract(gv, _mm(v, vtgv))
        grad = ew.add(grad, _mm(ew.divide(u, s_row), _mT(resid)))
    return grad


def _default_rcond(x):
    return 10.0 * max(x.shape[-2:]) * float(np.finfo(x.dtype).eps)


@keras_op
def pinv(x, rcond=None):
    """Moore-Penrose pseudo-inverse via the SVD (TensorFlow's cutoff).

    Singular values at or below `rcond * max(s)` are treated as zero. The
    gradient is the pseudo-inverse's derivative for matrices of constant rank.

    Args:
        x: tensor (..., m, n).
        rcond: relative cutoff; None means `10 * max(m, n) * eps` (TensorFlow's).

    Returns:
        Tensor (..., n, m).

    Example:
        >>> ops.pinv(ops.eye(2) * 2.0)   # [[0.5, 0], [0, 0.5]]
    """
    x = _matrices("pinv", x)
    rcond = _default_rcond(x) if rcond is None else float(rcond)
    return Pinv(rcond)(x)


class Pinv(Op):
    """Pseudo-inverse; gradient `-P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)`."""

    name = "pinv"

    def __init__(self, rcond):
        self.rcond = rcond

    def forward(self, device, x):
        xp = device.xp
        u, s, vh = xp.linalg.svd(x, full_matrices=False)
        cutoff = self.rcond * xp.max(s, axis=-1, keepdims=True)
        inv_s = xp.where(s > cutoff, 1.0 / xp.where(s > cutoff, s, 1.0), 0.0).astype(x.dtype)
        return xp.matmul(xp.swapaxes(vh, -1, -2) * inv_s[..., None, :], xp.swapaxes(u, -1, -2))

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        a, p = saved
        m, n = a.shape[-2], a.shape[-1]
        g_t, p_t = _mT(g), _mT(p)
        left = ew.subtract(_eye_like(a, m), _mm(a, p))     # I - A P
        right = ew.subtract(_eye_like(a, n), _mm(p, a))    # I - P A
        term1 = ew.negative(_mm(p_t, _mm(g, p_t)))
        term2 = _mm(left, _mm(g_t, _mm(p, p_t)))
        term3 = _mm(_mm(p_t, p), _mm(g_t, right))
        return (ew.add(ew.add(term1, term2), term3),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        return (tuple(shape[:-2]) + (shape[-1], shape[-2]), dtype)


@keras_op
def matrix_rank(x, tol=None):
    """Number of singular values above `tol` (int32; not differentiable).

    Args:
        x: tensor (..., m, n).
        tol: absolute threshold; None means `max(s) * max(m, n) * eps`.

    Returns:
        int32 Tensor (...).

    Example:
        >>> ops.matrix_rank(ops.eye(3))   # 3
    """
    return MatrixRank(tol)(_matrices("matrix_rank", x))


class MatrixRank(Op):
    """Rank from the singular values (no gradient)."""

    name = "matrix_rank"
    differentiable = False

    def __init__(self, tol):
        self.tol = tol

    def forward(self, device, x):
        xp = device.xp
        s = xp.linalg.svd(x, compute_uv=False)
        if self.tol is None:
            tol = xp.max(s, axis=-1, keepdims=True) * max(x.shape[-2:]) * np.finfo(x.dtype).eps
        else:
            tol = self.tol
        return xp.sum(s > tol, axis=-1).astype(np.int32)

    def compute_output_spec(self, spec):
        return (tuple(spec[0][:-2]), "int32")


# ----------------------------------------------------------------------------- qr

@keras_op
def qr(x, mode="reduced"):
    """QR decomposition `x = q @ r` (Householder; same signs as TensorFlow).

    Differentiable (TensorFlow's formula) for `m >= n` with mode "reduced",
    or square inputs.

    Args:
        x: tensor (..., m, n).
        mode: "reduced" (q (..., m, k), r (..., k, n), k = min(m, n)) or
            "complete" (q (..., m, m), r (..., m, n)).

    Returns:
        tuple (q, r).

    Example:
        >>> q, r = ops.qr(ops.eye(2) * 2.0)
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"ops.qr: `mode` must be 'reduced' or 'complete'; got mode={mode!r}.")
    return Qr(mode)(_matrices("qr", x))


class Qr(Op):
    """QR with TensorFlow's gradient for square and tall (reduced) inputs."""

    name = "qr"

    def __init__(self, mode):
        self.mode = mode

    def forward(self, device, x):
        q, r = device.xp.linalg.qr(x, mode=self.mode)
        return q, r

    def save(self, inputs, outputs):
        return outputs

    def backward(self, saved, needs, grads):
        q, r = saved
        gq, gr = grads
        m, n = q.shape[-2], r.shape[-1]
        if q.shape[-1] != n or m < n:
            raise NotImplementedError(
                f"ops.qr: the gradient is implemented for square inputs and tall inputs "
                f"(m >= n) with mode='reduced'; got q {q.shape}, r {r.shape}.")
        qdq = _mm(_mT(q), gq)
        rdr = _mm(r, _mT(gr))
        low = matrix.tril(ew.add(ew.subtract(qdq, _mT(qdq)), ew.subtract(rdr, _mT(rdr))))

        def times_r_inv_t(y):   # y @ r^-T
            return _mT(solve_triangular(r, _mT(y), lower=False))

        grad_a = _mm(q, ew.add(gr, times_r_inv_t(low)))
        grad_b = times_r_inv_t(ew.subtract(gq, _mm(q, qdq)))
        return (ew.add(grad_a, grad_b),)

    def compute_output_spec(self, spec):
        shape, dtype = spec
        m, n = shape[-2], shape[-1]
        batch = tuple(shape[:-2])
        if self.mode == "complete":
            return [(batch + (m, m), dtype), (batch + (m, n), dtype)]
        k = None if m is None or n is None else min(m, n)
        return [(batch + (m, k), dtype), (batch + (k, n), dtype)]


# ----------------------------------------------------------------------------- lstsq

@keras_op
def lstsq(a, b, rcond=None):
    """Least-squares solution of `a @ x = b` (numpy's `lstsq`, `rcond` as numpy's).

    Differentiable for full-column-rank `a` with m >= n (the gradient of the
    normal equations, written with `solve`).

    Args:
        a: tensor (m, n).
        b: tensor (m,) or (m, k).
        rcond: cutoff ratio for small singular values; None means
            `eps * max(m, n)`.

    Returns:
        Tensor (n,) or (n, k).

    Example:
        >>> ops.lstsq(ops.eye(2), ops.ones((2,)))   # [1, 1]
    """
    a = float_operand(a)
    b = float_operand(b)
    if a.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ValueError(f"ops.lstsq: expects a (m, n) and b (m,) or (m, k); "
                         f"got {core.describe(a, b)}.")
    if a.dtype != b.dtype:
        dtype = np.result_type(a.dtype, b.dtype)
        a, b = core.cast(a, dtype), core.cast(b, dtype)
    vector = b.ndim == 1
    b2 = shape_ops.expand_dims(b, -1) if vector else b
    out = Lstsq(rcond)(a, b2)
    return shape_ops.squeeze(out, -1) if vector else out


class Lstsq(Op):
    """Least squares; gradient `z = solve(a^T a, g)`, `gb = a z`, `ga = r z^T - a z x^T`."""

    name = "lstsq"

    def __init__(self, rcond):
        self.rcond = rcond

    def forward(self, device, a, b):
        rcond = self.rcond
        if rcond is None:
            rcond = float(np.finfo(a.dtype).eps) * max(a.shape)
        x = device.xp.linalg.lstsq(a, b, rcond=rcond)[0]
        return x.astype(a.dtype)

    def save(self, inputs, outputs):
        return inputs[0], inputs[1], outputs[0]

    def backward(self, saved, needs, g):
        a, b, x = saved
        if a.shape[0] < a.shape[1]:
            raise NotImplementedError(f"ops.lstsq: the gradient is implemented for m >= n "
                                      f"(full column rank); got a of shape {a.shape}.")
        z = matrix.solve(_mm(_mT(a), a), g)
        az = _mm(a, z)
        ga = None
        if needs[0]:
            residual = ew.subtract(b, _mm(a, x))
            ga = ew.subtract(_mm(residual, _mT(z)), _mm(az, _mT(x)))
        return ga, az

    def compute_output_spec(self, a, b):
        return ((a[0][1], b[0][1]), a[1])


# ----------------------------------------------------------------------------- lu

@keras_op
def lu_factor(x):
    """LU factorisation with partial pivoting, as Keras on TensorFlow returns it.

    Args:
        x: tensor (n, n) (TensorFlow's Keras supports one matrix, not batches).

    Returns:
        tuple (lu (n, n): L below the diagonal (unit diagonal implied) and U
        on and above it, pivots (n,) int32: the inverse of the row
        permutation `perm` with `x[perm] = L @ U`). Not differentiable.

    Example:
        >>> lu, pivots = ops.lu_factor(ops.eye(2))   # pivots [0, 1]
    """
    x = _square("lu_factor", x)
    if x.ndim != 2:
        raise ValueError(f"ops.lu_factor: expects one square matrix (n, n), as Keras on "
                         f"TensorFlow; got {core.describe(x)}.")
    return _LU_FACTOR(x)


class LuFactor(Op):
    """Doolittle LU with partial pivoting (largest |pivot|, first on ties)."""

    name = "lu_factor"
    differentiable = False

    def forward(self, device, x):
        xp = device.xp
        lu = x.copy()
        n = lu.shape[0]
        perm = np.arange(n)
        for k in range(n):
            pivot = k + int(xp.argmax(xp.abs(lu[k:, k])))
            if pivot != k:
                lu[[k, pivot]] = lu[[pivot, k]]
                perm[[k, pivot]] = perm[[pivot, k]]
            if lu[k, k] != 0:
                lu[k + 1:, k] /= lu[k, k]
            lu[k + 1:, k + 1:] -= xp.outer(lu[k + 1:, k], lu[k, k + 1:])
        return lu, xp.asarray(np.argsort(perm).astype(np.int32))

    def compute_output_spec(self, spec):
        shape, dtype = spec
        return [(shape, dtype), (shape[-1:], "int32")]


_LU_FACTOR = LuFactor()
