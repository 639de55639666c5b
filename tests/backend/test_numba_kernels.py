"""The optional numba loops (`kerasish[fast]`) against the numpy kernels they replace.

Each compiled loop must give the numpy kernel's numbers bit for bit; the numpy
path is run by switching the loops off (`numba_kernels._LOOPS = False`).
"""
import numpy as np
import pytest

from kerasish.autodiff.indexed_slices import IndexedSlices
from kerasish.backend.kernels import numba_kernels as nb
from kerasish.backend.kernels import numpy_kernels as nk
from kerasish.optimizers import row_updates

pytest.importorskip("numba", reason="numba not installed (the optional `fast` extra)")


@pytest.fixture
def numba_on(monkeypatch):
    """The loops loaded (not switched off by the environment)."""
    monkeypatch.delenv("KERASISH_NUMBA", raising=False)
    monkeypatch.setattr(nb, "_LOOPS", None)
    assert nb.loops() is not None


def _both(monkeypatch, run):
    """run() with the numpy kernels, then with the numba loops."""
    monkeypatch.setattr(nb, "_LOOPS", False)
    plain = run()
    monkeypatch.setattr(nb, "_LOOPS", None)
    return plain, run()


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), np.flatnonzero(a.ravel().view(np.uint8)
                                                      != b.ravel().view(np.uint8))[:8]


def _adam_state(rng, shape, dtype):
    grad = rng.normal(size=shape) * rng.choice([0.0, 1e-30, 1.0, 1e3], size=shape)
    grad.flat[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40]  # 1e-40: subnormal in float32
    v = np.abs(rng.normal(size=shape)) * 0.01
    v.flat[10:20] = 0.0
    return [a.astype(dtype) for a in (rng.normal(size=shape), grad,
                                      rng.normal(size=shape) * 0.1, v)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_loop_is_the_numpy_kernel_bit_for_bit(numba_on, monkeypatch, dtype):
    state = _adam_state(np.random.default_rng(0), (257, 33), dtype)

    def run():
        arrays = [a.copy() for a in state]
        with np.errstate(all="ignore"):
            for step in range(3):
                nk.adam_update(*arrays, 1e-3 * (step + 1), 0.9, 0.999, 1e-7)
                nk.adam_update_multi([arrays[0]], [arrays[1]], [arrays[2]], [arrays[3]],
                                     dtype(2e-3), 0.9, 0.999, 1e-7)
        return arrays
    for plain, fast in zip(*_both(monkeypatch, run)):
        _same_bits(plain, fast)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_index_add_loop_is_numpy_add_at_bit_for_bit(numba_on, dtype):
    rng = np.random.default_rng(1)
    index = rng.integers(0, 300, 2000)
    index[:40] = 7            # a heavily repeated row
    index[40:43] = 11         # a lightly repeated one
    values = (rng.normal(size=(2000, 3, 5)) * 10.0 ** rng.integers(-8, 8, (2000, 1, 1))).astype(
        dtype)
    expected = rng.normal(size=(300, 3, 5)).astype(dtype)
    target = expected.copy()
    np.add.at(expected, index, values)
    assert nb.index_add(target.copy(), index, values)  # the loop does take it
    nk.index_add(target, index, values)
    _same_bits(expected, target)


def test_index_add_out_of_range_still_raises(numba_on):
    target = np.zeros((4, 2), np.float32)
    with pytest.raises(IndexError):
        nk.index_add(target, np.array([1, 4]), np.ones((2, 2), np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lookup_adam_in_one_pass_is_dense_then_repeated_rows(numba_on, monkeypatch, dtype):
    rng = np.random.default_rng(2)
    ids = rng.integers(0, 500, (20, 30))
    ids[0, :12] = 5                            # repeated rows: v from the squared rows
    rows = IndexedSlices(rng.normal(size=(20, 30, 6)).astype(dtype), ids, (500, 6))
    grad = rows.dense()
    state = [rng.normal(size=(500, 6)).astype(dtype), (rng.normal(size=(500, 6)) * 0.1).astype(
        dtype), np.abs(rng.normal(size=(500, 6))).astype(dtype)]
    monkeypatch.setattr(nb, "_LOOPS", None)
    assert nk.adam_rows_update(*[a.copy() for a in state[:1]], grad, *[a.copy() for a in
                               state[1:]], dtype(1e-3), 0.9, 0.999, 1e-7,
                               indices=rows.indices, values=rows.values)

    def kernel(param, *args):
        nk.chunked_update(nk.adam_update, param, args)

    def run():
        p, m, v = [a.copy() for a in state]
        for step in range(3):
            row_updates.dense_then_repeated_rows(kernel, row_updates.adam, p, grad, m, v,
                                                 dtype(1e-3 * (step + 1)), 0.9, 0.999, 1e-7,
                                                 None, rows=rows)
        return p, m, v
    plain, fast = _both(monkeypatch, run)
    for a, b in zip(plain, fast):
        _same_bits(a, b)
    # the repeated row's v is not the dense rule's (so the comparison can fail)
    p, m, v = [a.copy() for a in state]
    kernel(p, grad, m, v, dtype(1e-3), 0.9, 0.999, 1e-7, None)
    p1, m1, v1 = [a.copy() for a in state]
    row_updates.dense_then_repeated_rows(kernel, row_updates.adam, p1, grad, m1, v1,
                                         dtype(1e-3), 0.9, 0.999, 1e-7, None, rows=rows)
    assert not np.array_equal(v[5], v1[5])
    once = np.flatnonzero(np.bincount(ids.ravel(), minlength=500) == 1)[0]
    assert np.array_equal(v[once], v1[once])


def test_lookup_adam_other_alpha_dtype_keeps_numpy(numba_on):
    p = np.zeros((4, 2), np.float32)
    args = (np.zeros((4, 2), np.float32), np.zeros((4, 2), np.float32), np.zeros(
        (4, 2), np.float32), np.float64(1e-3), 0.9, 0.999, 1e-7)
    assert not nk.adam_rows_update(p, *args, indices=np.array([1]),
                                   values=np.ones((1, 2), np.float32))


def test_switched_off_by_the_environment(monkeypatch):
    monkeypatch.setenv("KERASISH_NUMBA", "0")
    monkeypatch.setattr(nb, "_LOOPS", None)
    assert nb.loops() is None
    assert not nb.index_add(np.zeros((3, 2)), np.array([0]), np.ones((1, 2)))


def test_embedding_model_trains_to_the_same_weights(numba_on, monkeypatch):
    import kerasish as keras
    rng = np.random.default_rng(3)
    x = rng.integers(0, 30, (16, 7)).astype("int32")
    x[:, :3] = 4                                   # repeated rows in every batch
    y = rng.normal(size=(16, 1)).astype("float32")

    def run():
        keras.utils.set_random_seed(0)
        model = keras.Sequential([keras.Input((7,)), keras.layers.Embedding(30, 4),
                                  keras.layers.Flatten(), keras.layers.Dense(1)])
        model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        return [w.copy() for w in model.get_weights()]
    plain, fast = _both(monkeypatch, run)
    for a, b in zip(plain, fast):
        _same_bits(a, b)
