"""The train/test/predict steps pass `training` only to a `call` that takes it, as Keras.

Keras 3.15.1's steps call `self(x, training=True)` only when the model's `call`
has a `training` argument; otherwise `self(x)`, and the inner Dropout keeps its
default (inference) during `fit`. Expected values: this program under Keras
3.15.1 (TF backend, CPU), probe12 session (tr8.py).
"""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.trainers.training_arg import training_kwargs


class _NoTrainingArg(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.d1 = layers.Dense(4, activation="relu")
        self.dr = layers.Dropout(0.5)
        self.d2 = layers.Dense(3, activation="softmax")

    def call(self, x):
        return self.d2(self.dr(self.d1(x)))


class _WithTrainingArg(_NoTrainingArg):
    def call(self, x, training=None):
        return self.d2(self.dr(self.d1(x), training=training))


def _fit(cls, **compile_kwargs):
    rng = np.random.RandomState(0)
    x = rng.rand(64, 8).astype("float32")
    y = rng.randint(0, 3, 64)
    keras.utils.set_random_seed(5)
    model = cls()
    model.compile(optimizer=keras.optimizers.SGD(0.0),
                  loss=keras.losses.SparseCategoricalCrossentropy(), **compile_kwargs)
    history = model.fit(x, y, epochs=2, batch_size=32, verbose=0, shuffle=False).history
    return history["loss"], model.non_trainable_variables[0].numpy().tolist()


@pytest.mark.parametrize("compile_kwargs", [{}, {"run_eagerly": True},
                                            {"steps_per_execution": 2}])
def test_without_a_training_argument_dropout_stays_off_in_fit(compile_kwargs):
    loss, seed_state = _fit(_NoTrainingArg, **compile_kwargs)
    np.testing.assert_allclose(loss, [1.1710879802703857, 1.1710879802703857], rtol=1e-6)
    assert seed_state == [274281999, 0]   # the Dropout never drew


def test_with_a_training_argument_dropout_draws_in_fit():
    loss, seed_state = _fit(_WithTrainingArg)
    np.testing.assert_allclose(loss, [1.193178653717041, 1.1990680694580078], rtol=1e-6)
    assert seed_state == [274281999, 4]


def test_training_kwargs_reads_the_call_signature():
    assert training_kwargs(_WithTrainingArg(), True) == {"training": True}
    assert training_kwargs(_NoTrainingArg(), True) == {}
    assert training_kwargs(keras.Sequential([layers.Dense(1)]), False) == {"training": False}


def test_training_kwargs_follows_a_call_replaced_on_the_instance():
    model = _NoTrainingArg()
    assert training_kwargs(model, True) == {}
    model.call = lambda x, training=None: x            # an instance attribute: not bound
    assert training_kwargs(model, True) == {"training": True}
    model.call = lambda training, *args: training      # `training` first, not a `self`
    assert training_kwargs(model, False) == {"training": False}
    model.call = lambda *args, **kwargs: args           # no named `training`: Keras passes none
    assert training_kwargs(model, True) == {}
