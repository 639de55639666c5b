"""`optimizer.variables`: order, paths and `overwrite_with_gradient` gaps as in Keras.

The expected paths were printed by Keras 3.15.1 (TensorFlow backend) for the
same programs (probe11 session, `ovw2.py`): a `Sequential(name="s")` holding a
layer `l` with weights `k` (3, 2), `o` (2,, `overwrite_with_gradient=True`) and
`b` (2,), fitted one epoch with an optimizer named "o"; and optimizers built
directly on `Variable(name="w")` (3, 2) and `Variable(name="b")` (2,).
"""
import numpy as np
import pytest

import kerasish as keras

O = keras.optimizers
FIT_PATHS = {
    "SGD": ["k_momentum", "b_momentum"],
    "Adam": ["k_momentum", "k_velocity", "b_momentum", "b_velocity"],
    "Lamb": ["k_momentum", "k_velocity", "b_momentum", "b_velocity"],
    "Muon": ["k_momentum", "b_momentum", "b_velocity"],
    "ScheduleFreeAdamW": ["k_momentum", "k_velocity", "b_momentum", "b_velocity"],
    "Ftrl": ["k_accumulator", "k_linear", "b_accumulator", "b_linear"],
    "RMSprop": ["k_velocity", "b_velocity", "k_momentum", "b_momentum"],
}
KERAS_FIT_ADAFACTOR = ["o/iteration", "o/learning_rate", "o/k", "o/k", "o/s_l_k_velocity",
                       "o/o", "o/o", "o/b", "o/b", "o/s_l_b_velocity"]
KERAS_FIT_NADAM_TAIL = ["o/s_l_b_momentum", "o/s_l_b_velocity", "o/variable"]
# Built directly (outside the optimizer's name scope), Keras's bare Variables keep bare paths.
KERAS_BUILT_ADAFACTOR = ["o/iteration", "o/learning_rate", "o/w", "o/w", "o/w_velocity",
                         "b", "b", "o/b_velocity"]


class _Layer(keras.layers.Layer):
    def build(self, shape):
        self.k = self.add_weight((shape[-1], 2), initializer="ones", name="k")
        self.o = self.add_weight((2,), initializer="zeros", name="o",
                                 overwrite_with_gradient=True)
        self.b = self.add_weight((2,), initializer="zeros", name="b")

    def call(self, x):
        return keras.ops.matmul(x, self.k) + self.o + self.b


def _fitted_optimizer(cls, **kwargs):
    x = np.arange(12, dtype="float32").reshape(4, 3) / 10
    model = keras.Sequential([keras.Input((3,)), _Layer(name="l")], name="s")
    optimizer = cls(learning_rate=0.1, name="o", **kwargs)
    model.compile(optimizer, "mse")
    model.fit(x, np.ones((4, 2), "float32"), batch_size=2, epochs=1, verbose=0, shuffle=False)
    return optimizer


@pytest.mark.parametrize("name", sorted(FIT_PATHS))
def test_slots_interleave_per_variable_and_skip_overwritten_ones(name):
    kwargs = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    optimizer = _fitted_optimizer(getattr(O, name), **kwargs)
    expected = ["o/iteration", "o/learning_rate"] + ["o/s_l_" + p for p in FIT_PATHS[name]]
    assert [v.path for v in optimizer.variables] == expected


def test_adafactor_and_nadam_bare_variables_in_fit():
    assert [v.path for v in _fitted_optimizer(O.Adafactor).variables] == KERAS_FIT_ADAFACTOR
    nadam = _fitted_optimizer(O.Nadam)
    paths = [v.path for v in nadam.variables]
    assert paths[-3:-1] == KERAS_FIT_NADAM_TAIL[:2]
    # Keras's bare `Variable(1.0)`: an auto-numbered "variable[_N]" inside the scope.
    assert paths[-1] == "o/" + nadam._u_product.name
    assert nadam._u_product.name.startswith("variable")


def test_bare_variables_of_a_direct_build_keep_their_own_paths():
    w = keras.Variable(np.ones((3, 2), "float32"), name="w")
    b = keras.Variable(np.ones((2,), "float32"), name="b")
    adafactor = O.Adafactor(learning_rate=0.1, name="o")
    adafactor.build([w, b])
    assert [v.path for v in adafactor.variables] == KERAS_BUILT_ADAFACTOR
    nadam = O.Nadam(learning_rate=0.1, name="o")
    nadam.build([w, b])
    assert nadam.variables[-1].path == nadam._u_product.name  # e.g. "variable_1", no prefix


def test_ema_skips_overwritten_variables():
    optimizer = _fitted_optimizer(O.SGD, use_ema=True, ema_overwrite_frequency=1)
    averages = optimizer._model_variables_moving_average
    assert [a is None for a in averages] == [False, True, False]


@pytest.mark.parametrize("cls", [O.Adafactor, O.Ftrl])
def test_default_names_are_numbered_per_instance(cls):
    first, second = cls(), cls()
    base = cls.__name__.lower()
    assert first.name.startswith(base) and second.name.startswith(base + "_")
    assert first.name != second.name


def test_loss_scale_optimizer_scopes_the_inner_slots_when_it_builds_them():
    # Keras 3.15.1: LossScaleOptimizer.apply builds the inner optimizer inside its own
    # name scope; a direct build does not.
    x, y = np.ones((4, 3), "float32"), np.ones((4, 2), "float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")], name="s")
    optimizer = O.LossScaleOptimizer(O.Adam(name="a"), name="lso")
    model.compile(optimizer, "mse")
    model.fit(x, y, verbose=0, epochs=1)
    assert [v.path for v in optimizer.variables] == [
        "lso/iteration", "lso/learning_rate", "lso/step_counter", "lso/dynamic_scale",
        "a/iteration", "a/learning_rate", "lso/a/s_d_kernel_momentum",
        "lso/a/s_d_kernel_velocity", "lso/a/s_d_bias_momentum", "lso/a/s_d_bias_velocity"]
    w = keras.Variable(np.ones((3, 2), "float32"), name="w")
    built = O.LossScaleOptimizer(O.Adam(name="n"), name="lso2")
    built.build([w])
    assert [v.path for v in built.variables] == [
        "lso2/iteration", "lso2/learning_rate", "lso2/step_counter", "lso2/dynamic_scale",
        "n/iteration", "n/learning_rate", "n/w_momentum", "n/w_velocity"]


@pytest.mark.parametrize("cls,inner_paths", [
    (O.Adafactor, ["i/w", "i/w", "i/w_velocity", "i/b_velocity"]),
    (O.Nadam, ["i/w_momentum", "i/w_velocity", "i/b_momentum", "i/b_velocity"]),
])
def test_inner_bare_variables_are_untracked_in_a_loss_scale_optimizer(cls, inner_paths):
    # Keras's LossScaleOptimizer.build runs without automatic tracking: the inner
    # optimizer's bare Variables (placeholders, u_product) are not in `variables`.
    # as the Keras probe: Nadam ran on the variables Adafactor had left at 0.999
    start = np.float32(1.0) if cls is O.Adafactor else np.float32(0.9990000128746033)
    w = keras.Variable(np.full((3, 2), start, "float32"), name="w")
    b = keras.Variable(np.full((2,), start, "float32"), name="b")
    optimizer = O.LossScaleOptimizer(cls(name="i"), name="l")
    optimizer.build([w, b])
    assert [v.path for v in optimizer.variables] == [
        "l/iteration", "l/learning_rate", "l/step_counter", "l/dynamic_scale",
        "i/iteration", "i/learning_rate"] + inner_paths
    optimizer.apply([keras.ops.ones((3, 2)), keras.ops.ones((2,))])
    expected = 0.9990000128746033 if cls is O.Adafactor else 0.997940719127655  # Keras
    np.testing.assert_allclose(np.asarray(w), np.full((3, 2), expected), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(b), np.full(2, expected), rtol=1e-6)
