"""ScheduleFreeAdamW built by `fit` starts its `momentum` at zeros, as Keras on TensorFlow.

Keras 3.15.1's graph-mode train step builds an unbuilt optimizer while it is
traced, and the `momentum = copy(variable)` assignment made there never reaches
the slot; with `run_eagerly=True` or an explicit `build` it does. Expected
values printed by Keras 3.15.1 (TensorFlow backend) for the same programs
(probe11 session, `sf.py` / `sf2.py`).
"""
import numpy as np
import pytest

import kerasish as keras

X = np.arange(12, dtype="float32").reshape(4, 3) / 10
Y = np.ones((4, 2), "float32")
X8 = np.arange(24, dtype="float32").reshape(8, 3) / 20
Y8 = np.ones((8, 2), "float32")

GRAPH_LOSSES = [0.5982248783111572, 0.46686890721321106]
GRAPH_WEIGHTS = [[0.0442, 0.0442, 0.05034, 0.05034, 0.25479, 0.25479], [0.27649, 0.27649]]
EAGER_LOSSES = [1.4832253456115723, 0.9937734603881836]      # run_eagerly / built first
EAGER_WEIGHTS = [[0.76142, 0.76142, 0.76325, 0.76325, 0.96475, 0.96475], [-0.0206, -0.0206]]
SMALL_WEIGHTS = [[0.30452, 0.30452, 0.30781, 0.30781, 0.31029, 0.31029], [0.3122, 0.3122]]


def _model(**compile_kwargs):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones")])
    model.compile(keras.optimizers.ScheduleFreeAdamW(learning_rate=0.1), "mse", **compile_kwargs)
    return model


def _check(model, history, losses, weights):
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-6)
    for got, want in zip(model.get_weights(), weights):
        np.testing.assert_allclose(got.ravel(), want, atol=1e-5)


def test_fit_builds_with_zero_momentum():
    model = _model()
    history = model.fit(X, Y, batch_size=2, epochs=2, verbose=0, shuffle=False)
    _check(model, history, GRAPH_LOSSES, GRAPH_WEIGHTS)
    assert not np.any(np.asarray(model.optimizer.variables[-1]) == 0)  # the slots moved


@pytest.mark.parametrize("how", ["run_eagerly", "built_first"])
def test_eager_or_explicit_build_copies_the_weights(how):
    model = _model(run_eagerly=how == "run_eagerly")
    if how == "built_first":
        model.optimizer.build(model.trainable_variables)
    history = model.fit(X, Y, batch_size=2, epochs=2, verbose=0, shuffle=False)
    _check(model, history, EAGER_LOSSES, EAGER_WEIGHTS)


@pytest.mark.parametrize("compile_kwargs", [{"jit_compile": True}, {"steps_per_execution": 2}])
def test_captured_and_multi_step_fit(compile_kwargs):
    model = _model(**compile_kwargs)
    history = model.fit(X8, Y8, batch_size=3, epochs=2, verbose=0, shuffle=False)
    _check(model, history, [0.32258912920951843, 0.20213989913463593], SMALL_WEIGHTS)


def test_train_on_batch_and_loss_scale_optimizer():
    model = _model()
    assert model.train_on_batch(X8[:4], Y8[:4]) == pytest.approx(0.2837499976158142, rel=1e-6)
    assert model.train_on_batch(X8[4:], Y8[4:]) == pytest.approx(1.3539373874664307, rel=1e-6)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones")])
    model.compile(keras.optimizers.LossScaleOptimizer(
        keras.optimizers.ScheduleFreeAdamW(learning_rate=0.1)), "mse")
    history = model.fit(X8, Y8, batch_size=4, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [0.8188437223434448, 0.6492674350738525],
                               rtol=1e-6)
