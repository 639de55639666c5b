"""kerasish.ops max_pool / average_pool against direct window loops; gradients; errors."""
import itertools

import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order


def reference_pool(x, pool, strides, padding, mode):
    """Pools each window of real (unpadded) elements, one output at a time."""
    nd = x.ndim - 2
    pads, out = [], []
    for i in range(nd):
        size = x.shape[1 + i]
        if padding == "same":
            o = -(-size // strides[i])
            total = max((o - 1) * strides[i] + pool[i] - size, 0)
            pads.append(total // 2)
        else:
            o = (size - pool[i]) // strides[i] + 1
            pads.append(0)
        out.append(o)
    y = np.zeros((x.shape[0], *out, x.shape[-1]))
    for n, o in itertools.product(range(x.shape[0]), itertools.product(*map(range, out))):
        values = []
        for k in itertools.product(*map(range, pool)):
            pos = tuple(o[i] * strides[i] + k[i] - pads[i] for i in range(nd))
            if all(0 <= p < x.shape[1 + i] for i, p in enumerate(pos)):
                values.append(x[(n, *pos)])
        y[(n, *o)] = np.max(values, axis=0) if mode == "max" else np.mean(values, axis=0)
    return y


CASES = [  # shape, pool, strides, padding
    ((2, 6, 6, 3), (2, 2), (2, 2), "valid"),
    ((2, 7, 5, 2), (3, 2), (2, 1), "same"),     # overlapping windows, padding
    ((1, 5, 5, 2), (2, 2), (1, 1), "valid"),    # overlapping
    ((2, 7, 3), (3,), (2,), "same"),            # 1-D
    ((1, 5, 4, 3, 2), (2, 2, 2), (2, 2, 2), "same"),  # 3-D
    ((2, 7, 7, 2), (2, 2), (2, 2), "valid"),    # the last row and column in no window
]


@pytest.mark.parametrize("mode", ["max", "average"])
@pytest.mark.parametrize("shape, pool, strides, padding", CASES)
def test_pooling_matches_reference_and_gradients(mode, shape, pool, strides, padding):
    fn = ops.max_pool if mode == "max" else ops.average_pool
    x = np.random.default_rng(0).standard_normal(shape)
    expected = reference_pool(x, pool, strides, padding, "max" if mode == "max" else "avg")
    np.testing.assert_allclose(fn(x, pool, strides, padding).numpy(), expected, atol=1e-12)
    nd = len(shape) - 2
    perm = (0, nd + 1) + tuple(range(1, nd + 1))
    channels_first = fn(x.transpose(perm), pool, strides, padding, data_format="channels_first")
    np.testing.assert_allclose(channels_first.numpy(), expected.transpose(perm), atol=1e-12)
    check_gradients(lambda x: fn(x, pool, strides, padding), [x])


@pytest.mark.parametrize("mode", ["max", "average"])
def test_pooling_second_order(mode):
    fn = ops.max_pool if mode == "max" else ops.average_pool
    x = np.random.default_rng(1).standard_normal((1, 5, 5, 2))
    check_second_order(lambda x: ops.square(fn(x, 3, 2, "same")), [x])


def test_strides_default_to_pool_size():
    x = np.random.rand(1, 6, 6, 1)
    np.testing.assert_allclose(ops.max_pool(x, 3).numpy(), ops.max_pool(x, 3, 3).numpy())
    assert ops.average_pool(x, 2).shape == (1, 3, 3, 1)


def test_max_pool_gradient_goes_to_the_first_maximum_only():
    x = np.zeros((1, 2, 4, 1), "float32")
    x[0, 1, 2, 0] = x[0, 1, 3, 0] = 1.0          # a tie in the second window
    import kerasish as keras
    t = ops.convert_to_tensor(x)
    with keras.GradientTape() as tape:
        tape.watch(t)
        y = ops.sum(ops.max_pool(t, 2))
    grad = tape.gradient(y, t).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(grad, [[1, 0, 0, 0], [0, 0, 1, 0]])


def test_average_pool_same_counts_only_real_elements():
    x = np.ones((1, 3, 3, 1))
    np.testing.assert_allclose(ops.average_pool(x, 2, 2, "same").numpy(), np.ones((1, 2, 2, 1)))


def test_pooling_errors():
    with pytest.raises(ValueError, match=r"pool size \(3, 3\) is larger than the padded input"):
        ops.max_pool(np.zeros((1, 2, 2, 1)), 3)
    with pytest.raises(ValueError, match="rank 3, 4 or 5"):
        ops.average_pool(np.zeros((4, 4)), 2)
    with pytest.raises(ValueError, match="unknown padding 'causal'"):
        ops.max_pool(np.zeros((1, 4, 4, 1)), 2, padding="causal")
    with pytest.raises(ValueError, match="`pool_size` must be"):
        ops.max_pool(np.zeros((1, 4, 4, 1)), (2, 2, 2))


@pytest.mark.parametrize("mode", ["max", "average"])
@pytest.mark.parametrize("shape, pool, strides, padding", CASES[:3] + CASES[-1:])
def test_pooling_in_threaded_batch_chunks_gives_the_same_numbers(mode, shape, pool, strides,
                                                                  padding, monkeypatch):
    """One batch item per chunk, two threads: bit-identical to the whole batch."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import kerasish as keras
    from kerasish.backend.kernels import numpy_kernels
    fn = ops.max_pool if mode == "max" else ops.average_pool
    rng = np.random.default_rng(3)
    x = np.round(rng.standard_normal((5,) + shape[1:]), 1).astype("float32")  # ties too
    dy = rng.standard_normal(fn(x, pool, strides, padding).shape).astype("float32")

    def run():
        xv = keras.Variable(x)
        with keras.GradientTape() as tape:
            y = fn(xv, pool, strides, padding)
            total = ops.sum(y * dy)
        return y.numpy(), tape.gradient(total, xv).numpy()

    whole = run()
    monkeypatch.setattr(numpy_kernels, "CHUNK_BYTES", 1)
    with threadpoolctl.ThreadpoolController().limit(limits=2, user_api="blas"):
        chunked = run()
    for a, b in zip(chunked, whole):
        np.testing.assert_array_equal(a, b)
