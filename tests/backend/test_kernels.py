"""Fused kernels: every cupy kernel has a numpy reference; cupy never loads on CPU."""
import ast
import importlib
import inspect
import sys
from pathlib import Path

import numpy as np
import pytest

from kerasish.backend import devices, kernels
from kerasish.backend.kernels import numpy_kernels

CUPY_FILE = Path(kernels.__file__).with_name("cupy_kernels.py")


def _public_functions(path):
    tree = ast.parse(path.read_text())
    return {node.name: [a.arg for a in node.args.args]
            for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}


def test_every_cupy_kernel_has_a_numpy_reference_with_the_same_signature():
    gpu = _public_functions(CUPY_FILE)
    assert gpu, "cupy_kernels.py defines no kernels"
    for name, args in gpu.items():
        assert hasattr(numpy_kernels, name), f"cupy kernel {name!r} has no numpy reference"
        ref_args = list(inspect.signature(getattr(numpy_kernels, name)).parameters)
        assert ref_args == args, f"{name}: cupy args {args} != numpy args {ref_args}"


def test_numpy_all_lists_exactly_the_public_kernels():
    public = set(_public_functions(Path(numpy_kernels.__file__)))
    assert set(numpy_kernels.__all__) == public
    assert kernels.names() == sorted(public)


def test_lookup_and_reference_kernels():
    assert kernels.lookup("sigmoid", "cpu") is numpy_kernels.sigmoid
    with pytest.raises(NotImplementedError, match="No fused kernel named 'nope' for cpu"):
        kernels.lookup("nope", "cpu")
    x = np.array([-800.0, -1.0, 0.0, 2.0, 800.0])
    np.testing.assert_allclose(numpy_kernels.sigmoid(x), [0.0, 1 / (1 + np.e), 0.5, 1 / (1 + np.exp(-2)), 1.0])
    target = np.zeros(3)
    numpy_kernels.index_add(target, np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0]))
    assert target.tolist() == [3.0, 0.0, 3.0]


def test_cupy_kernels_are_never_imported_on_cpu():
    from kerasish import ops
    with __import__("kerasish").GradientTape() as tape:
        x = ops.convert_to_tensor([1.0, -2.0])
        tape.watch(x)
        y = ops.sum(ops.sigmoid(x) * ops.take(x, [0, 0]))
    tape.gradient(y, x)
    if not devices.cupy_available():
        assert "kerasish.backend.kernels.cupy_kernels" not in sys.modules
        assert "cupy" not in sys.modules


@pytest.mark.gpu
@pytest.mark.skipif(not devices.cupy_available(), reason="needs cupy and a CUDA GPU")
def test_cupy_kernels_match_numpy_references():  # pragma: no cover - needs a GPU
    import cupy
    cupy_kernels = importlib.import_module("kerasish.backend.kernels.cupy_kernels")
    x = np.linspace(-5, 5, 11)
    np.testing.assert_allclose(cupy.asnumpy(cupy_kernels.sigmoid(cupy.asarray(x))), numpy_kernels.sigmoid(x))
    target = cupy.zeros(3)
    cupy_kernels.index_add(target, cupy.asarray([0, 0, 2]), cupy.asarray([1.0, 2.0, 3.0]))
    assert cupy.asnumpy(target).tolist() == [3.0, 0.0, 3.0]


@pytest.mark.parametrize("case", ["uniform", "heavy", "unique", "one_dim", "float64_3d",
                                  "negative"])
def test_index_add_is_add_at_bit_for_bit(case):
    """The grouped scatter-add gives numpy.add.at's numbers (same accumulation order)."""
    rng = np.random.default_rng(3)
    rows, n, tail, dtype = 300, 700, (6,), "float32"
    index = rng.integers(0, rows, n)
    if case == "heavy":  # a few very frequent rows (like common tokens) and a long tail
        index = np.minimum(rng.zipf(1.3, n), rows - 1)
        assert np.bincount(index).max() > 8
    elif case == "unique":
        index = rng.permutation(rows)[:200]
    elif case == "one_dim":
        tail = ()
    elif case == "float64_3d":
        tail, dtype = (3, 2), "float64"
    elif case == "negative":  # -1 and rows - 1 are the same row
        index = np.where(index % 2 == 0, index - rows, index)
    target = rng.normal(size=(rows,) + tail).astype(dtype)
    values = rng.normal(size=(index.size,) + tail).astype(dtype)
    expected = target.copy()
    np.add.at(expected, index, values)
    numpy_kernels.index_add(target, index, values)
    np.testing.assert_array_equal(target, expected)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_multi_tensor_updates_on_threads_equal_the_single_variable_kernels(amsgrad):
    """Variables above CHUNK_ABOVE are updated in slices spread over threads: same bits."""
    rng = np.random.default_rng(0)
    shapes = [(numpy_kernels.CHUNK_ABOVE + 12345,), (7, 5)]

    def state():
        return [[rng.standard_normal(s).astype("float32") for s in shapes] for _ in range(5)]

    params, grads, ms, vs, hats = state()
    vs = [np.abs(v) for v in vs]
    hats = [np.abs(h) for h in hats] if amsgrad else None
    single = [[a.copy() for a in group] for group in (params, ms, vs)] + \
        [[h.copy() for h in hats] if amsgrad else None]
    numpy_kernels.adam_update_multi(params, grads, ms, vs, 1e-3, 0.9, 0.999, 1e-7, hats)
    for i in range(len(shapes)):
        extra = {"v_hat": single[3][i]} if amsgrad else {}
        numpy_kernels.adam_update(single[0][i], grads[i], single[1][i], single[2][i], 1e-3, 0.9,
                                  0.999, 1e-7, **extra)
        for multi, one in zip((params, ms, vs), single[:3]):
            np.testing.assert_array_equal(multi[i], one[i])


def test_multi_tensor_sgd_on_threads_equals_the_single_variable_kernel():
    rng = np.random.default_rng(1)
    param = rng.standard_normal(numpy_kernels.CHUNK_ABOVE + 999).astype("float32")
    grad, buf = rng.standard_normal(param.shape).astype("float32"), np.zeros_like(param)
    ref_param, ref_buf = param.copy(), buf.copy()
    numpy_kernels.sgd_update_multi([param], [grad], [buf], 0.1, 0.9, True)
    numpy_kernels.sgd_update(ref_param, grad, ref_buf, 0.1, 0.9, True)
    np.testing.assert_array_equal(param, ref_param)
    np.testing.assert_array_equal(buf, ref_buf)


def test_chunked_update_slices_every_array_shaped_like_the_variable():
    """Large variables run in slices (and threads): the same numbers as one call."""
    from kerasish.backend.kernels import numpy_kernels as nk
    rng = np.random.default_rng(0)
    shape = (nk.CHUNK_ABOVE // 64 + 7, 128)
    param, grad, velocity, momentum = (rng.normal(size=shape).astype(np.float32)
                                       for _ in range(4))
    velocity = np.abs(velocity)
    ref = [a.copy() for a in (param, velocity, momentum)]
    nk.rmsprop_update(ref[0], grad, ref[1], np.float32(0.01), 0.9, 1e-7, ref[2], 0.5)
    nk.chunked_update(nk.rmsprop_update, param,
                      (grad, velocity, np.float32(0.01), 0.9, 1e-7, momentum, 0.5))
    for a, r in zip((param, velocity, momentum), ref):
        np.testing.assert_array_equal(a, r)


def _two_blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    return threadpoolctl.ThreadpoolController().limit(limits=2, user_api="blas")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_split_matmul_equals_one_product(dtype, monkeypatch):
    """Blocks of rows (more rows than columns) or of 64-byte aligned columns over two
    threads, each a single-threaded BLAS call."""
    monkeypatch.setattr(numpy_kernels, "SPLIT_MATMUL_MIN", 1 << 20)
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 96, 700)).astype(dtype)       # 3-D, contiguous
    b = rng.standard_normal((700, 130)).astype(dtype)
    wide = rng.standard_normal((700, 330)).astype(dtype)      # more columns than rows
    with _two_blas_threads():
        split = numpy_kernels.split_matmul(a, b)
        transposed = numpy_kernels.split_matmul(a[0].T, a[0])   # a strided 2-D operand
        columns = numpy_kernels.split_matmul(a[0], wide)
    assert split.shape == (2, 96, 130) and split.dtype == dtype
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.ThreadpoolController().limit(limits=1, user_api="blas"):  # references
        whole, whole_t, whole_c = a @ b, a[0].T @ a[0], a[0] @ wide
        halves = np.concatenate([a.reshape(-1, 700)[:96] @ b, a.reshape(-1, 700)[96:] @ b])
        cut = 176 if dtype == "float32" else 168   # 165 rounded up to 64 bytes
        column_halves = np.concatenate([a[0] @ wide[:, :cut], a[0] @ wide[:, cut:]], axis=1)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(split, whole, rtol=tol, atol=tol)
    np.testing.assert_allclose(transposed, whole_t, rtol=tol, atol=tol)
    np.testing.assert_allclose(columns, whole_c, rtol=tol, atol=tol)
    np.testing.assert_array_equal(split.reshape(-1, 130), halves)
    np.testing.assert_array_equal(columns, column_halves)


def test_split_matmul_writes_into_out(monkeypatch):
    """`out=`: split (rows, columns) or one call, the result lands in the given array."""
    monkeypatch.setattr(numpy_kernels, "SPLIT_MATMUL_MIN", 1 << 20)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 96, 700)).astype("float32")
    for b in (rng.standard_normal((700, 130)).astype("float32"),
              rng.standard_normal((700, 330)).astype("float32")):
        for left in (a, a[0, :3]):   # split over the threads; too small: one call
            out = np.full(left.shape[:-1] + b.shape[1:], np.nan, "float32")
            with _two_blas_threads():
                result = numpy_kernels.split_matmul(left, b, out=out)
                expected = numpy_kernels.split_matmul(left, b)
            assert result is out
            np.testing.assert_array_equal(out, expected)


def test_split_matmul_falls_back_to_one_call(monkeypatch):
    monkeypatch.setattr(numpy_kernels, "SPLIT_MATMUL_MIN", 1 << 20)
    small = np.ones((3, 4), "float32"), np.ones((4, 2), "float32")
    ints = np.ones((200, 200), "int64"), np.ones((200, 200), "int64")
    mixed = np.ones((200, 200), "float32"), np.ones((200, 200), "float64")
    with _two_blas_threads():
        for a, b in (small, ints, mixed):
            out = numpy_kernels.split_matmul(a, b)
            np.testing.assert_array_equal(out, a @ b)
            assert out.dtype == (a @ b).dtype


@pytest.mark.parametrize("n, per_item, multiple", [(128, 24336, 4), (128, 663552, 4),
                                                   (5, 1, 4), (7, 10, 1), (3, 1, 4), (0, 8, 4)])
def test_batch_chunks_are_even_and_a_multiple_of_four(n, per_item, multiple):
    chunks = numpy_kernels._split_batch(n, per_item, 2 * 2 ** 20, multiple)
    assert [i for b0, b1 in chunks for i in range(b0, b1)] == list(range(n))
    sizes = [b1 - b0 for b0, b1 in chunks]
    assert all(s * per_item <= 2 * 2 ** 20 or s == 1 for s in sizes)
    if n:
        assert max(sizes) - min(sizes) <= 1
        assert len(chunks) == n or len(chunks) % multiple == 0
    if (n, per_item) == (128, 24336):   # the MNIST convnet's first conv: not 86 + 42
        assert sizes == [32] * 4
    if (n, per_item) == (128, 663552):  # its second conv: 44 chunks of 2-3 items
        assert len(chunks) == 44


def test_batch_chunks_do_not_depend_on_the_thread_count(monkeypatch):
    from kerasish.backend.kernels import cpu_threads
    for workers in (1, 2, 3):
        monkeypatch.setattr(cpu_threads, "worker_count", lambda: workers)
        assert len(numpy_kernels.batch_chunks(128, 663552)) == 44
        assert numpy_kernels.batch_chunks(128, 24336) == [(0, 32), (32, 64), (64, 96), (96, 128)]


def _label_cases():
    rng = np.random.default_rng(21)
    for shape in ((32, 10), (1, 3), (5, 1), (7,), (4, 3, 6), (0, 4), (6, 9)):
        x = rng.standard_normal(shape).astype(np.float32)
        if shape == (6, 9):
            x = np.asfortranarray(x)   # not C-contiguous: the general path
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.1] = np.nan
        flat[rng.random(flat.size) < 0.1] = -0.0
        labels = rng.integers(0, shape[-1], shape[:-1])
        yield x, labels


def test_take_labels_is_take_along_axis():
    for x, labels in _label_cases():
        got = numpy_kernels.take_labels(x, labels)
        expected = np.take_along_axis(x, labels[..., None], axis=-1)[..., 0]
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_subtract_one_hot_is_the_one_hot_subtraction_bit_for_bit():
    for x, labels in _label_cases():
        got = x.copy(order="K")   # (a Fortran-ordered case stays so)
        numpy_kernels.subtract_one_hot(got, labels)
        expected = x - (labels[..., None] == np.arange(x.shape[-1])).astype(x.dtype)
        np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_multi_tensor_adam_equals_the_single_variable_kernel_for_small_and_0d_variables(dtype):
    rng = np.random.default_rng(3)
    shapes = [(32, 10), (10,), ()]
    params, grads, ms = ([rng.standard_normal(s).astype(dtype) for s in shapes]
                         for _ in range(3))
    vs = [np.abs(rng.standard_normal(s)).astype(dtype) for s in shapes]
    single = [[a.copy() for a in group] for group in (params, ms, vs)]
    numpy_kernels.adam_update_multi(params, grads, ms, vs, np.float32(3e-3), 0.9, 0.999, 1e-7)
    for i in range(len(shapes)):
        numpy_kernels.adam_update(single[0][i], grads[i], single[1][i], single[2][i],
                                  np.float32(3e-3), 0.9, 0.999, 1e-7)
        for multi, one in zip((params, ms, vs), single):
            assert multi[i].dtype == one[i].dtype and multi[i].shape == one[i].shape
            np.testing.assert_array_equal(multi[i].view(f"u{multi[i].itemsize}"),
                                          one[i].view(f"u{one[i].itemsize}"))


def test_broadcast_to_is_numpys_read_only_view():
    rng = np.random.default_rng(4)
    cases = [((), (3, 2)), ((1,), (32,)), ((4,), (2, 3, 4)), ((3, 1), (3, 5)), ((1, 5), (2, 4, 5)),
             ((2, 3), (2, 3)), ((0,), (0,)), ((1,), (0,)), ((2, 1), (2, 0))]
    for x_shape, shape in cases:
        for dtype in ("float32", "int64", "bool"):
            x = np.asarray(rng.standard_normal(x_shape) > 0).astype(dtype)
            got = numpy_kernels.broadcast_to(x, shape)
            expected = np.broadcast_to(x, shape)
            assert got.shape == expected.shape and got.dtype == expected.dtype
            assert got.strides == expected.strides and not got.flags.writeable
            np.testing.assert_array_equal(got, expected)
            assert np.shares_memory(got, x) or not got.size
    assert numpy_kernels.broadcast_to(np.float32(2.0), (2,)).tolist() == [2.0, 2.0]
    strided = np.arange(12.0).reshape(3, 4)[:, ::2]          # not contiguous: numpy's function
    np.testing.assert_array_equal(numpy_kernels.broadcast_to(strided, (2, 3, 2)),
                                  np.broadcast_to(strided, (2, 3, 2)))
    for x_shape, shape in (((3,), (4,)), ((2, 3), (3,)), ((2,), (3, 4))):
        with pytest.raises(ValueError):
            numpy_kernels.broadcast_to(np.zeros(x_shape), shape)
