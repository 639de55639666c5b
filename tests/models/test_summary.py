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
    assert " Optimizer params: 22 (92.00 B)" in text  # Keras 3.15.1: int64 iteration
    assert " Total params: 32 (" in text


# --- Exact texts printed by Keras 3.15.1 for guide-style models (fresh session each) ---------

def _capture(model, **kwargs):
    lines = []
    model.summary(print_fn=lambda s, **k: lines.append(s), **kwargs)
    return "".join(lines)


MASKED_TEXT = """Model: "functional"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                  ┃ Output Shape              ┃         Param # ┃ Connected to               ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩
│ input_layer (InputLayer)      │ (None, None)              │               0 │ -                          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ embedding (Embedding)         │ (None, None, 4)           │             200 │ input_layer[0][0]          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ dense (Dense)                 │ (None, None, 3)           │              15 │ embedding[0][0]            │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ not_equal (NotEqual)          │ (None, None)              │               0 │ input_layer[0][0]          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ lstm (LSTM)                   │ (None, 2)                 │              48 │ dense[0][0],               │
│                               │                           │                 │ not_equal[0][0]            │
└───────────────────────────────┴───────────────────────────┴─────────────────┴────────────────────────────┘
 Total params: 263 (1.03 KB)
 Trainable params: 263 (1.03 KB)
 Non-trainable params: 0 (0.00 B)
"""

FEATURE_EXTRACTOR_TEXT = """Model: "functional_1"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ input_layer (InputLayer)             │ (None, 8, 8, 3)             │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ conv2d (Conv2D)                      │ (None, 6, 6, 4)             │             112 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ conv2d_1 (Conv2D)                    │ (None, 4, 4, 4)             │             148 │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 260 (1.02 KB)
 Trainable params: 260 (1.02 KB)
 Non-trainable params: 0 (0.00 B)
"""

SUBCLASSED_TEXT = """Model: "net"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ block (Block)                        │ ?                           │              24 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ dense_1 (Dense)                      │ (3, 2)                      │              10 │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 34 (136.00 B)
 Trainable params: 34 (136.00 B)
 Non-trainable params: 0 (0.00 B)
"""

OPS_TEXT = """Model: "functional"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ i (InputLayer)                       │ (None, 3)                   │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ multiply (Multiply)                  │ (None, 3)                   │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ add (Add)                            │ (None, 3)                   │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ sum (Sum)                            │ (None, 1)                   │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ dense (Dense)                        │ (None, 2)                   │               4 │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 4 (16.00 B)
 Trainable params: 4 (16.00 B)
 Non-trainable params: 0 (0.00 B)
"""

NESTED_TEXT = """Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┳━━━━━━━━━┓
┃ Layer (type)                          ┃ Output Shape                  ┃        Param # ┃ Traina… ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━╇━━━━━━━━━┩
│ base (Sequential)                     │ (None, 4)                     │             36 │    N    │
├───────────────────────────────────────┼───────────────────────────────┼────────────────┼─────────┤
│ dense_1 (Dense)                       │ (None, 3)                     │             15 │    Y    │
└───────────────────────────────────────┴───────────────────────────────┴────────────────┴─────────┘
 Total params: 51 (204.00 B)
 Trainable params: 15 (60.00 B)
 Non-trainable params: 36 (144.00 B)
"""

MASKING_TEXT = """Model: "functional"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                  ┃ Output Shape              ┃         Param # ┃ Connected to               ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩
│ input_layer (InputLayer)      │ (None, None, 3)           │               0 │ -                          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ not_equal (NotEqual)          │ (None, None, 3)           │               0 │ input_layer[0][0]          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ masking (Masking)             │ (None, None, 3)           │               0 │ input_layer[0][0]          │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ any (Any)                     │ (None, None)              │               0 │ not_equal[0][0]            │
├───────────────────────────────┼───────────────────────────┼─────────────────┼────────────────────────────┤
│ gru (GRU)                     │ (None, 2)                 │              42 │ masking[0][0], any[0][0]   │
└───────────────────────────────┴───────────────────────────┴─────────────────┴────────────────────────────┘
 Total params: 42 (168.00 B)
 Trainable params: 42 (168.00 B)
 Non-trainable params: 0 (0.00 B)
"""



def test_masked_functional_model_lists_the_mask_op():
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=50, output_dim=4, mask_zero=True)(inputs)
    x = layers.Dense(3)(x)
    assert _capture(keras.Model(inputs, layers.LSTM(2)(x))) == MASKED_TEXT


def test_masking_layer_mask_ops():
    inputs = keras.Input((None, 3))
    outputs = layers.GRU(2)(layers.Masking()(inputs))
    assert _capture(keras.Model(inputs, outputs)) == MASKING_TEXT


def test_multi_output_chain_is_sequential_like():
    initial = keras.Sequential([keras.Input(shape=(8, 8, 3)), layers.Conv2D(4, 3, activation="relu"),
                                layers.Conv2D(4, 3, activation="relu")])
    extractor = keras.Model(inputs=initial.inputs, outputs=[l.output for l in initial.layers])
    assert _capture(extractor) == FEATURE_EXTRACTOR_TEXT


def test_subclassed_model_shows_unknown_shapes_for_custom_layers():
    class Block(layers.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.d = layers.Dense(4)

        def call(self, x):
            return self.d(x)

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.out = layers.Dense(2)

        def call(self, x):
            return self.out(self.block(x))

    net = Net()
    net(np.ones((3, 5), "float32"))
    assert _capture(net) == SUBCLASSED_TEXT


def test_ops_are_summary_rows():
    from kerasish import ops
    i = keras.Input((3,), name="i")
    o = ops.sum(i * 2.0 + 1.0, axis=1, keepdims=True)
    assert _capture(keras.Model(i, layers.Dense(2)(o))) == OPS_TEXT


def test_nested_frozen_sequential():
    base = keras.Sequential([keras.Input((8,)), layers.Dense(4)], name="base")
    base.trainable = False
    model = keras.Sequential([base, layers.Dense(3)])
    assert _capture(model, show_trainable=True) == NESTED_TEXT


def _cells(text, name):
    """The stripped cells of the first table line whose first cell starts with `name`."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and cells[0].startswith(name):
            return cells
    raise AssertionError(f"no row {name!r} in\n{text}")


def test_nested_rows_of_a_graph_show_no_connections():
    # Keras 3.15.1 prints "-" in "Connected to" for every expanded nested layer
    # (their calls are not nodes of the outer graph).
    inner_in = keras.Input((8,), name="inner_in")
    inner = keras.Model(inner_in, layers.Dense(4, name="inner_d1")(inner_in), name="inner")
    a, b = keras.Input((8,), name="a"), keras.Input((8,), name="b")
    shared = layers.Dense(8, name="shared")
    out = layers.Concatenate(name="cat")([inner(shared(a)), inner(shared(b))])
    text = _capture(keras.Model([a, b], out), expand_nested=True)
    assert _cells(text, "└ inner_in")[3] == "-"
    assert _cells(text, "└ inner_d1")[3] == "-"
    assert _cells(text, "shared (Dense)")[3] == "a[0][0], b[0][0]"


def test_connections_and_layer_range_of_a_layer_shared_by_two_models():
    # Keras 3.15.1: only this model's call of the shared layer is listed
    # ("y[0][0]", not "x[0][0], y[0][0]"), and layer_range bounds are regexes
    # that may come in either order.
    x, y = keras.Input((4,), name="x"), keras.Input((4,), name="y")
    d = layers.Dense(4, name="d_shared")
    keras.Model(x, layers.Dense(2, name="e")(d(x)))
    z = layers.Add(name="add")([d(y), y])
    m2 = keras.Model(y, layers.Dense(3, name="f")(z))
    text = _capture(m2, layer_range=["f", "d_"])
    assert _cells(text, "d_shared (Dense)")[3] == "y[0][0]"
    rows = [line.split("│")[1].strip() for line in text.splitlines()
            if line.startswith("│") and "(" in line.split("│")[1]]
    assert rows == ["d_shared (Dense)", "add (Add)", "f (Dense)"]
    with pytest.raises(ValueError, match="do not match"):
        m2.summary(layer_range=["nope", "f"])


# Printed by Keras 3.15.1 (probe /tmp/probe5/summ1.py, probe5 session): a layer with several
# outputs (return_state, merge_mode=None) lists them in brackets, the node's flat list.
RETURN_STATE_ROWS = """│ lstm (LSTM)         │ [(None, 5, 4),    │        128 │ input_layer[0][0] │
│                     │ (None, 4), (None, │            │                   │
│                     │ 4)]               │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ bi (Bidirectional)  │ [(None, 5, 2),    │         96 │ lstm[0][0]        │
│                     │ (None, 5, 2)]     │            │                   │"""


def test_several_outputs_print_as_a_list_as_keras(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")   # the probe's width (an 80-column terminal)
    keras.backend.clear_session()
    inp = keras.Input((5, 3))
    seq, h, c = layers.LSTM(4, return_state=True, return_sequences=True, name="lstm")(inp)
    both = layers.Bidirectional(layers.GRU(2, return_sequences=True), merge_mode=None,
                                name="bi")(seq)
    last = layers.Bidirectional(layers.GRU(2, return_state=True), name="bs")(seq)
    keras.Model(inp, [h, c, both[0], last[0], last[1]]).summary()
    text = capsys.readouterr().out
    assert RETURN_STATE_ROWS in text


def test_several_outputs_show_the_last_calls_flat_list():
    # Keras 3.15.1 (TensorFlow), /tmp/probe4/sum4.py and mha_b.py: format_layer_shape
    # prints the flattened outputs of the layer's last call as a list (dict
    # outputs in sorted-key order, tuples as lists).
    i = keras.Input((3,))
    inner = keras.Model(i, {"b": layers.Dense(2)(i), "a": layers.Dense(1)(i)}, name="inner")
    j = keras.Input((3,))
    out = inner(j)
    text = _capture(keras.Model(j, layers.Concatenate()([out["a"], out["b"]])), line_length=200)
    assert _cells(text, "inner")[1] == "[(None, 1), (None, 2)]"
    q = keras.Input((4, 6))
    attended = layers.MultiHeadAttention(3, 2, name="mh")(q, q, return_attention_scores=True)
    text = _capture(keras.Model(q, list(attended)), line_length=200)
    assert _cells(text, "mh")[1] == "[(None, 4, 6), (None, 3, 4, 4)]"
    shared = layers.Dense(2, name="sh")
    a, b = keras.Input((3,)), keras.Input((4, 3))
    text = _capture(keras.Model([a, b], [shared(a), shared(b)]), line_length=200)
    assert _cells(text, "sh")[1] == "(None, 4, 2)"


def test_functional_models_inside_a_subclassed_model_show_their_output_shape():
    # Keras 3.15.1 (keras-io triplet-loss Siamese network): a functional model held
    # by a subclassed model shows its `output_shape`, several outputs formatted as
    # one tuple, even when never called; a Sequential without Input shows "?" until
    # called. Kerasish printed "?" for every functional row.
    a = keras.Input((3,))
    single = keras.Model(a, layers.Dense(2)(a))
    pair = keras.Model(a, [layers.Dense(1)(a), a])
    bare = keras.Sequential([layers.Dense(4)])

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.single, self.pair, self.bare = single, pair, bare

        def call(self, x):
            return self.single(x)

    net = Net()
    net(np.ones((2, 3), "float32"))
    text = _capture(net)
    assert _cells(text, single.name + " ")[1] == "(None, 2)"
    assert _cells(text, pair.name + " ")[1] == "((None, 1), (None, 3))"
    assert _cells(text, bare.name + " ")[1] == "?"
