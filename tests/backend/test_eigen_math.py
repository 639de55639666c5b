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


# Fast paths against the general code and libm, bit for bit ---------------------------
def _bits(a):
    return np.asarray(a, np.float32).view(np.uint32)


def _libm_per_value(name, x):
    fn = eigen_math._libm(name)
    if fn is None:
        pytest.skip("no C math library")
    return np.array([fn(v) for v in x.reshape(-1).tolist()], np.float32).reshape(x.shape)


def _old_halfway(x):
    """The first `_scalar_exp`'s test: the double exp within 0.003 ulp of halfway."""
    exact = np.exp(x.astype(np.float64))
    rounded = exact.astype(np.float32)
    other = np.nextafter(rounded, np.where(exact > rounded, np.float32(np.inf),
                                           np.float32(-np.inf)))
    ulp = np.abs(other.astype(np.float64) - rounded)
    return np.abs(exact - (rounded.astype(np.float64) + other) / 2) < 0.003 * ulp


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_scalar_exp_flags_every_value_near_halfway_and_gives_libms_values():
    rng = np.random.default_rng(11)
    x = rng.uniform(-87.5, 88.8, 400_000).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        old = _old_halfway(x)
        exact = np.exp(x.astype(np.float64))
        rounded = exact.astype(np.float32)
        below = np.spacing(np.nextafter(rounded, np.float32(0)))
        new = np.abs(exact - rounded) > np.multiply(below, 0.4969, dtype=np.float64)
    assert old.sum() > 0 and not (old & ~new).any()     # every value flagged before still is
    assert new.sum() < 3 * old.sum() + 10               # and not many more
    hard = np.concatenate([x[old], x[:3000], [0.0, -0.0, 1.0, -87.0, 88.7, 88.72, 88.73, 89.0,
                                              -103.9, -104.5, np.inf, -np.inf, np.nan]])
    hard = hard.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        got = eigen_math._scalar_exp(hard)
    np.testing.assert_array_equal(_bits(got), _bits(_libm_per_value("expf", hard)))


def _exp_inputs(rng, n):
    """float32 inputs for exp: in [-87, 89] (the fast path), some exactly -87, some +inf."""
    x = rng.uniform(-87.0, 89.0, n).astype(np.float32)
    x[rng.random(n) < 0.05] = np.float32(-87.0)
    x[rng.random(n) < 0.02] = np.inf
    return x


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_exp_fast_path_matches_the_general_exp():
    rng = np.random.default_rng(12)
    for n in list(range(1, 41)) + [320, 1001]:
        for shape in ((n,), (n, 3)):
            x = _exp_inputs(rng, n * (3 if len(shape) == 2 else 1)).reshape(shape)
            assert x.min() >= -87.0    # the fast path's inputs
            np.testing.assert_array_equal(_bits(eigen_math.exp(np, x)),
                                          _bits(eigen_math._general_exp(x)), err_msg=str(shape))
    special = np.array([np.nan, -np.inf, -88.0, -100.0, -104.5, 0.0, 1.0, 5.0, 7.0],
                       np.float32)           # general path: NaN, -inf, underflow
    np.testing.assert_array_equal(_bits(eigen_math.exp(np, special)),
                                  _bits(eigen_math._general_exp(special)))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_exp_for_row_sums_tails_are_libms_and_flushed():
    rng = np.random.default_rng(13)
    for n in (3, 9, 10, 15, 17):
        x = rng.uniform(-95.0, 5.0, (40, n)).astype(np.float32)
        x[rng.random(x.shape) < 0.05] = np.nan
        x[:3] = np.clip(x[:3], -80, None)        # rows without tiny values
        got = eigen_math.exp_for_row_sums(np, x)
        packed = n // 8 * 8
        tail = _libm_per_value("expf", x[:, packed:])
        with np.errstate(invalid="ignore"):
            tail[np.abs(tail) < np.finfo(np.float32).tiny] = 0.0   # TensorFlow flushes
        np.testing.assert_array_equal(_bits(got[:, packed:]), _bits(tail))
        np.testing.assert_array_equal(_bits(got[:, :packed]),
                                      _bits(eigen_math.exp(np, x)[:, :packed]))


def test_scalar_log_is_libms_logf_of_the_flushed_input():
    rng = np.random.default_rng(14)
    x = np.concatenate([rng.uniform(0.5, 40.0, 2000), rng.uniform(0.999, 1.001, 500),
                        [1.0, 0.0, -0.0, 1e-39, -1e-39, 1.2e-38, np.inf, -1.0, np.nan,
                         np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0)]]).astype(np.float32)
    flushed = np.where(np.abs(x) < np.finfo(np.float32).tiny, np.float32(0.0), x)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = _libm_per_value("logf", flushed)
    np.testing.assert_array_equal(_bits(eigen_math.scalar_log(np, x)), _bits(expected))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_exp_and_row_sum_exp_is_the_pair_of_separate_calls():
    rng = np.random.default_rng(15)
    for shape in ((32, 10), (4, 8), (3, 17), (5, 1), (2, 3, 12), (7,), (0, 9)):
        for low in (-80.0, -120.0):
            x = rng.uniform(low, 3.0, shape).astype(np.float32)
            if x.size > 4:
                x.reshape(-1)[::5] = np.float32(-87.0)
            flat, rows = eigen_math.exp_and_row_sum_exp(np, x)
            expected = eigen_math.exp(np, x)
            np.testing.assert_array_equal(_bits(flat), _bits(expected))
            np.testing.assert_array_equal(
                _bits(rows), _bits(eigen_math.exp_for_row_sums(np, x, expected)))
    x = np.array([[np.nan, 1.0, -np.inf, 2.0, 0.5, 0.25, 3.0, 1.0, 2.0, -np.inf]], np.float32)
    flat, rows = eigen_math.exp_and_row_sum_exp(np, x)   # the general path
    np.testing.assert_array_equal(_bits(rows), _bits(eigen_math.exp_for_row_sums(np, x)))


def test_flush_subnormals_keeps_normal_values_and_flushes_the_rest():
    x = np.array([1e-39, -1e-39, 0.0, -0.0, 1.2e-38, -1.17549435e-38, np.nan, np.inf, 3.0],
                 np.float32)
    got = eigen_math.flush_subnormals(x)
    expected = np.array([0.0, -0.0, 0.0, -0.0, 1.2e-38, -1.17549435e-38, np.nan, np.inf, 3.0],
                        np.float32)
    np.testing.assert_array_equal(_bits(got), _bits(expected))
    normal = np.array([1.0, -2.0, 1.17549435e-38], np.float32)
    assert eigen_math.flush_subnormals(normal) is normal
    assert eigen_math.flush_subnormals(np.zeros((0, 2), np.float32)).shape == (0, 2)
