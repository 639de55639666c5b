"""An activation applied after a Dense layer inside Keras's compiled functions is
fused into the product as TensorFlow's graph rewrite fuses it; silu's eager
gradient is TensorFlow's. Values recorded from Keras 3.15.1 on TensorFlow 2.21 by
tests/fixtures/graph_fusion/make_graph_fusion.py."""
import os
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish.backend import keras_graph
from kerasish.backend.kernels import onednn_math

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "graph_fusion")
sys.path.insert(0, HERE)
from make_graph_fusion import ACTIVATIONS, inputs, models  # noqa: E402

FIXTURE = np.load(os.path.join(HERE, "graph_fusion.npz"))
needs_onednn = pytest.mark.skipif(onednn_math.cpu_kernel() != (16, True),
                                  reason="recorded with oneDNN's AVX-512 kernels (x86 with AVX-512)")


@needs_onednn
@pytest.mark.parametrize("act", ACTIVATIONS)
def test_activation_after_a_dense_layer_is_fused_in_predict(act):
    x, _, _ = inputs()
    sequential, functional = models(keras, act)
    np.testing.assert_array_equal(sequential.predict(x, verbose=0), FIXTURE[f"{act}_sequential"])
    np.testing.assert_array_equal(functional.predict(x, verbose=0), FIXTURE[f"{act}_functional"])


@needs_onednn
def test_unfused_eager_values_differ_from_the_recorded_ones():
    """Called directly (no compiled step), the same model gives Keras's eager numbers,
    which differ from the recorded fused ones (so the test above can fail)."""
    x, _, _ = inputs()
    sequential, _ = models(keras, "tanh")
    assert not np.array_equal(np.asarray(sequential(x)), FIXTURE["tanh_sequential"])


def test_only_a_dense_output_in_a_compiled_step_fuses():
    dense = keras.layers.Dense(3)
    x = keras.ops.ones((2, 4))
    with keras_graph.compiled_step():
        out = dense(x)
        assert keras_graph.fused_activation("tanh", out) is not None
        assert keras_graph.fused_activation("tanh", keras.ops.add(out, 0.0)) is None
    assert keras_graph.fused_activation("tanh", out) is None   # outside the step


def test_silu_gradient_is_tensorflows():
    _, h, w = inputs()
    h_var = keras.Variable(h)
    with keras.GradientTape() as tape:
        loss = keras.ops.sum(keras.ops.multiply(keras.activations.silu(h_var), w))
    np.testing.assert_array_equal(np.asarray(tape.gradient(loss, h_var)), FIXTURE["silu_gradient"])


def test_silu_gradient_matches_finite_differences_in_float64():
    x = keras.Variable(np.linspace(-4, 4, 9))
    with keras.GradientTape() as tape:
        y = keras.ops.sum(keras.ops.silu(x))
    grad = np.asarray(tape.gradient(y, x))
    v, eps = np.linspace(-4, 4, 9), 1e-6
    silu = lambda t: t / (1 + np.exp(-t))   # noqa: E731
    np.testing.assert_allclose(grad, (silu(v + eps) - silu(v - eps)) / (2 * eps), rtol=1e-7)


def test_silu_second_derivative_matches_finite_differences_in_float64():
    x = keras.Variable(np.linspace(-4, 4, 9))
    with keras.GradientTape() as outer:
        with keras.GradientTape() as inner:
            y = keras.ops.sum(keras.ops.silu(x))
        first = keras.ops.sum(inner.gradient(y, x))
    second = np.asarray(outer.gradient(first, x))
    v, eps = np.linspace(-4, 4, 9), 1e-4
    silu = lambda t: t / (1 + np.exp(-t))   # noqa: E731
    expected = (silu(v + eps) - 2 * silu(v) + silu(v - eps)) / eps ** 2
    np.testing.assert_allclose(second, expected, rtol=1e-5, atol=1e-7)
