"""keras.remat: the same gradients as the plain function (finite differences too), with the
block's intermediates not kept alive, so the peak memory of a deep MLP step is lower."""
import tracemalloc

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.testing import check_gradients


def test_gradients_match_plain_and_finite_differences():
    rng = np.random.default_rng(0)
    w1, w2 = rng.normal(size=(5, 8)), rng.normal(size=(8, 3))

    def block(x, a, b):
        return ops.tanh(ops.matmul(ops.tanh(ops.matmul(x, a)), b))

    check_gradients(lambda x, a, b: ops.sum(ops.square(keras.remat(block)(x, a, b))),
                    [rng.normal(size=(4, 5)), w1, w2])


def test_variables_read_inside_get_their_gradients():
    keras.utils.set_random_seed(1)
    d1, d2 = keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(3)
    x = ops.convert_to_tensor(np.random.default_rng(2).normal(size=(4, 5)).astype("float32"))
    d2(d1(x))
    weights = d1.trainable_weights + d2.trainable_weights
    results = []
    for fn in (keras.remat(lambda t: d2(d1(t))), lambda t: d2(d1(t))):
        with keras.GradientTape() as tape:
            tape.watch(x)
            loss = ops.sum(ops.square(fn(x)))
        results.append([g.numpy() for g in tape.gradient(loss, [x] + weights)])
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)


def test_outside_a_tape_it_is_the_plain_function():
    x = ops.ones((2, 2))
    assert np.array_equal(keras.remat(ops.exp)(x).numpy(), ops.exp(x).numpy())


def _peak_bytes(use_remat, depth=12, width=256, batch=256):
    keras.utils.set_random_seed(0)
    layers = [keras.layers.Dense(width, activation="tanh") for _ in range(depth)]
    x = ops.convert_to_tensor(np.ones((batch, width), "float32"))

    def block(t, pair):
        return pair[1](ops.tanh(pair[0](t)))  # intermediates: two activations per pair

    pairs = [layers[i:i + 2] for i in range(0, depth, 2)]
    for pair in pairs:  # build the weights before measuring
        block(x, pair)
    tracemalloc.start()
    with keras.GradientTape() as tape:
        h = x
        for pair in pairs:
            h = (keras.remat(lambda t, p=pair: block(t, p)) if use_remat else
                 (lambda t, p=pair: block(t, p)))(h)
        loss = ops.sum(h)
    grads = tape.gradient(loss, [w for layer in layers for w in layer.trainable_weights])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, [g.numpy() for g in grads]


def test_peak_memory_is_lower_on_a_deep_mlp():
    plain_peak, plain_grads = _peak_bytes(False)
    remat_peak, remat_grads = _peak_bytes(True)
    for a, b in zip(plain_grads, remat_grads):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert remat_peak < 0.8 * plain_peak, (remat_peak, plain_peak)


# --- keras.RematScope: layers created inside a scope rematerialize their calls ---------------



class _Counting(keras.layers.Layer):
    """A layer that counts how often its call runs (twice when rematerialized)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls = 0

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], 3), initializer="glorot_uniform")

    def call(self, x):
        self.calls += 1
        return keras.ops.tanh(keras.ops.matmul(x, self.w))


def _calls_and_gradient(layer, x):
    layer.build(x.shape)
    layer.w.assign(np.linspace(-1, 1, layer.w.shape[0] * 3).reshape(layer.w.shape))
    layer.calls = 0
    with keras.GradientTape() as tape:
        loss = keras.ops.sum(layer(x) ** 2)
    gradient = tape.gradient(loss, layer.w)
    return layer.calls, gradient.numpy()


@pytest.mark.parametrize("mode, kwargs, name, calls", [
    ("full", {}, "a", 2),
    ("list_of_layers", {"layer_names": ["a"]}, "a", 2),
    ("list_of_layers", {"layer_names": ["a"]}, "b", 1),
    ("larger_than", {"output_size_threshold": 5}, "a", 3),   # + the output-spec trace
    ("larger_than", {"output_size_threshold": 100}, "a", 2),  # trace only, no remat
    (None, {}, "a", 1),
])
def test_remat_scope_modes_recompute_only_what_they_select(mode, kwargs, name, calls):
    x = np.random.default_rng(0).random((2, 4)).astype("float32")
    reference = _calls_and_gradient(_Counting(name="plain"), x)
    with keras.RematScope(mode=mode, **kwargs):
        layer = _Counting(name=name)
    got_calls, gradient = _calls_and_gradient(layer, x)
    assert got_calls == calls
    np.testing.assert_allclose(gradient, reference[1], rtol=1e-6)


def test_remat_scope_activations_mode_recomputes_the_activation_only():
    activations = []

    def activation(t):
        activations.append(1)
        return keras.ops.relu(t)

    with keras.RematScope(mode="activations"):
        dense = keras.layers.Dense(3, activation=activation)
    x = np.random.default_rng(1).random((2, 4)).astype("float32")
    dense.build(x.shape)
    with keras.GradientTape() as tape:
        loss = keras.ops.sum(dense(x))
    tape.gradient(loss, dense.kernel)
    assert len(activations) == 2 and dense.activation is activation


def test_the_scope_at_creation_counts_not_at_call_and_scopes_nest():
    outside = _Counting()
    with keras.RematScope(mode="full") as scope:
        assert _remat_mode_name() == "full"
        with keras.RematScope(mode="larger_than", output_size_threshold=7):
            assert _remat_mode_name() == "larger_than"
        assert _remat_mode_name() == "full" and scope.layer_names == []
        x = np.ones((1, 4), "float32")
        assert _calls_and_gradient(outside, x)[0] == 1
    assert _remat_mode_name() is None
    with pytest.raises(ValueError, match="Invalid mode 'sometimes'"):
        keras.RematScope(mode="sometimes")


def _remat_mode_name():
    from kerasish.ops.remat import get_current_remat_mode
    mode = get_current_remat_mode()
    return None if mode is None else mode.mode
