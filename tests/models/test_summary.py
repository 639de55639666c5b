"""model.summary() against the exact texts Keras 3.15.1 prints (shared/reference/keras.md §1.2)."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers

FUNCTIONAL = """Model: "functional"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                  ┃ Output Shape              ┃         Param # ┃ Connected to               ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩
│ a (InputLayer)                │ (None, 16)                │               0 │ -                          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ b (InputLayer)                │ (None, 8)                 │               0 │ -                          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ dense (Dense)                 │ (None, 32)                │             544 │ a[0][0]                    │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ dense_1 (Dense)               │ (None, 32)                │             288 │ b[0][0]                    │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ concatenate (Concatenate)     │ (None, 64)                │               0 │ dense[0][0], dense_1[0][0] │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ dense_2 (Dense)               │ (None, 1)                 │              65 │ concatenate[0][0]          │
└───────────────────────────────┴───────────────────────────┴─────────────────┴────────────────────────────┘
 Total params: 897 (3.50 KB)
 Trainable params: 897 (3.50 KB)
 Non-trainable params: 0 (0.00 B)
"""

SUBCLASSED = """Model: "my_model"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ dense (Dense)                        │ (1, 64)                     │           1,344 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ dropout (Dropout)                    │ ?                           │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ dense_1 (Dense)                      │ (1, 10)                     │             650 │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 1,994 (7.79 KB)
 Trainable params: 1,994 (7.79 KB)
 Non-trainable params: 0 (0.00 B)
"""


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def capture(model, **kwargs):
    out = []
    model.summary(print_fn=out.append, **kwargs)
    assert len(out) == 1
    return out[0]


def test_functional_two_inputs():
    a = keras.Input((16,), name="a")
    b = keras.Input((8,), name="b")
    x = layers.Dense(32, activation="relu")(a)
    y = layers.Dense(32, activation="relu")(b)
    model = keras.Model([a, b], layers.Dense(1)(layers.Concatenate()([x, y])))
    assert capture(model) == FUNCTIONAL


class MyModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = layers.Dense(64, activation="relu")
        self.dr = layers.Dropout(0.5)
        self.d2 = layers.Dense(10)

    def call(self, x, training=None):
        return self.d2(self.dr(self.d1(x), training=training))


def test_subclassed_after_eager_call():
    model = MyModel()
    model(np.zeros((1, 20)))
    assert capture(model) == SUBCLASSED


def test_subclassed_before_any_call_is_unbuilt():
    text = capture(MyModel())
    assert "│ dense (Dense)                        │ ?                           │     0 (unbuilt) │" in text
    assert " Total params: 0 (0.00 B)\n" in text


def test_optimizer_params_appear_once_built():
    model = keras.Sequential([keras.Input((4,)), layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((8, 4)), np.ones((8, 2)), verbose=0)
    text = capture(model)
    assert " Optimizer params: 22 (" in text
    assert " Total params: 32 (" in text
