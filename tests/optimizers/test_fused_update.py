"""The fused multi-tensor updates (Adam, AdamW, SGD) against the per-variable updates.

`_fused_update` updates every variable in one kernel call and slices large
variables into cache-sized chunks; the reference is the same optimizer with the
fused path switched off (`update_step` per variable). The numbers must be
identical bit for bit: each element goes through the same float operations.
"""
import numpy as np
import pytest

import kerasish as keras
from kerasish import optimizers
from kerasish.backend.kernels import numpy_kernels

SHAPES = [(7, 9), (9,), (), (50,)]  # 50 > the patched CHUNK: sliced, with a remainder


def _steps(make, shapes=SHAPES, dtype="float32", steps=4, fused=True):
    rng = np.random.default_rng(0)
    variables = [keras.Variable(rng.normal(size=s).astype(dtype), name=f"v{i}")
                 for i, s in enumerate(shapes)]
    optimizer = make()
    calls = []
    if not fused:
        optimizer._fused_update = lambda *args: False
    else:
        original = optimizer._fused_update

        def spy(*args):
            calls.append(original(*args))
            return calls[-1]
        optimizer._fused_update = spy
    for _ in range(steps):
        grads = [rng.normal(size=s).astype(dtype) for s in shapes]
        optimizer.apply_gradients(zip([keras.ops.convert_to_tensor(g) for g in grads], variables))
    return [v.numpy() for v in variables], [s.numpy() for s in optimizer.variables], calls


MAKERS = {
    "adam": lambda: optimizers.Adam(0.01),
    "amsgrad": lambda: optimizers.Adam(0.01, amsgrad=True),
    "adamw": lambda: optimizers.AdamW(0.01, weight_decay=0.1),
    "adam_clipnorm_ema": lambda: optimizers.Adam(0.01, clipnorm=0.5, use_ema=True),
    "sgd": lambda: optimizers.SGD(0.1),
    "sgd_momentum": lambda: optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
}


@pytest.mark.parametrize("name", list(MAKERS))
def test_fused_update_is_identical_to_per_variable_updates(name, monkeypatch):
    monkeypatch.setattr(numpy_kernels, "CHUNK", 16)
    monkeypatch.setattr(numpy_kernels, "CHUNK_ABOVE", 16)
    fused, fused_slots, calls = _steps(MAKERS[name])
    plain, plain_slots, _ = _steps(MAKERS[name], fused=False)
    assert calls and all(calls)  # the fused path ran on every step
    for a, b in zip(fused + fused_slots, plain + plain_slots):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(fused[0], _steps(MAKERS[name], steps=1)[0][0])  # it trains


def test_chunked_kernel_slices_large_variables_and_matches_one_call(monkeypatch):
    monkeypatch.setattr(numpy_kernels, "CHUNK", 16)
    monkeypatch.setattr(numpy_kernels, "CHUNK_ABOVE", 32)
    rng = np.random.default_rng(1)
    arrays = [rng.normal(size=(5, 11)).astype("float32") for _ in range(4)]
    arrays[3] = np.abs(arrays[3])  # the second-moment slot
    whole = [a.copy() for a in arrays]
    numpy_kernels.adam_update(*whole, np.float32(0.1), 0.9, 0.999, 1e-7)
    sliced = [a.copy() for a in arrays]
    numpy_kernels.adam_update_multi([sliced[0]], [sliced[1]], [sliced[2]], [sliced[3]],
                                    np.float32(0.1), 0.9, 0.999, 1e-7)
    for a, b in zip(whole, sliced):
        np.testing.assert_array_equal(a, b)
    seen = []
    numpy_kernels._chunked(lambda p: seen.append(p.size), (np.zeros((5, 11), "float32"),))
    assert sorted(seen) == [7, 16, 16, 16]  # pieces may run on several threads, in any order
    seen.clear()
    numpy_kernels._chunked(lambda p: seen.append(p.size), (np.zeros(30, "float32"),))
    assert seen == [30]  # not above CHUNK_ABOVE: whole
    strided = np.zeros((40, 2), "float32")[:, 0]  # not contiguous: one call on the view
    seen.clear()
    numpy_kernels._chunked(lambda p: seen.append(p.size), (strided,))
    assert seen == [40]


def test_subclass_with_its_own_update_step_is_not_bypassed():
    class Halved(optimizers.Adam):
        def update_step(self, gradient, variable, learning_rate):
            super().update_step(gradient * 0.5, variable, learning_rate)

    variables, _, calls = _steps(lambda: Halved(0.01), steps=1)
    assert calls == [False]
    reference, _, _ = _steps(lambda: optimizers.Adam(0.01), steps=1)
    assert not np.array_equal(variables[0], reference[0])


def test_mixed_dtypes_fall_back_to_per_variable_updates():
    rng = np.random.default_rng(2)
    variables = [keras.Variable(rng.normal(size=3).astype("float32")),
                 keras.Variable(rng.normal(size=3), dtype="float64")]
    optimizer = optimizers.Adam(0.01)
    optimizer.build(variables)
    grads = [np.ones(3, "float32"), np.ones(3, "float64")]
    assert optimizer._fused_update(grads, variables, optimizer.learning_rate) is False
    optimizer.apply_gradients(zip(grads, variables))
    assert variables[1].numpy().dtype == np.float64
