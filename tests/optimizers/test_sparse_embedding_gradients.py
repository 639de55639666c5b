"""Embedding tables trained with repeated ids give real Keras's numbers.

Keras on TensorFlow hands optimizers the gradient of a lookup as
`tf.IndexedSlices` (one row per id occurrence); `ops.square`/`ops.abs` act on
those rows before duplicates are summed. Fixtures: real Keras 3.15.1,
`tests/fixtures/optimizers/make_sparse_fixtures.py`.
"""
import json
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.autodiff.indexed_slices import IndexedSlices, slices_of

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "optimizers")
KERAS = np.load(os.path.join(HERE, "sparse_embedding_steps.npz"))
with open(os.path.join(HERE, "sparse_embedding_cases.json")) as f:
    SPEC = json.load(f)
VOCAB, DIM = KERAS["table"].shape
LENGTH = KERAS["ids"].shape[1]


def _build(variant):
    inputs = keras.Input((LENGTH,), dtype="int32")
    regularizer = keras.regularizers.L2(0.01) if variant == "regularized" else None
    embedding = keras.layers.Embedding(VOCAB, DIM, embeddings_regularizer=regularizer)
    x = embedding(inputs)
    if variant == "twice":
        x = keras.layers.Add()([x, embedding(ops.flip(inputs, axis=1))])
    outputs = keras.layers.Dense(1, use_bias=False)(keras.layers.Flatten()(x))
    model = keras.Model(inputs, outputs)
    model.set_weights([KERAS["table"], KERAS["kernel"]])
    return model


@pytest.mark.parametrize("variant", SPEC["variants"])
@pytest.mark.parametrize("case", sorted(SPEC["cases"]))
def test_fit_matches_real_keras(case, variant):
    class_name, kwargs = SPEC["cases"][case]
    model = _build(variant)
    model.compile(optimizer=getattr(keras.optimizers, class_name)(**kwargs), loss="mse")
    model.fit(KERAS["ids"], KERAS["y"], batch_size=4, epochs=1, shuffle=False, verbose=0)
    for i, weight in enumerate(model.get_weights()):
        np.testing.assert_allclose(weight, KERAS[f"{variant}/{case}/{i}"], rtol=1e-5, atol=1e-6,
                                   err_msg=f"weight {i}")


def test_rows_square_before_they_sum():
    rows = IndexedSlices(np.array([[1.0, 2.0], [3.0, 4.0]], "float32"), np.array([1, 1]), (3, 2))
    np.testing.assert_array_equal(rows.dense(), [[0, 0], [4, 6], [0, 0]])
    np.testing.assert_array_equal(rows.dense(np.square), [[0, 0], [10, 20], [0, 0]])


def _lookup_gradient(ids, extra_loss=None):
    table = keras.Variable(np.arange(8.0, dtype="float32").reshape(4, 2))
    weights = np.arange(1.0, 1.0 + 2 * len(ids), dtype="float32").reshape(len(ids), 2)
    with keras.GradientTape() as tape:
        loss = ops.sum(ops.take(table, np.array(ids), axis=0) * weights)
        if extra_loss is not None:
            loss = loss + extra_loss(table)
    return tape.gradient(loss, table)


def test_lookup_gradient_keeps_its_rows():
    gradient = _lookup_gradient([1, -3, 2])   # -3 is row 1
    rows = slices_of(gradient)
    np.testing.assert_array_equal(rows.indices, [1, 1, 2])
    np.testing.assert_array_equal(rows.values, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(ops.convert_to_numpy(gradient), rows.dense())


def test_two_lookups_concatenate_rows_in_forward_order():
    table = keras.Variable(np.zeros((3, 1), "float32"))
    with keras.GradientTape() as tape:
        loss = ops.sum(ops.take(table, np.array([0]), axis=0)) + 2 * ops.sum(
            ops.take(table, np.array([0]), axis=0))
    rows = slices_of(tape.gradient(loss, table))
    np.testing.assert_array_equal(rows.values.ravel(), [1, 2])


def test_a_dense_term_makes_the_gradient_dense():
    gradient = _lookup_gradient([1, 1], extra_loss=lambda t: ops.sum(t * t))
    assert slices_of(gradient) is None
    assert slices_of(_lookup_gradient([1, 1])) is not None


def test_take_along_other_axes_is_dense():
    table = keras.Variable(np.ones((2, 3), "float32"))
    with keras.GradientTape() as tape:
        loss = ops.sum(ops.take(table, np.array([0, 0]), axis=1))
    assert slices_of(tape.gradient(loss, table)) is None


def _tape_steps(optimizer, scale_loss=lambda loss: loss):
    model = _build("single")
    loss_fn = keras.losses.MeanSquaredError()
    for start in range(0, len(KERAS["ids"]), 4):
        with keras.GradientTape() as tape:
            loss = loss_fn(KERAS["y"][start:start + 4], model(KERAS["ids"][start:start + 4]))
            loss = scale_loss(loss)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return model.get_weights()


def test_tape_loop_applies_rows_as_fit_does():
    """A GradientTape loop hands the rows on through `apply_gradients` (fixture: fit)."""
    weights = _tape_steps(keras.optimizers.Adam(learning_rate=0.01))
    np.testing.assert_allclose(weights[0], KERAS["single/adam/0"], rtol=1e-5, atol=1e-6)


def test_loss_scale_optimizer_unscales_the_rows():
    """Keras's LossScaleOptimizer divides IndexedSlices row-wise; the scale is a
    power of two, so the result equals Adam on the unscaled loss (the fixture)."""
    optimizer = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(learning_rate=0.01))
    weights = _tape_steps(optimizer, optimizer.scale_loss)
    np.testing.assert_allclose(weights[0], KERAS["single/adam/0"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["adam", "rmsprop_centered_momentum", "adagrad"])
def test_captured_step_applies_the_rows(case):
    """jit_compile=True replays the rows of each step (no fallback warning)."""
    import warnings
    class_name, kwargs = SPEC["cases"][case]
    model = _build("single")
    model.compile(optimizer=getattr(keras.optimizers, class_name)(**kwargs), loss="mse",
                  jit_compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(KERAS["ids"], KERAS["y"], batch_size=4, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(model.get_weights()[0], KERAS[f"single/{case}/0"],
                               rtol=1e-5, atol=1e-6)
