"""kerasish.backend.kernels.onednn_math: TensorFlow's float32 softmax (oneDNN's x86
kernels), bit for bit.

Expected values: TensorFlow 2.21 eagerly and inside a `tf.function`, with oneDNN
capped at AVX-512, AVX2 and SSE4.1 (`ONEDNN_MAX_CPU_ISA`), recorded by
tests/fixtures/onednn_softmax/make_onednn_softmax.py on the same inputs.
"""
import importlib
import os
import sys
from fractions import Fraction

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.backend.kernels import onednn_math

softmax_module = importlib.import_module("kerasish.ops.softmax")   # ops.softmax is the function

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "onednn_softmax")
sys.path.insert(0, FIXTURES)
from onednn_softmax_inputs import GRAPH_LENGTHS, LENGTHS, SHAPED, rows, shaped  # noqa: E402

KERNELS = {"avx512_core": (16, True), "avx2": (8, True), "sse41": (4, False)}
RECORDED = {isa: np.load(os.path.join(FIXTURES, f"softmax_{isa}.npz")) for isa in KERNELS}


def _same(got, expected):
    return np.array_equal(got, expected, equal_nan=True) and got.dtype == expected.dtype


@pytest.fixture
def kernel(monkeypatch, request):
    """Runs the public ops as if on a CPU whose oneDNN picks `request.param`'s kernel."""
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS[request.param])
    return request.param


@pytest.mark.parametrize("isa", sorted(KERNELS))
@pytest.mark.parametrize("n", LENGTHS)
def test_rows_are_tensorflows(isa, n):
    got = onednn_math.rows_softmax(rows(n), *KERNELS[isa])
    assert _same(got, RECORDED[isa][f"rows_{n}"]), np.argwhere(got != RECORDED[isa][f"rows_{n}"])[:4]
    if n in GRAPH_LENGTHS:
        assert _same(got, RECORDED[isa][f"rows_graph_{n}"])


def test_the_three_kernels_differ_so_each_is_tested():
    recorded = [RECORDED[isa]["rows_1000"] for isa in KERNELS]
    assert not _same(recorded[0], recorded[1]) and not _same(recorded[1], recorded[2])


def test_numpys_formula_differs_so_the_values_are_tested():
    x = rows(1000)[:2]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert not _same(e / e.sum(axis=1, keepdims=True), RECORDED["avx512_core"]["rows_1000"][:2])


@pytest.mark.parametrize("kernel", sorted(KERNELS), indirect=True)
@pytest.mark.parametrize("case", range(len(SHAPED)))
def test_ranks_axes_and_axis_tuples_through_ops_softmax(kernel, case):
    x, axis = shaped(case)
    got = ops.softmax(x, axis=axis).numpy()
    assert _same(got, RECORDED[kernel][f"shaped_{case}"])


@pytest.mark.parametrize("kernel", ["avx512_core"], indirect=True)
def test_a_dense_softmax_classifier_predicts_kerass_probabilities(kernel):
    recorded = RECORDED[kernel]
    model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(10, activation="softmax")])
    model.set_weights([recorded["dense_kernel"], recorded["dense_bias"]])
    x = np.random.default_rng(7).normal(size=(40, 12)).astype(np.float32)
    assert _same(model.predict(x, verbose=0), recorded["dense_predict"])
    assert _same(keras.layers.Softmax()(rows(17)).numpy(), recorded["rows_17"])


def test_large_softmaxes_keep_numpys_formula(monkeypatch):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS["avx512_core"])
    monkeypatch.setattr(softmax_module, "EXACT_MAX_ELEMENTS", 8)
    x = rows(17)[:1]
    e = np.exp(x - x.max())
    np.testing.assert_array_equal(ops.softmax(x).numpy(), e / e.sum())


def test_gradient_is_unchanged(monkeypatch):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS["avx512_core"])
    x = keras.Variable(rows(10)[:1])
    with keras.GradientTape() as tape:
        y = ops.softmax(x)
        loss = ops.sum(y * np.arange(10, dtype=np.float32))
    grad = tape.gradient(loss, x).numpy()
    p = y.numpy()
    np.testing.assert_allclose(grad, p * (np.arange(10) - (p * np.arange(10)).sum()), rtol=1e-5,
                               atol=1e-7)


def test_other_dtypes_and_off_x86_use_the_formula(monkeypatch):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS["avx2"])
    assert onednn_math.softmax_kernel(np, np.float64) is None
    assert onednn_math.softmax_kernel(np, np.float32) is not None
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: None)
    assert onednn_math.softmax_kernel(np, np.float32) is None


@pytest.mark.parametrize("flags, cap, expected", [
    ({"sse4_1"}, "", (4, False)),
    ({"sse4_1", "avx"}, "", (8, False)),
    ({"sse4_1", "avx", "avx2", "fma"}, "", (8, True)),
    ({"sse4_1", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"}, "", (16, True)),
    ({"sse4_1", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"}, "AVX2",
     (8, True)),
    ({"sse4_1", "avx", "avx2", "fma", "avx512f"}, "", (8, True)),   # AVX-512F alone is not core
    (set(), "", None),
])
def test_kernel_choice_follows_the_cpu_and_onednns_cap(monkeypatch, flags, cap, expected):
    monkeypatch.setattr(onednn_math, "_cpu_flags", lambda: flags)
    monkeypatch.setattr(onednn_math.platform, "machine", lambda: "x86_64")
    onednn_math._cpu_kernel.cache_clear()
    try:
        assert onednn_math._cpu_kernel(cap) == expected
    finally:
        onednn_math._cpu_kernel.cache_clear()


def test_no_kernel_off_x86(monkeypatch):
    monkeypatch.setattr(onednn_math.platform, "machine", lambda: "arm64")
    onednn_math._cpu_kernel.cache_clear()
    try:
        assert onednn_math._cpu_kernel("") is None
    finally:
        onednn_math._cpu_kernel.cache_clear()


def _exact_fma(a, b, c):
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    candidate = np.float32(float(exact))          # within one float of the exact value
    best = min((np.nextafter(candidate, np.float32(-np.inf)), candidate,
                np.nextafter(candidate, np.float32(np.inf))),
               key=lambda v: (abs(Fraction(float(v)) - exact), int(v.view(np.uint32)) & 1))
    return best


def test_fused_multiply_add_is_one_rounding():
    f32 = np.float32
    # the double sum lands exactly halfway and ties to the wrong even neighbour
    a = np.array([f32(2.0 ** -24 * (1 + 2.0 ** -23)), -f32(2.0 ** -24 * (1 + 2.0 ** -23))], f32)
    b = f32(1 - 2.0 ** -23)
    c = np.array([f32(1 + 2.0 ** -23), -f32(1 + 2.0 ** -23)], f32)
    assert (a.astype(np.float64) * b + c).astype(f32)[0] != _exact_fma(a[0], b, c[0])
    got = onednn_math._multiply_add(a, b, c, fused=True)
    assert [float(v) for v in got] == [float(_exact_fma(x, b, y)) for x, y in zip(a, c)]
    rng = np.random.default_rng(0)
    a, b, c = (rng.normal(size=(3, 300)) * [[1], [0.3], [1]]).astype(f32)
    got = onednn_math._multiply_add(a, b, c, fused=True)
    assert all(float(g) == float(_exact_fma(x, y, z)) for g, x, y, z in zip(got, a, b, c))


ELTWISE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "onednn_eltwise")
ELTWISE_RECORDED = {isa: np.load(os.path.join(ELTWISE, f"eltwise_{isa}.npz"))
                    for isa in ("avx512_core", "sse41")}
ACTIVATIONS = ("sigmoid", "tanh", "elu", "silu")


@pytest.mark.parametrize("isa", sorted(ELTWISE_RECORDED))
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_fused_activations_are_tensorflows_on_every_range(monkeypatch, isa, name):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS[isa])
    recorded = ELTWISE_RECORDED[isa]
    got = onednn_math.eltwise_kernel(np, np.float32, name)(recorded["values"])
    assert _same(got, recorded[f"{name}/values"])


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_dense_activation_is_fused_in_predict_and_eager_in_calls(monkeypatch, name):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS["avx512_core"])
    recorded = ELTWISE_RECORDED["avx512_core"]
    model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation=name)])
    model.set_weights([recorded[f"{name}/kernel"], recorded[f"{name}/bias"]])
    assert _same(model.predict(recorded["x"], verbose=0), recorded[f"{name}/predict"])
    assert _same(model(recorded["x"]).numpy(), recorded[f"{name}/eager"])
    assert not _same(recorded[f"{name}/predict"], recorded[f"{name}/eager"])   # Keras's two modes


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_the_ops_themselves_as_dense_activation_are_fused_too(monkeypatch, name):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS["avx512_core"])
    recorded = ELTWISE_RECORDED["avx512_core"]
    model = keras.Sequential([keras.Input((12,)),
                              keras.layers.Dense(16, activation=getattr(ops, name))])
    model.set_weights([recorded[f"{name}/kernel"], recorded[f"{name}/bias"]])
    assert _same(model.predict(recorded["x"], verbose=0), recorded[f"{name}/predict"])


def test_fit_losses_follow_the_fused_sigmoid(monkeypatch):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS["avx512_core"])
    recorded = ELTWISE_RECORDED["avx512_core"]
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="sigmoid"),
                              keras.layers.Dense(3)])
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.set_weights([recorded[f"fit/w{i}"] for i in range(4)])
    history = model.fit(recorded["fit/x"], recorded["fit/y"], batch_size=8, epochs=2,
                        shuffle=False, verbose=0)
    assert history.history["loss"] == recorded["fit/losses"].tolist()


def test_fused_activation_gradients_follow_tensorflows(monkeypatch):
    monkeypatch.setattr(onednn_math, "cpu_kernel", lambda: KERNELS["avx512_core"])
    from kerasish.ops import graph_activations
    x = keras.Variable(np.linspace(-3, 3, 13).astype(np.float32))
    for fn, grad in ((graph_activations.sigmoid, lambda y: y * (1 - y)),
                     (graph_activations.tanh, lambda y: 1 - y * y),
                     (graph_activations.elu, lambda y: np.where(y < 0, y + 1, 1))):
        with keras.GradientTape() as tape:
            y = fn(x)
            total = ops.sum(y)
        g = tape.gradient(total, x).numpy()
        np.testing.assert_allclose(g, grad(y.numpy()), rtol=1e-6)
    with keras.GradientTape() as tape:   # silu is fused only where nothing records
        y = graph_activations.silu(x)
        total = ops.sum(y)
    np.testing.assert_array_equal(y.numpy(), ops.silu(x).numpy())
    assert tape.gradient(total, x) is not None
