"""TensorFlow's float32 matrix products (oneDNN's sgemm order) and one-value pow,
against values recorded from TensorFlow 2.21 by
tests/fixtures/onednn_gemm/make_onednn_gemm.py."""
import hashlib
import json
import os
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish.backend.kernels import eigen_math, numpy_kernels, onednn_gemm

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "onednn_gemm")
sys.path.insert(0, HERE)
from onednn_gemm_inputs import (MLP_EPOCHS, POWER_BASES, POWER_STEPS, PRODUCTS,  # noqa: E402
                                mlp, mlp_data, operands)

FIXTURE = np.load(os.path.join(HERE, "onednn_gemm.npz"))
with open(os.path.join(HERE, "versions.json")) as _f:
    VERSIONS = json.load(_f)

needs_order = pytest.mark.skipif(
    onednn_gemm.product_kernel(np.float32) is None,
    reason="oneDNN's AVX-512 sgemm order is followed only on AVX-512 CPUs whose OpenBLAS "
           "computes padded products as single chains (see kerasish/backend/kernels/onednn_gemm.py)")


def _tf_operands(index):
    kind = PRODUCTS[index][0]
    a, b = operands(index)
    return kind, (a.T if kind == "tn" else a), (b.T if kind == "nt" else b)


@pytest.mark.parametrize("k, blocks", [
    (1, [(0, 1)]), (384, [(0, 384)]), (385, [(0, 193), (193, 385)]),
    (767, [(0, 384), (384, 767)]), (768, [(0, 384), (384, 768)]),
    (784, [(0, 384), (384, 584), (584, 784)]), (1000, [(0, 384), (384, 692), (692, 1000)])])
def test_k_blocks_are_onednns(k, blocks):
    assert onednn_gemm.k_blocks(k) == blocks


@needs_order
@pytest.mark.parametrize("index", range(len(PRODUCTS)))
def test_products_equal_tensorflows(index):
    kind, a, b = _tf_operands(index)
    expected = FIXTURE[f"product_{index}"]
    got = onednn_gemm.product(np.ascontiguousarray(a) if kind != "tn" else a, b, kind)
    np.testing.assert_array_equal(got, expected)


def test_numpy_alone_differs_from_tensorflow_on_the_recorded_products():
    """Most recorded products are ones numpy's own order gets wrong (so the test above can fail)."""
    differing = 0
    for index in range(len(PRODUCTS)):
        _, a, b = _tf_operands(index)
        differing += not np.array_equal(a @ b, FIXTURE[f"product_{index}"])
    assert differing >= len(PRODUCTS) - 3


@needs_order
@pytest.mark.parametrize("m, k, n", [(1, 30, 1), (2, 7, 3), (5, 64, 17), (3, 200, 20), (17, 96, 48)])
def test_padded_blas_calls_are_single_chains(m, k, n):
    rng = np.random.default_rng(m * 1000 + k + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_array_equal(onednn_gemm._chains(a, b), onednn_gemm.chain_reference(a, b))


@needs_order
def test_split_matmul_in_order_over_threads_equals_one_call():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((512, 1000)).astype(np.float32)
    b = rng.standard_normal((1000, 200)).astype(np.float32)
    assert a.shape[0] * 1000 * 200 >= numpy_kernels.SPLIT_MATMUL_MIN
    np.testing.assert_array_equal(numpy_kernels.split_matmul(a, b, kind="nn"),
                                  onednn_gemm.product(a, b, "nn"))
    np.testing.assert_array_equal(numpy_kernels.split_matmul(a, b), a @ b)   # no kind: numpy's


def test_orders_outside_the_known_kernels_stay_numpys():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((1, 800)).astype(np.float32)
    b = rng.standard_normal((800, 400)).astype(np.float32)
    assert not onednn_gemm.is_exact("nn", 1, 800, 400)   # one row, K split over threads
    assert not onednn_gemm.is_exact("tn", 8, 800, 1)     # one column past a block
    assert not onednn_gemm.is_exact("nt", 16, 64, 1)     # one column of many rows
    np.testing.assert_array_equal(onednn_gemm.product(a, b, "nn"), a @ b)
    assert onednn_gemm.product_kernel(np.float64) is None


@pytest.mark.parametrize("base", POWER_BASES)
def test_one_value_power_is_libms_powf(base):
    steps = np.arange(1, POWER_STEPS + 1, dtype=np.float32)
    got = np.array([eigen_math.power(np, np.float32(base), t) for t in steps])
    np.testing.assert_array_equal(got, FIXTURE[f"power_{base}"])
    assert not np.array_equal(np.power(np.float32(base), steps), FIXTURE[f"power_{base}"])


def test_ops_power_of_few_values_is_tensorflows():
    steps = np.arange(1, 8, dtype=np.float32)   # below one packet: libm's powf each
    got = keras.ops.convert_to_numpy(keras.ops.power(np.float32(0.9), steps))
    np.testing.assert_array_equal(got, FIXTURE["power_0.9"][:7])


@needs_order
def test_mlp_predict_fit_and_evaluate_equal_keras():
    """784-100-20-10 with Adam: every K > 384 product, the narrow layers' padding
    and Adam's fourth-step powers; Keras's numbers to the bit after three epochs."""
    x, y = mlp_data()
    model = mlp(keras)
    np.testing.assert_array_equal(model.predict(x[:64], verbose=0), FIXTURE["mlp_predict"])
    history = model.fit(x, y, batch_size=32, epochs=MLP_EPOCHS, verbose=0)
    np.testing.assert_array_equal(np.array(history.history["loss"], np.float32),
                                  FIXTURE["mlp_loss"])
    np.testing.assert_array_equal(np.array(model.evaluate(x, y, verbose=0), np.float32),
                                  FIXTURE["mlp_evaluate"])
    digests = [hashlib.sha256(np.ascontiguousarray(w).tobytes()).hexdigest()
               for w in model.get_weights()]
    assert digests == VERSIONS["mlp_weight_sha256"]


@needs_order
def test_ops_matmul_of_two_matrices_is_tensorflows():
    _, a, b = _tf_operands(0)
    got = keras.ops.convert_to_numpy(keras.ops.matmul(a, b))
    np.testing.assert_array_equal(got, FIXTURE["product_0"])
