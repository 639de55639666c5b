"""The Orthogonal initializer (`keras.initializers.Orthogonal`)."""
import math

from kerasish import ops, random
from kerasish.initializers.random_initializers import RandomInitializer


def _project_out(vectors, basis):
    """`vectors` minus their projection on the orthonormal columns of `basis`, twice."""
    for _ in range(2):
        vectors = ops.subtract(vectors, ops.matmul(basis, ops.matmul(ops.transpose(basis), vectors)))
    return vectors


def _orthonormalize_panel(panel):
    """Gram-Schmidt (with re-orthogonalisation) over the few columns of `panel`.

    Finished columns are accumulated in a zero-padded matrix, so projecting
    on them is one matmul and no column is ever gathered.
    """
    width = panel.shape[1]
    unit = ops.eye(width, dtype=panel.dtype)
    done = ops.zeros(panel.shape, dtype=panel.dtype)
    for j in range(width):
        v = _project_out(panel[:, j], done)
        done = ops.add(done, ops.outer(ops.divide(v, ops.norm(v)), unit[j]))
    return done


def orthonormal_columns(a, block=32):
    """Q of the QR decomposition of a tall matrix, with R's diagonal positive.

    Block classical Gram-Schmidt with re-orthogonalisation ("BCGS2"): each
    panel of `block` columns is projected off the finished ones with two
    matmuls, then orthonormalised column by column. For a full-rank `a` the
    result is the `Q` of `np.linalg.qr(a)` after Keras's sign fix
    `q *= sign(diag(r))`.

    Args:
        a: float Tensor of shape (m, n) with m >= n (float64 advised).
        block: panel width.

    Returns:
        Tensor (m, n) with orthonormal columns.

    Example:
        >>> q = orthonormal_columns(keras.random.normal((6, 4), dtype="float64", seed=1))
    """
    panels = []
    for start in range(0, a.shape[1], block):
        panel = a[:, start:start + block]
        if panels:
            panel = _project_out(panel, ops.concatenate(panels, axis=1))
        panels.append(_orthonormalize_panel(panel))
    return ops.concatenate(panels, axis=1)


class Orthogonal(RandomInitializer):
    """An orthogonal matrix (times `gain`) from the QR decomposition of a normal draw.

    Shapes of rank > 2 are flattened to (prod(shape[:-1]), shape[-1]).
    With fewer rows than columns the rows are orthonormal, otherwise the
    columns are.

    Args:
        gain: multiplicative factor (1.0).
        seed: None, int or SeedGenerator.

    Example:
        >>> w = keras.initializers.Orthogonal(seed=0)((4, 4))
        >>> # w.T @ w == identity
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        dtype = self._float_dtype(dtype)
        if len(shape) < 2:
            raise ValueError(
                "Orthogonal initializer: `shape` must have rank >= 2. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        # Keras draws in `dtype` and factors it there (TF's Householder QR); the
        # factor here is in float64, so values can differ from Keras's by ulps.
        draw = random.normal(flat, dtype=dtype, seed=self.seed)
        q = ops.cast(orthonormal_columns(ops.cast(draw, "float64")), dtype)
        if rows < cols:
            q = ops.transpose(q)
        return ops.multiply(self.gain, ops.reshape(q, shape))

    def get_config(self):
        return {**super().get_config(), "gain": self.gain}


OrthogonalInitializer = Orthogonal
