"""kerasish.ops.conv: forward against a direct nested-loop convolution, gradients, errors."""
import itertools
import os
import sys

import numpy as np
import pytest

import kerasish as keras
import kerasish.ops.conv  # noqa: F401  (the module; `ops.conv` is the function)
from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

conv_module = sys.modules["kerasish.ops.conv"]


def tf_same_pads(size, k_eff, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + k_eff - size, 0)
    return total // 2, total - total // 2


def reference_conv(x, w, strides, padding, dilation):
    """Direct convolution, one output element at a time (channels_last, any rank)."""
    nd = x.ndim - 2
    kernel, cg, filters = w.shape[:-2], w.shape[-2], w.shape[-1]
    groups = x.shape[-1] // cg
    pads = [tf_same_pads(x.shape[1 + i], dilation[i] * (kernel[i] - 1) + 1, strides[i])
            if padding == "same" else (0, 0) for i in range(nd)]
    xp = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    out = [(xp.shape[1 + i] - dilation[i] * (kernel[i] - 1) - 1) // strides[i] + 1
           for i in range(nd)]
    y = np.zeros((x.shape[0], *out, filters))
    for n, o, f in itertools.product(range(x.shape[0]), itertools.product(*map(range, out)),
                                     range(filters)):
        g = f // (filters // groups)
        total = 0.0
        for k in itertools.product(*map(range, kernel)):
            pos = tuple(o[i] * strides[i] + k[i] * dilation[i] for i in range(nd))
            for c in range(cg):
                total += xp[(n, *pos, g * cg + c)] * w[(*k, c, f)]
        y[(n, *o, f)] = total
    return y


def reference_conv_transpose(x, w, strides, padding, output_padding, dilation):
    """Scatter definition: every input pixel adds kernel * value into the output."""
    nd = x.ndim - 2
    kernel = w.shape[:-2]
    sizes, lows = [], []
    for i in range(nd):
        k_eff = dilation[i] * (kernel[i] - 1) + 1
        size, s = x.shape[1 + i], strides[i]
        if output_padding is None:
            out = size * s + max(k_eff - s, 0) if padding == "valid" else size * s
        else:
            pad = k_eff // 2 if padding == "same" else 0
            out = (size - 1) * s + k_eff - 2 * pad + output_padding[i]
        total = max((size - 1) * s + k_eff - out, 0) if padding == "same" else 0
        sizes.append(out)
        lows.append(total // 2)
    big = np.zeros((x.shape[0], *[o + 2 * k * d for o, k, d in zip(sizes, kernel, dilation)],
                    w.shape[-2]))
    for n, p in itertools.product(range(x.shape[0]), itertools.product(*[range(s) for s in
                                                                         x.shape[1:-1]])):
        for k in itertools.product(*map(range, kernel)):
            pos = tuple(p[i] * strides[i] + k[i] * dilation[i] - lows[i] + kernel[i] * dilation[i]
                        for i in range(nd))
            big[(n, *pos)] += w[k] @ x[(n, *p)]
    crop = tuple(slice(k * d, k * d + o) for k, d, o in zip(kernel, dilation, sizes))
    return big[(slice(None), *crop)]


CASES = [  # input shape, kernel shape, strides, padding, dilation
    ((2, 7, 7, 3), (3, 3, 3, 4), 1, "valid", 1),
    ((2, 7, 6, 3), (3, 2, 3, 4), 2, "same", 1),
    ((1, 8, 8, 4), (3, 3, 4, 2), 1, "same", 2),
    ((2, 6, 6, 4), (3, 3, 2, 4), (2, 1), "valid", 1),      # groups = 2
    ((1, 6, 6, 6), (3, 3, 2, 6), 1, "same", 1),            # groups = 3
    ((2, 9, 3), (3, 3, 6), 2, "valid", 1),                 # 1-D
    ((2, 9, 2), (2, 1, 4), 1, "same", 3),                  # 1-D, groups, dilation
    ((2, 5, 5, 4), (1, 1, 4, 3), 2, "valid", 1),           # 1x1, strided
    ((1, 4, 5, 4, 2), (2, 2, 2, 2, 3), 1, "same", 1),      # 3-D
]


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilation", CASES)
def test_conv_matches_direct_convolution(x_shape, w_shape, strides, padding, dilation):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    nd = len(x_shape) - 2
    s = strides if isinstance(strides, tuple) else (strides,) * nd
    expected = reference_conv(x, w, s, padding, (dilation,) * nd)
    y = ops.conv(x, w, strides=strides, padding=padding, dilation_rate=dilation)
    np.testing.assert_allclose(y.numpy(), expected, atol=1e-10)
    perm = (0, nd + 1) + tuple(range(1, nd + 1))
    y_cf = ops.conv(x.transpose(perm), w, strides=strides, padding=padding,
                    dilation_rate=dilation, data_format="channels_first")
    np.testing.assert_allclose(y_cf.numpy(), expected.transpose(perm), atol=1e-10)


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilation", CASES[:-1])
def test_conv_gradients(x_shape, w_shape, strides, padding, dilation):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    check_gradients(lambda x, w: ops.conv(x, w, strides=strides, padding=padding,
                                          dilation_rate=dilation), [x, w])


def test_conv_matches_scipy_correlate():
    scipy_signal = pytest.importorskip("scipy.signal")
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((1, 9, 8, 2)), rng.standard_normal((4, 3, 2, 1))
    expected = sum(scipy_signal.correlate2d(x[0, :, :, c], w[:, :, c, 0], mode="valid")
                   for c in range(2))
    np.testing.assert_allclose(ops.conv(x, w).numpy()[0, :, :, 0], expected, atol=1e-12)


def test_fused_conv_bias_relu_and_second_order():
    rng = np.random.default_rng(4)
    x, w, b = rng.standard_normal((2, 5, 5, 2)), rng.standard_normal((3, 3, 2, 3)), \
        rng.standard_normal(3)
    y = conv_module.fused_conv(x, w, b, activation="relu", padding="same")
    np.testing.assert_allclose(y.numpy(), np.maximum(ops.conv(x, w, padding="same").numpy()
                                                     + b, 0), atol=1e-12)
    check_gradients(lambda x, w, b: conv_module.fused_conv(x, w, b, activation="relu", strides=2,
                                                   padding="same"), [x, w, b])
    check_second_order(lambda x, w, b: conv_module.fused_conv(x, w, b, activation="relu",
                                                      padding="same"), [x[:1], w, b])
    tanh = conv_module.fused_conv(x, w, b, activation=ops.tanh)
    np.testing.assert_allclose(tanh.numpy(), np.tanh(ops.conv(x, w).numpy() + b), atol=1e-12)


def test_conv_second_order():
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((1, 5, 4, 2)), rng.standard_normal((2, 2, 1, 2))  # groups 2
    check_second_order(lambda x, w: ops.conv(x, w, strides=2, padding="same"), [x, w])


@pytest.mark.parametrize("strides, padding, output_padding, dilation", [
    (2, "valid", None, 1), (2, "same", None, 1), (1, "same", None, 1), (3, "valid", None, 1),
    (2, "same", (1, 0), 1), (3, "valid", (2, 1), 1), (1, "valid", None, 2),
])
def test_conv_transpose_matches_scatter_definition(strides, padding, output_padding, dilation):
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((2, 3, 4, 2)), rng.standard_normal((3, 2, 4, 2))
    expected = reference_conv_transpose(x, w, (strides,) * 2, padding, output_padding,
                                        (dilation,) * 2)
    y = ops.conv_transpose(x, w, strides=strides, padding=padding,
                           output_padding=output_padding, dilation_rate=dilation)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.numpy(), expected, atol=1e-10)
    check_gradients(lambda x, w: ops.conv_transpose(
        x, w, strides=strides, padding=padding, output_padding=output_padding,
        dilation_rate=dilation), [x[:1], w])


def test_conv_transpose_is_the_adjoint_of_conv_and_second_order():
    rng = np.random.default_rng(7)
    a, w = rng.standard_normal((2, 8, 8, 3)), rng.standard_normal((3, 3, 3, 4))
    y = ops.conv(a, w, strides=2, padding="same")
    b = rng.standard_normal(y.shape)
    back = ops.conv_transpose(b, w.transpose(0, 1, 2, 3), strides=2, padding="same")
    np.testing.assert_allclose(np.sum(y.numpy() * b), np.sum(a * back.numpy()), rtol=1e-10)
    check_second_order(lambda x, w: ops.conv_transpose(x, w, strides=2, padding="same"),
                       [b[:1, :2, :2], w])


def test_depthwise_and_separable_conv():
    rng = np.random.default_rng(8)
    x, dk = rng.standard_normal((2, 6, 6, 3)), rng.standard_normal((3, 3, 3, 2))
    y = ops.depthwise_conv(x, dk, strides=1, padding="same").numpy()
    for c in range(3):
        for m in range(2):
            expected = reference_conv(x[..., c:c + 1], dk[:, :, c:c + 1, m:m + 1], (1, 1),
                                      "same", (1, 1))
            np.testing.assert_allclose(y[..., c * 2 + m], expected[..., 0], atol=1e-10)
    pk = rng.standard_normal((1, 1, 6, 4))
    sep = ops.separable_conv(x, dk, pk, strides=2, padding="same").numpy()
    depthwise = ops.depthwise_conv(x, dk, strides=2, padding="same").numpy()
    np.testing.assert_allclose(sep, depthwise @ pk[0, 0], atol=1e-10)
    check_gradients(lambda x, d, p: ops.separable_conv(x, d, p, strides=2, padding="same"),
                    [x[:1], dk, pk])


def test_chunked_path_matches(monkeypatch):
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((5, 6, 6, 2)), rng.standard_normal((3, 3, 2, 3))
    whole = ops.conv(x, w, padding="same").numpy()
    from kerasish.backend.kernels import numpy_kernels
    monkeypatch.setattr(numpy_kernels, "CHUNK_BYTES", 1)   # one batch item per chunk
    np.testing.assert_allclose(ops.conv(x, w, padding="same").numpy(), whole, atol=1e-12)
    check_gradients(lambda x, w: ops.conv(x, w, padding="same"), [x[:3], w])
    check_gradients(lambda x, w: ops.conv_transpose(x, w, strides=2),
                    [x[:2], np.ascontiguousarray(w.transpose(0, 1, 3, 2))])


def test_float32_and_int_inputs():
    x = np.arange(2 * 5 * 5, dtype="int32").reshape(2, 5, 5, 1)
    w = np.ones((3, 3, 1, 1), "float32")
    y = ops.conv(x, w)
    assert y.dtype == "float32"
    np.testing.assert_allclose(y.numpy(), reference_conv(x.astype(float), w, (1, 1), "valid",
                                                         (1, 1)), rtol=1e-6)


def test_unwatched_input_gets_no_gradient_but_kernel_does():
    x = ops.convert_to_tensor(np.random.rand(1, 5, 5, 1).astype("float32"))
    w = keras.Variable(np.random.rand(3, 3, 1, 2).astype("float32"))
    with keras.GradientTape() as tape:
        y = ops.sum(ops.conv(x, w))
    gx, gw = tape.gradient(y, [x, w])
    assert gx is None
    for f in range(2):
        np.testing.assert_allclose(gw.numpy()[:, :, 0, f], _patch_sums(x.numpy()), rtol=1e-5)


def _patch_sums(x):
    return np.array([[x[0, i:i + 3, j:j + 3, 0].sum() for j in range(3)] for i in range(3)])


def test_errors_name_the_shapes():
    x = np.zeros((1, 4, 4, 3))
    with pytest.raises(ValueError, match=r"kernel .* larger than the padded input.*\(1, 4, 4, 3\)"):
        ops.conv(x, np.zeros((5, 5, 3, 2)))
    with pytest.raises(ValueError, match="not a multiple of the kernel's input channels 2"):
        ops.conv(x, np.zeros((3, 3, 2, 2)))
    with pytest.raises(ValueError, match="cannot be split into 3 groups"):
        ops.conv(np.zeros((1, 4, 4, 6)), np.zeros((3, 3, 2, 4)))
    with pytest.raises(ValueError, match="rank 3, 4 or 5"):
        ops.conv(np.zeros((4, 4)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="unknown padding 'full'"):
        ops.conv(x, np.zeros((3, 3, 3, 2)), padding="full")
    with pytest.raises(ValueError, match="unknown data_format 'nhwc'"):
        ops.conv(x, np.zeros((3, 3, 3, 2)), data_format="nhwc")
    with pytest.raises(ValueError, match="`strides` must be"):
        ops.conv(x, np.zeros((3, 3, 3, 2)), strides=(1, 0))
    with pytest.raises(ValueError, match="kernel's last axis"):
        ops.conv_transpose(x, np.zeros((3, 3, 2, 2)))


def test_fused_bias_with_one_filter_per_group():
    """A grouped GEMM with one filter per group returns a non-contiguous result."""
    rng = np.random.default_rng(10)
    x, w, b = rng.standard_normal((2, 4, 4, 2)), rng.standard_normal((3, 3, 1, 2)), \
        rng.standard_normal(2)
    y = conv_module.fused_conv(x, w, b, padding="same")
    np.testing.assert_allclose(y.numpy(), ops.conv(x, w, padding="same").numpy() + b,
                               atol=1e-12)


# The fused backward and the threaded batch chunks -----------------------------------
@pytest.fixture
def threaded_chunks(monkeypatch):
    """Small batch chunks (two items each) spread over two CPU threads (2-thread BLAS)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from kerasish.backend.kernels import numpy_kernels
    monkeypatch.setattr(numpy_kernels, "CHUNK_BYTES", 1)
    with threadpoolctl.ThreadpoolController().limit(limits=2, user_api="blas"):
        yield numpy_kernels


def _conv_grads(x, w, b, relu, dy, **kw):
    """(y, gx, gw, gb) of fused_conv through the tape (one ConvGrad in the backward)."""
    x, w, b = (keras.Variable(v) for v in (x, w, b))
    with keras.GradientTape() as tape:
        y = conv_module.fused_conv(x, w, b, activation="relu" if relu else None, **kw)
        total = ops.sum(y * dy)
    return (y.numpy(),) + tuple(g.numpy() for g in tape.gradient(total, [x, w, b]))


def _unfused_grads(x, w, y, dy, relu, strides, padding):
    """The gradients from the separate ops (mask, input gradient, filter gradient, sum),
    each computed over the whole batch on one thread."""
    x_cl = ops.convert_to_tensor(x)
    nd = x.ndim - 2
    geom = conv_module._conv_geometry("test", x.shape, w.shape, (strides,) * nd, padding,
                                      (1,) * nd, 1)
    gz = dy * (y > 0) if relu else dy
    gz_t = ops.convert_to_tensor(gz.astype(x.dtype))
    gx = conv_module.ConvInputGrad(geom, x.shape)(gz_t, ops.convert_to_tensor(w)).numpy()
    gw = conv_module.ConvFilterGrad(geom, w.shape)(x_cl, gz_t).numpy()
    return gx, gw, gz.reshape(-1, gz.shape[-1]).sum(axis=0, dtype=np.float64)


@pytest.mark.parametrize("relu, strides, padding", [(True, 1, "valid"), (False, 2, "same")])
@pytest.mark.parametrize("chunked", [False, True])
def test_fused_conv_grad_matches_the_separate_ops(relu, strides, padding, chunked, monkeypatch):
    """ConvGrad (mask, input, filter and bias gradients in one pass) against the
    separate ops over the whole batch on one thread; `chunked`: ConvGrad over
    one-item chunks on two threads."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((7, 9, 8, 3)).astype("float32")
    w = rng.standard_normal((3, 3, 3, 5)).astype("float32")
    b = rng.standard_normal(5).astype("float32")
    kw = dict(strides=strides, padding=padding)
    y = conv_module.fused_conv(x, w, b, activation="relu" if relu else None, **kw).numpy()
    dy = rng.standard_normal(y.shape).astype("float32")
    ref_gx, ref_gw, ref_gb = _unfused_grads(x, w, y, dy, relu, strides, padding)
    if chunked:
        threadpoolctl = pytest.importorskip("threadpoolctl")
        from kerasish.backend.kernels import numpy_kernels
        monkeypatch.setattr(numpy_kernels, "CHUNK_BYTES", 1)
        with threadpoolctl.ThreadpoolController().limit(limits=2, user_api="blas"):
            y2, gx, gw, gb = _conv_grads(x, w, b, relu, dy, **kw)
        np.testing.assert_allclose(y2, y, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(gx, ref_gx, rtol=1e-6, atol=1e-6)
    else:
        _, gx, gw, gb = _conv_grads(x, w, b, relu, dy, **kw)
        np.testing.assert_array_equal(gx, ref_gx)   # the same operations
    np.testing.assert_allclose(gw, ref_gw, rtol=1e-5, atol=1e-4)   # float32 sums, reordered
    np.testing.assert_allclose(gb, ref_gb, rtol=1e-5, atol=1e-4)


def test_threaded_chunks_give_the_serial_numbers(monkeypatch):
    """Two threads over chunks of one or two items: bit for bit the numbers of one
    thread over the same chunks (the thread count changes no operation; partial
    filter and bias gradients are summed in chunk order)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from kerasish.backend.kernels import cpu_threads, numpy_kernels
    rng = np.random.default_rng(12)
    x = rng.standard_normal((9, 8, 8, 3)).astype("float32")
    w = rng.standard_normal((3, 3, 3, 4)).astype("float32")
    b = rng.standard_normal(4).astype("float32")
    dy = rng.standard_normal((9, 6, 6, 4)).astype("float32")
    per_item = 6 * 6 * 3 * 3 * 3 * 4
    monkeypatch.setattr(numpy_kernels, "CHUNK_BYTES", 2 * per_item)
    assert [b1 - b0 for b0, b1 in numpy_kernels.batch_chunks(9, per_item)] == [1] * 7 + [2]
    with threadpoolctl.ThreadpoolController().limit(limits=2, user_api="blas"):
        if cpu_threads.worker_count() < 2:
            pytest.skip("one CPU: nothing to split over")
        threaded = _conv_grads(x, w, b, True, dy)
    with threadpoolctl.ThreadpoolController().limit(limits=1, user_api="blas"):
        serial = _conv_grads(x, w, b, True, dy)
    for a, s in zip(threaded, serial):
        np.testing.assert_array_equal(a, s)


def test_chunked_forward_matches_the_whole_batch(monkeypatch):
    rng = np.random.default_rng(13)
    x = rng.standard_normal((6, 7, 7, 2)).astype("float32")
    w = rng.standard_normal((3, 3, 2, 4)).astype("float32")
    b = rng.standard_normal(4).astype("float32")
    whole = conv_module.fused_conv(x, w, b, activation="relu").numpy()
    from kerasish.backend.kernels import numpy_kernels
    monkeypatch.setattr(numpy_kernels, "CHUNK_BYTES", 1)
    chunked = conv_module.fused_conv(x, w, b, activation="relu").numpy()
    np.testing.assert_allclose(chunked, whole, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(whole, np.maximum(ops.conv(x, w).numpy() + b, 0))


def test_threaded_chunked_gradients_match_finite_differences(threaded_chunks):
    rng = np.random.default_rng(14)
    x, w, b = rng.standard_normal((3, 5, 5, 2)), rng.standard_normal((3, 3, 2, 3)), \
        rng.standard_normal(3)
    check_gradients(lambda x, w, b: conv_module.fused_conv(x, w, b, activation="relu",
                                                           padding="same"), [x, w, b])
    check_gradients(lambda x, w, b: conv_module.fused_conv(x, w, b, strides=2), [x, w, b])
    check_second_order(lambda x, w, b: conv_module.fused_conv(x, w, b, activation="relu"),
                       [x[:2], w, b])


def test_fused_conv_grad_with_only_some_inputs_watched():
    rng = np.random.default_rng(15)
    x = ops.convert_to_tensor(rng.standard_normal((2, 5, 5, 2)))
    w = keras.Variable(rng.standard_normal((3, 3, 2, 3)))
    b = ops.convert_to_tensor(rng.standard_normal(3))
    with keras.GradientTape() as tape:
        tape.watch(b)
        total = ops.sum(conv_module.fused_conv(x, w, b, activation="relu") ** 2)
    gx, gb = tape.gradient(total, [x, b])
    assert gx is None
    y = conv_module.fused_conv(x, w, b, activation="relu").numpy()
    np.testing.assert_allclose(gb.numpy(), (2 * y).sum(axis=(0, 1, 2)), rtol=1e-12)


def test_conv_refuses_strides_with_dilation_as_tensorflow():
    # Keras 3.15.1 on TF (tf.nn.convolution); depthwise/separable ones accept it
    x, w = np.ones((1, 8, 8, 2), "float32"), np.ones((2, 2, 2, 3), "float32")
    for strides, dilation, text in [(2, 2, "strides=[2 2] and dilation_rate=[2 2]"),
                                    ((2, 1), (1, 2), "strides=[2 1] and dilation_rate=[1 2]")]:
        with pytest.raises(ValueError) as info:
            ops.conv(x, w, strides=strides, dilation_rate=dilation)
        assert str(info.value) == ("`strides > 1` not supported in conjunction with "
                                   f"`dilation_rate > 1`. Received: {text}")
    with pytest.raises(ValueError, match=r"strides=\[2\] and dilation_rate=\[2\]"):
        ops.conv(x[:, 0], w[0], strides=2, dilation_rate=(2,))
    assert ops.depthwise_conv(x, np.ones((2, 2, 2, 1), "float32"), strides=2,
                              dilation_rate=2).shape == (1, 3, 3, 2)


DEPTHWISE = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops",
                                 "depthwise_conv.npz"))
DEPTHWISE_CASES = [(1, "same", 1), (2, "same", 1), (1, "valid", 1), (2, "valid", 1),
                   (1, "same", 2), (1, "same", 1), (2, "valid", 1), (1, "same", 1)]


@pytest.mark.parametrize("index", range(len(DEPTHWISE_CASES)))
def test_depthwise_conv_inference_equals_keras_to_the_bit(index):
    # tests/fixtures/ops/make_depthwise_conv.py: oneDNN adds the taps one by one with FMA,
    # as kerasish's inference path does (the grouped GEMM agrees for some shapes only)
    from kerasish.backend.kernels import onednn_math
    if onednn_math.cpu_kernel() is None or not onednn_math.cpu_kernel()[1]:
        pytest.skip("TensorFlow's kernel on this CPU has no FMA")
    strides, padding, dilation = DEPTHWISE_CASES[index]
    name = "2" if index < 5 else ("1" if index < 7 else "3")
    x, k = DEPTHWISE["x" + name], DEPTHWISE["k" + name]
    out = ops.depthwise_conv(x, k, strides=strides, padding=padding, dilation_rate=dilation)
    np.testing.assert_array_equal(out.numpy(), DEPTHWISE[f"out_{index}"])
    cf = ops.depthwise_conv(np.moveaxis(x, -1, 1), k, strides=strides, padding=padding,
                            dilation_rate=dilation, data_format="channels_first")
    np.testing.assert_array_equal(np.moveaxis(cf.numpy(), 1, -1), DEPTHWISE[f"out_{index}"])


def test_grouped_and_symbolic_convs_take_strides_with_dilation():
    # Keras 3.15.1 on TF compiles grouped convolutions with XLA (no refusal), and its
    # shape inference never refuses (Keras's own ops_nn tests do both)
    x = np.ones((1, 9, 9, 4), "float32")
    w = np.ones((2, 2, 2, 6), "float32")   # 2 groups of 2 input channels
    assert ops.conv(x, w, strides=2, dilation_rate=2).shape == (1, 4, 4, 6)
    symbolic = keras.KerasTensor((None, 9, 9, 2))
    out = ops.conv(symbolic, np.ones((2, 2, 2, 3), "float32"), strides=2, dilation_rate=2)
    assert out.shape == (None, 4, 4, 3)
