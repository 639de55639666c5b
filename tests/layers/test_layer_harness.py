"""Every public layer class through `run_layer_test`, with Keras 3.15.1's output shapes,
weight counts and `supports_masking` (tests/fixtures/layer_harness, from real Keras)."""
import inspect
import json
import os

import pytest

import kerasish as keras
from kerasish.testing.layer_test import run_layer_test
from layer_cases import CASES

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "layer_harness",
                       "layer_harness.json")
with open(FIXTURE) as f:
    KERAS = json.load(f)["cases"]

# Public layer classes with no case here, and why (each is tested in its own file).
NOT_IN_HARNESS = {
    "Layer": "the base class",
    "InputLayer": "made by keras.Input, not called on data",
    "Wrapper": "abstract base of Bidirectional/TimeDistributed",
    "Lambda": "wraps a Python function (tests/layers/core)",
    "RNN": "covered through its cell cases (GRUCell-RNN, LSTMCell-RNN, SimpleRNNCell-RNN)",
    "GRUCell": "a cell: run inside RNN (GRUCell-RNN)",
    "LSTMCell": "a cell: run inside RNN (LSTMCell-RNN)",
    "SimpleRNNCell": "a cell: run inside RNN (SimpleRNNCell-RNN)",
    "StackedRNNCells": "a cell container: tests/layers/rnn/test_rnn.py",
    "TextVectorization": "string inputs: tests/layers/preprocessing",
    "StringLookup": "string inputs: tests/layers/preprocessing",
    "SpectralNormalization": "wraps a layer instance: tests/layers/normalization",
    "ReversibleEmbedding": "tied embedding with reverse call: its own tests",
    "Pipeline": "a list of layers: tests/layers/preprocessing",
    "STFTSpectrogram": "audio layer with its own Keras fixtures",
    "MelSpectrogram": "audio layer with its own Keras fixtures",
}
def _public_layer_classes():
    classes = {}
    for name in dir(keras.layers):
        obj = getattr(keras.layers, name)
        if not name.startswith("_") and inspect.isclass(obj) and \
                issubclass(obj, keras.layers.Layer):
            classes.setdefault(obj, name)   # aliases (Conv2D/Convolution2D) count once
    return classes


def test_every_public_layer_has_a_case_or_a_reason():
    covered = {name for _, name, _, _, _ in CASES}
    for cls, name in _public_layer_classes().items():
        names = {n for n in dir(keras.layers) if getattr(keras.layers, n) is cls}
        assert names & (covered | set(NOT_IN_HARNESS)), \
            f"layers.{name} has no run_layer_test case in tests/layers/layer_cases.py"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_layer_against_keras(case):
    case_id, name, kwargs, shape, options = case
    expected = KERAS[case_id]
    shapes, symbolic = expected["output_shapes"], expected["symbolic_output_shapes"]
    run_layer_test(
        getattr(keras.layers, name), kwargs, input_shape=shape,
        input_dtype=options.get("dtype", "float32"), call_kwargs=options.get("call"),
        expected_output_shape=[tuple(s) for s in shapes] if len(shapes) > 1 else tuple(shapes[0]),
        expected_symbolic_output_shape=[tuple(s) for s in symbolic] if len(symbolic) > 1
        else tuple(symbolic[0]),
        expected_num_trainable_weights=expected["trainable"],
        expected_num_non_trainable_weights=expected["non_trainable"],
        supports_masking=expected["supports_masking"],
        run_training_check=not options.get("no_training"),
        # where Keras itself fails under mixed_float16 (a TF kernel without float16)
        # there is nothing to compare with
        run_mixed_precision_check=not options.get("no_mixed") and "mixed_error" not in expected,
        inputs_as_args=options.get("spread", False),
        expected_mixed_output_dtypes=expected.get("mixed_output_dtypes"),
        expected_mixed_weight_dtypes=expected.get("mixed_weight_dtypes"))


def test_the_harness_fails_on_a_wrong_expectation():
    with pytest.raises(AssertionError, match=r"run_layer_test\(Dense\): symbolic output shapes"):
        run_layer_test(keras.layers.Dense, {"units": 3}, input_shape=(2, 4),
                       expected_output_shape=(2, 4), run_training_check=False)
    with pytest.raises(AssertionError, match="1 trainable weights, expected 2"):
        run_layer_test(keras.layers.Dense, {"units": 3, "use_bias": False}, input_shape=(2, 4),
                       expected_num_trainable_weights=2, run_training_check=False)
