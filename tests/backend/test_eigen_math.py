"""kerasish.backend.kernels.eigen_math: TensorFlow's float32 exp, log, log1p, tanh, sigmoid and
softmax cross-entropies, bit for bit.

Expected values: TensorFlow 2.21 inside a `tf.function`, recorded by
tests/fixtures/eigen_math/make_eigen_math.py on the same inputs.
"""
import os
import sys

import numpy as np
import pytest

from kerasish import GradientTape, activations, losses, ops
from kerasish.backend.kernels import eigen_math, numpy_kernels

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "eigen_math")
sys.path.insert(0, FIXTURES)
from eigen_math_inputs import (SIZES, XENT_SHAPES, inputs, log_softmax_3d_input,  # noqa: E402
                               xent_inputs)

RECORDED = np.load(os.path.join(FIXTURES, "eigen_math.npz"))
FUNCTIONS = {
    "exp": [lambda x: eigen_math.exp(np, x), lambda x: ops.exp(x).numpy()],
    "log": [lambda x: eigen_math.log(np, np.abs(x)), lambda x: ops.log(np.abs(x)).numpy()],
    "log1p": [lambda x: eigen_math.log1p(np, np.abs(x)), lambda x: ops.log1p(np.abs(x)).numpy()],
    "tanh": [lambda x: eigen_math.tanh(np, x), lambda x: ops.tanh(x).numpy(),
             lambda x: activations.tanh(ops.convert_to_tensor(x)).numpy()],
    "sigmoid": [numpy_kernels.sigmoid, lambda x: ops.sigmoid(x).numpy(),
                lambda x: activations.sigmoid(ops.convert_to_tensor(x)).numpy()],
}


def _same(got, expected):
    return np.array_equal(got, expected, equal_nan=True) and got.dtype == expected.dtype


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("n", SIZES)
def test_float32_values_are_tensorflows(name, n):
    x = inputs(n)
    for fn in FUNCTIONS[name]:
        got = fn(x)
        assert _same(got, RECORDED[f"{name}_{n}"]), (name, n, np.flatnonzero(got != RECORDED[f"{name}_{n}"])[:5])


def test_numpys_own_functions_differ_so_the_values_are_tested():
    x = inputs(4003)
    with np.errstate(all="ignore"):
        assert not _same(np.exp(x), RECORDED["exp_4003"])
        assert not _same(np.tanh(x), RECORDED["tanh_4003"])


def test_other_dtypes_use_the_array_librarys_functions():
    x = np.linspace(-3, 3, 11)
    np.testing.assert_array_equal(eigen_math.exp(np, x), np.exp(x))
    np.testing.assert_array_equal(eigen_math.tanh(np, x), np.tanh(x))
    assert eigen_math.sigmoid(np, x) is None
    np.testing.assert_allclose(numpy_kernels.sigmoid(x), 1 / (1 + np.exp(-x)), rtol=1e-15)


def test_gradients_still_follow_the_outputs():
    x = ops.convert_to_tensor(np.array([-2.0, 0.5, 3.0], np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.tanh(x) + ops.exp(x) + ops.sigmoid(x))
    t, e, s = np.tanh(x.numpy()), np.exp(x.numpy()), 1 / (1 + np.exp(-x.numpy()))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), (1 - t * t) + e + s * (1 - s), rtol=1e-6)


@pytest.mark.parametrize("i", range(len(XENT_SHAPES)), ids=[str(s) for s in XENT_SHAPES])
@pytest.mark.parametrize("sparse", [True, False], ids=["sparse", "dense"])
def test_softmax_cross_entropy_from_logits_is_tensorflows_kernel(i, sparse):
    logits, labels, upstream = xent_inputs(i)
    target = labels if sparse else np.eye(logits.shape[1], dtype=np.float32)[labels]
    fn = losses.sparse_categorical_crossentropy if sparse else losses.categorical_crossentropy
    z = ops.convert_to_tensor(logits)
    with GradientTape() as tape:
        tape.watch(z)
        loss = fn(target, z, from_logits=True)
    grad = tape.gradient(loss, z, output_gradients=ops.convert_to_tensor(upstream))
    prefix = "sparse" if sparse else "dense"
    np.testing.assert_array_equal(loss.numpy(), RECORDED[f"{prefix}_xent_loss_{i}"])
    np.testing.assert_array_equal(grad.numpy(), RECORDED[f"{prefix}_xent_grad_{i}"])


def test_log_softmax_is_tensorflows_kernel():
    for i in range(len(XENT_SHAPES)):
        logits = xent_inputs(i)[0]
        assert _same(ops.log_softmax(logits).numpy(), RECORDED[f"log_softmax_{i}"]), i
        assert _same(activations.log_softmax(ops.convert_to_tensor(logits)).numpy(),
                     RECORDED[f"log_softmax_{i}"])
    got = ops.log_softmax(log_softmax_3d_input(), axis=1).numpy()
    assert _same(got, RECORDED["log_softmax_axis1"])
    logits = xent_inputs(4)[0]   # 100 classes: numpy's formula differs, so this can fail
    shifted = logits - logits.max(axis=1, keepdims=True)
    numpy_formula = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    assert not _same(numpy_formula, RECORDED["log_softmax_4"])


@pytest.mark.parametrize("n", SIZES)
def test_float16_sigmoid_is_tensorflows(n):
    x = inputs(n).astype(np.float16)
    with np.errstate(over="ignore"):
        assert _same(numpy_kernels.sigmoid(x), RECORDED[f"sigmoid16_{n}"])
        assert _same(ops.sigmoid(x).numpy(), RECORDED[f"sigmoid16_{n}"])


ACTIVATIONS = {"softplus": ops.softplus, "elu": ops.elu, "elu_half": lambda x: ops.elu(x, 0.5),
               "selu": ops.selu, "log_sigmoid": ops.log_sigmoid}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("n", SIZES)
def test_activations_follow_tensorflows_kernels(name, n):
    with np.errstate(over="ignore", invalid="ignore"):
        got = ACTIVATIONS[name](inputs(n)).numpy()
    assert _same(got, RECORDED[f"{name}_{n}"]), (name, n)


def test_zero_dimensional_inputs():
    for dtype in ("float16", "float32"):
        x = np.array(1.0, dtype)
        for fn in (numpy_kernels.sigmoid, lambda a: eigen_math.exp(np, a),
                   lambda a: eigen_math.tanh(np, a), lambda a: eigen_math.log(np, a)):
            out = fn(x)
            assert out.shape == () and out.dtype == x.dtype
    # TensorFlow: sigmoid(1.0) in float16 is 0.731 (0.7310586 rounded to float16)
    assert float(numpy_kernels.sigmoid(np.array(1.0, "float16"))) == float(np.float16(0.7310586))
