"""`model.summary()` text: compared with what Keras 3.15.1 prints (reference §1.2)."""
import numpy as np
import pytest

from kerasish.utils.summary_utils import (count_params, format_param_count,
                                          format_shape, readable_memory_size,
                                          render_summary, weight_memory_size)


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    """COLUMNS=200, as in the reference runs, so the 88/108 defaults apply."""
    monkeypatch.setenv("COLUMNS", "200")


def _row(name, shape, params, connected_to="-", trainable="-", depth=0):
    return {"name": name, "output_shape": shape, "params": params,
            "connected_to": connected_to, "trainable": trainable,
            "depth": depth}


def _totals(total, trainable, non_trainable=(0, 0), optimizer=None):
    return {"total": total, "trainable": trainable,
            "non_trainable": non_trainable, "optimizer": optimizer}


def _capture(*args, **kwargs):
    calls = []
    render_summary(*args, print_fn=calls.append, **kwargs)
    assert len(calls) == 1
    return calls[0]


CNN_ROWS = [
    _row("conv2d (Conv2D)", "(None, 26, 26, 32)", "320", trainable="Y"),
    _row("max_pooling2d (MaxPooling2D)", "(None, 13, 13, 32)", "0"),
    _row("flatten (Flatten)", "(None, 5408)", "0"),
    _row("dense (Dense)", "(None, 10)", "54,090", trainable="Y"),
]
CNN_TOTALS = _totals((54410, 217640.0), (54410, 217640.0), (0, 0.0))

CNN_TEXT = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ conv2d (Conv2D)                      │ (None, 26, 26, 32)          │             320 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ max_pooling2d (MaxPooling2D)         │ (None, 13, 13, 32)          │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ flatten (Flatten)                    │ (None, 5408)                │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ dense (Dense)                        │ (None, 10)                  │          54,090 │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 54,410 (212.54 KB)
 Trainable params: 54,410 (212.54 KB)
 Non-trainable params: 0 (0.00 B)
"""

EMBEDDING_BUILT_TEXT = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ embedding (Embedding)                │ (None, 10, 64)              │          64,000 │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 64,000 (250.00 KB)
 Trainable params: 64,000 (250.00 KB)
 Non-trainable params: 0 (0.00 B)
"""

EMBEDDING_UNBUILT_TEXT = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ embedding (Embedding)                │ ?                           │     0 (unbuilt) │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""

FUNCTIONAL_ROWS = [
    _row("a (InputLayer)", "(None, 16)", "0"),
    _row("b (InputLayer)", "(None, 8)", "0"),
    _row("dense (Dense)", "(None, 32)", "544", "a[0][0]"),
    _row("dense_1 (Dense)", "(None, 32)", "288", "b[0][0]"),
    _row("concatenate (Concatenate)", "(None, 64)", "0",
         "dense[0][0], dense_1[0][0]"),
    _row("dense_2 (Dense)", "(None, 1)", "65", "concatenate[0][0]"),
]

FUNCTIONAL_TEXT = """\
Model: "functional"
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

SUBCLASSED_CALLED_TEXT = """\
Model: "my_model"
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

SUBCLASSED_UNBUILT_TEXT = """\
Model: "my_model"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓
┃ Layer (type)                         ┃ Output Shape                ┃         Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩
│ dense (Dense)                        │ ?                           │     0 (unbuilt) │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ dropout (Dropout)                    │ ?                           │               0 │
├──────────────────────────────────────┼─────────────────────────────┼─────────────────┤
│ dense_1 (Dense)                      │ ?                           │     0 (unbuilt) │
└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""

# At COLUMNS=80 (a pipe without COLUMNS) the default width is 80 - 4 = 76.
CNN_76_TEXT = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ conv2d (Conv2D)                 │ (None, 26, 26, 32)     │           320 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ max_pooling2d (MaxPooling2D)    │ (None, 13, 13, 32)     │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ flatten (Flatten)               │ (None, 5408)           │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense (Dense)                   │ (None, 10)             │        54,090 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 54,410 (212.54 KB)
 Trainable params: 54,410 (212.54 KB)
 Non-trainable params: 0 (0.00 B)
"""

CNN_65_TEXT = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┓
┃ Layer (type)               ┃ Output Shape        ┃    Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━┩
│ conv2d (Conv2D)            │ (None, 26, 26, 32)  │        320 │
├────────────────────────────┼─────────────────────┼────────────┤
│ max_pooling2d              │ (None, 13, 13, 32)  │          0 │
│ (MaxPooling2D)             │                     │            │
├────────────────────────────┼─────────────────────┼────────────┤
│ flatten (Flatten)          │ (None, 5408)        │          0 │
├────────────────────────────┼─────────────────────┼────────────┤
│ dense (Dense)              │ (None, 10)          │     54,090 │
└────────────────────────────┴─────────────────────┴────────────┘
 Total params: 54,410 (212.54 KB)
 Trainable params: 54,410 (212.54 KB)
 Non-trainable params: 0 (0.00 B)
"""

# show_trainable: width 88 + 12 = 100, so rich shortens the header to
# `Traina…` as it does for Keras. Nested rows carry the `└` prefix.
NESTED_TRAINABLE_TEXT = """\
Model: "nested"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┳━━━━━━━━━┓
┃ Layer (type)                          ┃ Output Shape                  ┃        Param # ┃ Traina… ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━╇━━━━━━━━━┩
│ encoder (Sequential)                  │ (None, 8)                     │            136 │    Y    │
├───────────────────────────────────────┼───────────────────────────────┼────────────────┼─────────┤
│    └ dense (Dense)                    │ (None, 8)                     │            136 │    Y    │
├───────────────────────────────────────┼───────────────────────────────┼────────────────┼─────────┤
│    └ dropout (Dropout)                │ (None, 8)                     │              0 │    -    │
├───────────────────────────────────────┼───────────────────────────────┼────────────────┼─────────┤
│ head (Dense)                          │ (None, 1)                     │              9 │    N    │
└───────────────────────────────────────┴───────────────────────────────┴────────────────┴─────────┘
 Total params: 435 (1.70 KB)
 Trainable params: 136 (544.00 B)
 Non-trainable params: 9 (36.00 B)
 Optimizer params: 290 (1.13 KB)
"""


def test_sequential_cnn_matches_keras():
    text = _capture("sequential", CNN_ROWS, sequential_like=True,
                    totals=CNN_TOTALS)
    assert text == CNN_TEXT


def test_built_embedding_matches_keras():
    rows = [_row("embedding (Embedding)", "(None, 10, 64)", "64,000")]
    totals = _totals((64000, 256000.0), (64000, 256000.0))
    text = _capture("sequential", rows, sequential_like=True, totals=totals)
    assert text == EMBEDDING_BUILT_TEXT


def test_unbuilt_embedding_matches_keras():
    rows = [_row("embedding (Embedding)", "?", "0 (unbuilt)")]
    totals = _totals((0, 0.0), (0, 0.0))
    text = _capture("sequential", rows, sequential_like=True, totals=totals)
    assert text == EMBEDDING_UNBUILT_TEXT


def test_functional_with_connections_matches_keras():
    totals = _totals((897, 3588.0), (897, 3588.0))
    text = _capture("functional", FUNCTIONAL_ROWS, sequential_like=False,
                    totals=totals)
    assert text == FUNCTIONAL_TEXT


def test_subclassed_after_call_matches_keras():
    rows = [_row("dense (Dense)", "(1, 64)", "1,344"),
            _row("dropout (Dropout)", "?", "0"),
            _row("dense_1 (Dense)", "(1, 10)", "650")]
    totals = _totals((1994, 7976.0), (1994, 7976.0))
    text = _capture("my_model", rows, sequential_like=True, totals=totals)
    assert text == SUBCLASSED_CALLED_TEXT


def test_subclassed_before_call_matches_keras():
    rows = [_row("dense (Dense)", "?", "0 (unbuilt)"),
            _row("dropout (Dropout)", "?", "0"),
            _row("dense_1 (Dense)", "?", "0 (unbuilt)")]
    totals = _totals((0, 0.0), (0, 0.0))
    text = _capture("my_model", rows, sequential_like=True, totals=totals)
    assert text == SUBCLASSED_UNBUILT_TEXT


def test_default_width_follows_narrow_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = _capture("sequential", CNN_ROWS, sequential_like=True,
                    totals=CNN_TOTALS)
    assert text == CNN_76_TEXT
    table_lines = text.splitlines()[1:-3]
    assert {len(line) for line in table_lines} == {76}


def test_explicit_line_length_wraps_long_cells():
    text = _capture("sequential", CNN_ROWS, sequential_like=True,
                    totals=CNN_TOTALS, line_length=65)
    assert text == CNN_65_TEXT


def test_explicit_line_length_is_not_capped_by_default_rule(monkeypatch):
    monkeypatch.setenv("COLUMNS", "90")
    text = _capture("sequential", CNN_ROWS, sequential_like=True,
                    totals=CNN_TOTALS, line_length=88)
    assert text == CNN_TEXT


def test_show_trainable_nested_rows_and_optimizer_line():
    rows = [_row("encoder (Sequential)", "(None, 8)", "136", trainable="Y"),
            _row("dense (Dense)", "(None, 8)", "136", trainable="Y", depth=1),
            _row("dropout (Dropout)", "(None, 8)", "0", depth=1),
            _row("head (Dense)", "(None, 1)", "9", trainable="N")]
    totals = _totals((435, 1740.0), (136, 544.0), (9, 36.0), (290, 1160.0))
    text = _capture("nested", rows, sequential_like=True, totals=totals,
                    show_trainable=True)
    assert text == NESTED_TRAINABLE_TEXT


def test_show_trainable_functional_has_full_header():
    totals = _totals((897, 3588.0), (897, 3588.0))
    text = _capture("functional", FUNCTIONAL_ROWS, sequential_like=False,
                    totals=totals, show_trainable=True)
    lines = text.splitlines()
    assert lines[2].endswith("┃ Connected to              ┃ Trainable ┃")
    assert len(lines[1]) == 108 + 12
    assert lines[4].endswith("│ -                         │     -     │")


def test_custom_positions_set_column_ends():
    text = _capture("sequential", CNN_ROWS, sequential_like=True,
                    totals=CNN_TOTALS, line_length=80,
                    positions=[0.5, 0.75, 1.0])
    # Widths 40/20/20 of an 80-wide table, shrunk by rich to fit padding and
    # borders exactly as it does for Keras.
    assert text.splitlines()[2] == (
        "┃ Layer (type)                          ┃ Output Shape     ┃"
        "           Param # ┃")


def test_insufficient_width_raises():
    with pytest.raises(ValueError,
                       match="Insufficient console width to print summary."):
        render_summary("m", CNN_ROWS, sequential_like=True, line_length=8,
                       totals=CNN_TOTALS, print_fn=print)


def test_markup_like_names_are_printed_literally():
    rows = [_row("odd[bold]name (Dense)", "(None, 1)", "2")]
    text = _capture("[red]m", rows, sequential_like=True,
                    totals=_totals((2, 8.0), (2, 8.0)))
    assert text.startswith('Model: "[red]m"\n')
    assert "│ odd[bold]name (Dense)" in text


def test_without_print_fn_prints_plain_text_to_pipe(capsys, monkeypatch):
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    render_summary("sequential", CNN_ROWS, sequential_like=True,
                   totals=CNN_TOTALS)
    assert capsys.readouterr().out == CNN_TEXT


def test_format_param_count():
    assert format_param_count(0) == "0"
    assert format_param_count(54410) == "54,410"
    assert format_param_count(1234567) == "1,234,567"


@pytest.mark.parametrize("size, text", [
    (0, "0.00 B"), (0.125, "0.12 B"), (1023, "1023.00 B"), (1024, "1.00 KB"),
    (217640, "212.54 KB"), (3588.0, "3.50 KB"), (5 * 1024**2, "5.00 MB"),
    (1.5 * 1024**3, "1.50 GB"), (1024**4, "1.00 TB"), (1024**5, "1.00 PB"),
    (2048 * 1024**5, "2.00 PB"),
])
def test_readable_memory_size(size, text):
    assert readable_memory_size(size) == text


@pytest.mark.parametrize("shape, text", [
    ((None, 26, 26, 32), "(None, 26, 26, 32)"),
    ([None, 10], "(None, 10)"),
    ((1, 64), "(1, 64)"),
    ((np.int64(3), None), "(3, None)"),
    ((), "()"),
    (((None, 1),), "(None, 1)"),
    ([(None, 4), (None, 2)], "[(None, 4), (None, 2)]"),
    (((None, 4), [None, 2]), "((None, 4), (None, 2))"),
    ({"a": (None, 1), "b": (None, 2)}, "{a: (None, 1), b: (None, 2)}"),
])
def test_format_shape(shape, text):
    assert format_shape(shape) == text


class _FakeVariable:
    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype


def test_weight_memory_size_counts_bits_per_dtype():
    kernel = np.zeros((5408, 10), dtype="float32")
    weights = [kernel, np.zeros(10, dtype=np.float32), kernel,
               _FakeVariable((4, 4), "float16"),
               _FakeVariable((8,), np.dtype("bool")),
               _FakeVariable((2,), "int64")]
    expected = (54080 + 10) * 4 + 16 * 2 + 1 + 2 * 8
    assert weight_memory_size(weights) == expected


def test_weight_memory_size_rejects_unknown_dtype():
    with pytest.raises(ValueError, match="Invalid dtype"):
        weight_memory_size([_FakeVariable((2,), "not_a_dtype")])


def test_count_params():
    assert count_params([np.zeros((3, 4)), _FakeVariable((4,), "float32")]) == 16
    assert count_params([]) == 0
