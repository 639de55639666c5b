"""ops.jvp against Keras 3.15.1 (TensorFlow's forward accumulator; fixtures/ops/jvp.npz,
written by make_jvp.py) and against central differences in float64."""
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops", "jvp.npz"))
X, T, W, TW = F["x"], F["t"], F["w"], F["tw"]


def _close(key, value, tol=1e-5):
    value = np.asarray(value)
    assert value.shape == F[key].shape and value.dtype == F[key].dtype, key
    np.testing.assert_allclose(value, F[key], rtol=tol, atol=tol, err_msg=key)


def test_jvp_matches_keras():
    primal, tangent = ops.jvp(ops.sin, (ops.convert_to_tensor(0.1),),
                              (ops.convert_to_tensor(0.2),))
    _close("sin_primal", primal)
    _close("sin_tangent", tangent)
    primal, tangent = ops.jvp(lambda a: ops.tanh(ops.matmul(a, ops.transpose(a))), (X,), (T,))
    _close("gram_primal", primal)
    _close("gram_tangent", tangent)
    primal, tangent = ops.jvp(lambda a, b: ops.softmax(ops.matmul(a, b)), (X, W), (T, TW))
    _close("two_primal", primal)
    _close("two_tangent", tangent)
    primal, tangent, aux = ops.jvp(lambda a, b: (ops.sum(a * a) + ops.mean(b), ops.max(b)),
                                   (X, W), (T, TW), has_aux=True)
    _close("aux_primal", primal)
    _close("aux_tangent", tangent, tol=1e-4)
    _close("aux_aux", aux)
    _, tangent = ops.jvp(lambda a: {"p": ops.exp(a), "q": a[:, :2] ** 3}, (X,), (T,))
    _close("dict_p", tangent["p"])
    _close("dict_q", tangent["q"], tol=1e-4)
    assert keras.ops.linalg.jvp is ops.jvp


def test_jvp_matches_central_differences():
    rng = np.random.default_rng(3)
    x, t = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))

    def f(a):
        return ops.logsumexp(ops.matmul(a, ops.transpose(a)) * ops.sigmoid(a[:, :1]), axis=-1)
    _, tangent = ops.jvp(f, (x,), (t,))
    eps = 1e-6
    numeric = (np.asarray(f(x + eps * t)) - np.asarray(f(x - eps * t))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(tangent), numeric, rtol=1e-6, atol=1e-8)


def test_jvp_unconnected_outputs_symbolic_and_errors():
    _, tangents = ops.jvp(lambda a: [a * 2, ops.ones((2,))], (np.array([1.0, 2.0]),),
                          (np.array([1.0, 1.0]),))
    np.testing.assert_allclose(np.asarray(tangents[0]), [2.0, 2.0])
    assert tangents[1] is None   # as TensorFlow: no tangent for an output of no primal
    x = keras.KerasTensor((None, 3))
    out, tangent = ops.jvp(ops.sin, (x,), (x,))
    assert out.shape == (None, 3) and tangent.shape == (None, 3)
    with pytest.raises(ValueError, match="shapes must match"):
        ops.jvp(ops.sin, (np.ones(3),), (np.ones(2),))
    with pytest.raises(ValueError, match="tuples or lists"):
        ops.jvp(ops.sin, np.ones(3), np.ones(3))
