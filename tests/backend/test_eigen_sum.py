"""kerasish.backend.kernels.eigen_sum: sums in TensorFlow's CPU order, to the last bit.

Expected values: TensorFlow 2.21's `reduce_sum` / `reduce_mean` and the
gradient of a broadcast add, recorded by
tests/fixtures/eigen_sum/make_eigen_sum.py on the same seeded inputs.
"""
import os
import sys

import numpy as np
import pytest

from kerasish import GradientTape, Variable, ops
from kerasish.backend.kernels.eigen_sum import bias_gradient_sum, ordered_mean, ordered_sum

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "eigen_sum")
sys.path.insert(0, FIXTURES)
from eigen_sum_cases import BIAS_CASES, BIAS_THREADS, CASES, bias_input, case_input  # noqa: E402

RECORDED = np.load(os.path.join(FIXTURES, "eigen_sum.npz"))
IDS = [f"{shape}-{axes}-{dtype}" for shape, axes, dtype in CASES]


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_sum_and_mean_are_tensorflows_to_the_last_bit(i):
    shape, axes, dtype = CASES[i]
    x = case_input(i)
    np.testing.assert_array_equal(ordered_sum(x, axes), RECORDED[f"sum_{i}"])
    np.testing.assert_array_equal(ordered_mean(x, axes, keepdims=True), RECORDED[f"mean_{i}"])
    if axes:   # the ops use the kernel on the CPU
        np.testing.assert_array_equal(ops.sum(x, axis=axes).numpy(), RECORDED[f"sum_{i}"])
        np.testing.assert_array_equal(ops.mean(x, axis=axes, keepdims=True).numpy(),
                                      RECORDED[f"mean_{i}"])


@pytest.mark.parametrize("i", [i for i in range(len(CASES)) if f"addgrad_{i}" in RECORDED.files],
                         ids=lambda i: IDS[i])
def test_bias_gradient_of_a_broadcast_add_is_tensorflows(i):
    shape = CASES[i][0]
    g = case_input(i)
    bias = Variable(np.zeros(shape[-1], g.dtype))
    with GradientTape() as tape:
        y = ops.zeros(shape, g.dtype) + bias
    grad = tape.gradient(y, bias, output_gradients=g)
    np.testing.assert_array_equal(grad.numpy(), RECORDED[f"addgrad_{i}"])


def test_numpys_own_order_differs_so_the_order_is_tested():
    differing = [i for i, (_, axes, _) in enumerate(CASES)
                 if not np.array_equal(np.sum(case_input(i), axis=axes), RECORDED[f"sum_{i}"])]
    assert len(differing) >= 10


def test_other_dtypes_and_empty_inputs_use_numpys_sum():
    ints = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(ordered_sum(ints, (1,)), [6, 22, 38])
    assert ordered_sum(np.zeros((0, 3), np.float32), (0,)).tolist() == [0, 0, 0]
    assert ordered_sum(np.ones((2, 3), np.float32), (0, 1), keepdims=True).shape == (1, 1)


@pytest.mark.parametrize("i", range(len(BIAS_CASES)), ids=[f"{s}-{d}" for s, d in BIAS_CASES])
def test_bias_add_gradient_is_tensorflows_biasaddgrad(i):
    g = bias_input(i)
    accumulate = np.float32 if g.dtype == np.float16 else None
    got = bias_gradient_sum(g, accumulate, threads=BIAS_THREADS)
    np.testing.assert_array_equal(got, RECORDED[f"biasgrad_{i}"])


def test_a_dense_bias_gets_the_biasaddgrad_order():
    from kerasish import layers
    g = bias_input(1).reshape(1000, 1)        # one column: numpy would pair values up
    layer = layers.Dense(1, kernel_initializer="zeros")
    x = ops.zeros((1000, 3))
    layer.build(x.shape)
    with GradientTape() as tape:
        y = layer(x)
    grad = tape.gradient(y, layer.bias, output_gradients=g)
    np.testing.assert_array_equal(grad.numpy(), RECORDED["biasgrad_1"])
    assert not np.array_equal(g.sum(axis=0), RECORDED["biasgrad_1"])


# Fast paths against the general code, bit for bit --------------------------------
# (inf - inf and the like warn; the values, NaN included, are what is compared)
def _hard_values(rng, shape, dtype):
    """Values whose sums depend on the order: a wide range of magnitudes and signs,
    with zeros of both signs, subnormals, infinities and NaN sprinkled in."""
    x = (rng.standard_normal(shape) * np.exp(rng.uniform(-12, 12, shape))).astype(dtype)
    flat = x.reshape(-1)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan,
                        np.finfo(dtype).tiny / 4, -np.finfo(dtype).tiny / 8], dtype)
    picks = rng.random(flat.size) < 0.03
    flat[picks] = rng.choice(special, int(picks.sum()))
    return x


def _bits(a):
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_rows_fast_path_matches_the_general_leaf_sums(dtype):
    from kerasish.backend.kernels import eigen_sum
    lanes = eigen_sum._LANES[np.dtype(dtype)]
    rng = np.random.default_rng(5)
    for n in range(lanes, 16 * lanes):
        for rows in (1, 3, 32):
            x = _hard_values(rng, (rows, n), dtype)
            finite = np.where(np.isfinite(x), x, dtype(1.5))
            for values in (x, finite):
                np.testing.assert_array_equal(
                    _bits(eigen_sum._short_leaf_sums(values, lanes)),
                    _bits(eigen_sum._leaf_sums(values, lanes)), err_msg=f"{rows}x{n}")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_last_axis_fast_path_matches_the_general_ordered_sum(dtype):
    from kerasish.backend.kernels import eigen_sum
    lanes = eigen_sum._LANES[np.dtype(dtype)]
    rng = np.random.default_rng(6)
    shapes = [(n,) for n in (1, 2, 7, 8, 9, 31, 32, 33, 100, 200, 9000)]
    shapes += [(r, n) for r in (1, 2, 32) for n in (1, 2, 10, 16, 40, 127, 128, 300, 8195)]
    for shape in shapes:
        x = _hard_values(rng, shape, dtype)
        x = np.where(rng.random(shape) < 0.5, x, np.where(np.isfinite(x), x, dtype(2.0)))
        axes = (len(shape) - 1,)
        for keepdims in (False, True):
            fast = ordered_sum(x, axes, keepdims)
            general = eigen_sum._general_ordered_sum(x, axes, keepdims, lanes)
            assert fast.shape == general.shape and fast.dtype == general.dtype
            np.testing.assert_array_equal(_bits(fast), _bits(general), err_msg=str(shape))
    transposed = _hard_values(rng, (10, 32), dtype).T   # not contiguous
    np.testing.assert_array_equal(
        _bits(ordered_sum(transposed, (1,))),
        _bits(eigen_sum._general_ordered_sum(transposed, (1,), False, lanes)))
