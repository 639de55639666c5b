"""`kerasish.function`: a captured GradientTape loop equals the eager loop bit for bit."""
import warnings

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops


def _loop(jit_compile, layers, steps=7):
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((6,))] + layers() + [keras.layers.Dense(3)])
    optimizer = keras.optimizers.Adam(1e-2)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    accuracy = keras.metrics.SparseCategoricalAccuracy()

    @keras.function(jit_compile=jit_compile)
    def train_step(x, y):
        with keras.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        accuracy.update_state(y, logits)
        return {"loss": loss, "accuracy": accuracy.result()}
    rng = np.random.default_rng(0)
    outputs = []
    for _ in range(steps):
        x = rng.normal(size=(16, 6)).astype("float32")
        y = rng.integers(0, 3, 16)
        out = train_step(x, y)
        outputs.append((out["loss"].numpy(), out["accuracy"].numpy()))
    return outputs, model, optimizer, train_step


@pytest.mark.parametrize("layers", [
    lambda: [keras.layers.Dense(8, activation="relu")],
    lambda: [keras.layers.Dense(8), keras.layers.Dropout(0.3),
             keras.layers.BatchNormalization(), keras.layers.Activation("relu")],
], ids=["dense", "dropout_batchnorm"])
def test_captured_tape_loop_equals_eager(layers):
    eager_out, eager_model, eager_opt, _ = _loop(False, layers)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, model, opt, step = _loop(True, layers)
    assert step.captured
    for (l1, a1), (l2, a2) in zip(eager_out, out):
        np.testing.assert_array_equal(l1, l2)
        np.testing.assert_array_equal(a1, a2)
    for a, b in zip(eager_model.get_weights() + [v.numpy() for v in eager_opt.variables],
                    model.get_weights() + [v.numpy() for v in opt.variables]):
        np.testing.assert_array_equal(a, b)


def test_python_values_are_part_of_the_signature():
    @keras.function
    def scale(x, factor):
        return ops.multiply(x, factor)
    x = np.ones(3, "float32")
    for _ in range(4):
        np.testing.assert_array_equal(scale(x, 2.0).numpy(), [2.0] * 3)
    np.testing.assert_array_equal(scale(x, 3.0).numpy(), [3.0] * 3)
    assert scale.captured


def test_host_read_runs_eagerly_after_one_warning():
    @keras.function
    def relu_if_positive(x):
        if float(ops.sum(x)) > 0:
            return ops.relu(x)
        return x
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [relu_if_positive(np.array([s, -1.0], "float32")).numpy()
                   for s in (3.0, 3.0, 3.0, -3.0, 3.0)]
    assert sum("cannot be captured" in str(w.message) for w in caught) == 1
    np.testing.assert_array_equal(results[3], [-3.0, -1.0])
    np.testing.assert_array_equal(results[4], [3.0, 0.0])
    assert not relu_if_positive.captured


def test_not_callable():
    with pytest.raises(TypeError, match="expected a callable"):
        keras.function(3)
