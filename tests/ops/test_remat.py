"""keras.remat: the same gradients as the plain function (finite differences too), with the
block's intermediates not kept alive, so the peak memory of a deep MLP step is lower."""
import tracemalloc

import numpy as np

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
