"""A layer's `trainable` flipped after `compile` takes effect at the next `compile`.

Expected losses come from Keras 3.15.1 (TensorFlow backend) running the same
program (`/tmp` probe `frz2.py` of the probe11 session):

    m.set_weights(w); m.layers[0].trainable = False; m.compile(SGD(0.05, momentum=0.9), "mse")
    h1 = m.fit(x, y, batch_size=16, epochs=2, shuffle=False)
    m.layers[0].trainable = True          # not recompiled: still frozen in Keras
    h2 = m.fit(x, y, batch_size=16, epochs=2, shuffle=False)
    m.compile(SGD(0.05, momentum=0.9), "mse")   # now the first layer trains
    h3 = m.fit(x, y, batch_size=16, epochs=1, shuffle=False)
"""
import numpy as np
import pytest

import kerasish as keras

KERAS_LOSSES = [0.9698302745819092, 0.8715283274650574, 0.9222643971443176, 0.8545381426811218]
KERAS_RECOMPILED_LOSS = 0.8540212512016296


def _data_and_weights():
    rs = np.random.RandomState(0)
    x = rs.randn(50, 4).astype("float32")
    y = rs.randn(50, 1).astype("float32")
    w = [rs.randn(4, 5).astype("float32") * 0.5, np.zeros(5, "float32"),
         rs.randn(5, 1).astype("float32") * 0.5, np.zeros(1, "float32")]
    return x, y, w


def _frozen_model(w, **compile_kwargs):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                              keras.layers.Dense(1)])
    model.set_weights(w)
    model.layers[0].trainable = False
    model.compile(keras.optimizers.SGD(0.05, momentum=0.9), "mse", **compile_kwargs)
    return model


@pytest.mark.parametrize("compile_kwargs", [{}, {"jit_compile": True}, {"steps_per_execution": 2}])
def test_unfreezing_without_recompile_keeps_the_compiled_variables(compile_kwargs):
    x, y, w = _data_and_weights()
    model = _frozen_model(w, **compile_kwargs)
    h1 = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    model.layers[0].trainable = True
    h2 = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h1.history["loss"] + h2.history["loss"], KERAS_LOSSES, rtol=1e-6)
    np.testing.assert_array_equal(model.get_weights()[0], w[0])
    assert len(model.optimizer.variables) == 4

    model.compile(keras.optimizers.SGD(0.05, momentum=0.9), "mse", **compile_kwargs)
    h3 = model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    np.testing.assert_allclose(h3.history["loss"], [KERAS_RECOMPILED_LOSS], rtol=1e-6)
    assert not np.array_equal(model.get_weights()[0], w[0])
    assert len(model.optimizer.variables) == 6


def test_run_eagerly_reads_trainable_weights_every_step():
    # Keras's eager step asks for the new variable, which the optimizer was not built on.
    x, y, w = _data_and_weights()
    model = _frozen_model(w, run_eagerly=True)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    model.layers[0].trainable = True
    with pytest.raises(ValueError, match="Unknown variable"):
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)


def _small_frozen_model():
    rs = np.random.RandomState(0)
    x = rs.randn(16, 4).astype("float32")
    y = rs.randn(16, 1).astype("float32")
    w = [rs.randn(4, 5).astype("float32") * 0.5, np.zeros(5, "float32"),
         rs.randn(5, 1).astype("float32") * 0.5, np.zeros(1, "float32")]
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                              keras.layers.Dense(1)])
    model.set_weights(w)
    model.layers[0].trainable = False
    model.compile(keras.optimizers.SGD(0.05), "mse")
    return model, x, y


def _fit_loss(model, x, y):
    return model.fit(x, y, batch_size=8, verbose=0, shuffle=False).history["loss"][0]


@pytest.mark.parametrize("jit", [False, True])
def test_fit_and_train_on_batch_read_the_variables_separately(jit):
    # Keras 3.15.1 traces fit (an iterator) and train_on_batch (one batch) separately;
    # each reads `trainable_weights` at its first successful step after compile.
    model, x, y = _small_frozen_model()
    if jit:
        model.compile(keras.optimizers.SGD(0.05), "mse", jit_compile=True)
    assert _fit_loss(model, x, y) == pytest.approx(2.7955918312072754, rel=1e-6)
    model.layers[0].trainable = True
    with pytest.raises(ValueError, match="Unknown variable: <Variable path=.*dtype=float32>"):
        model.train_on_batch(x, y)   # its first trace sees the unfrozen layer
    model.layers[0].trainable = False
    assert model.train_on_batch(x, y) == pytest.approx(1.880995273590088, rel=1e-6)
    assert _fit_loss(model, x, y) == pytest.approx(1.6538653373718262, rel=1e-6)
    model.layers[0].trainable = True
    assert _fit_loss(model, x, y) == pytest.approx(1.3001412153244019, rel=1e-6)  # still frozen


def test_train_on_batch_keeps_its_variables_and_fit_reads_them_anew():
    model, x, y = _small_frozen_model()
    assert model.train_on_batch(x, y) == pytest.approx(2.7634530067443848, rel=1e-6)
    assert model.train_on_batch(x, y) == pytest.approx(2.2678871154785156, rel=1e-6)
    model.layers[0].trainable = True
    assert model.train_on_batch(x, y) == pytest.approx(1.918135404586792, rel=1e-6)
    with pytest.raises(ValueError, match="Unknown variable"):
        _fit_loss(model, x, y)
