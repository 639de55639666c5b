"""LSTM/GRU/SimpleRNN and their cells: Keras 3.15.1's explicit signatures and configs.

Fixture: tests/fixtures/rnn_signatures/rnn_signatures.json, written by
make_rnn_signatures.py with the Keras oracle interpreter.
"""
import inspect
import json
import pathlib

import numpy as np
import pytest

from kerasish import layers

FIXTURE = pathlib.Path(__file__).parents[2] / "fixtures" / "rnn_signatures" / "rnn_signatures.json"
KERAS = json.loads(FIXTURE.read_text())


def _signature(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return [[p.name, str(p.kind), None if p.default is p.empty else repr(p.default)]
            for p in params]


@pytest.mark.parametrize("name", sorted(KERAS))
def test_signature_equals_keras(name):
    assert _signature(getattr(layers, name)) == KERAS[name]["signature"]


def _round(value):
    return float(f"{value:.6g}") if isinstance(value, float) else value


def _comparable(ours, theirs):
    """Both configs without name/dtype; nested objects by class and the config keys both have.

    (Keras 3.15's GlorotUniform config has `input_axes`/`output_axes`, which
    kerasish's initializers do not take; that is outside these layers.)
    """
    ours, theirs = (json.loads(json.dumps(c, default=list)) for c in (ours, theirs))
    pair = ({}, {})
    for key in set(ours) | set(theirs):
        if key in ("name", "dtype"):
            continue
        a, b = ours.get(key), theirs.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            common = set(a["config"]) & set(b["config"])
            # floats to 6 digits: Keras keeps regularizer factors as float32 (0.00999999977)
            a, b = ((c["class_name"], {k: _round(c["config"][k]) for k in common})
                    for c in (a, b))
        pair[0][key], pair[1][key] = a, b
    return pair


@pytest.mark.parametrize("name, index", [(n, i) for n in sorted(KERAS) for i in range(2)])
def test_get_config_equals_keras(name, index):
    kwargs, expected = KERAS[name]["configs"][index]
    layer = getattr(layers, name)(**kwargs)
    config = layer.get_config()
    assert list(config) == list(expected)
    ours, theirs = _comparable(config, expected)
    assert ours == theirs
    ours, theirs = _comparable(type(layer).from_config(config).get_config(), expected)
    assert ours == theirs


def test_implementation_is_stored_and_changes_only_rounding():
    # Keras orders an LSTM's sums by implementation; inference with 2 follows
    # Keras's order to the bit (tests/ops/test_rnn_keras_order.py).
    x = np.random.default_rng(0).standard_normal((2, 5, 3)).astype("float32")
    outputs = []
    for implementation in (1, 2):
        layer = layers.LSTM(4, implementation=implementation, seed=1,
                            kernel_initializer="ones", recurrent_initializer="zeros")
        assert layer.cell.implementation == implementation
        outputs.append(layer(x).numpy())
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-6, atol=1e-7)
    assert layers.GRUCell(2, implementation=1).implementation == 1


@pytest.mark.parametrize("cls", [layers.LSTM, layers.GRU])
def test_use_cudnn(cls):
    x = np.ones((2, 3, 2), "float32")
    assert cls(3).use_cudnn == "auto"
    assert cls(3, use_cudnn=False)(x).shape == (2, 3)
    with pytest.raises(ValueError, match=r"Expected one of \{'auto', True, False\}. "
                                         r"Received: use_cudnn=yes"):
        cls(3, use_cudnn="yes")
    with pytest.raises(ValueError, match=rf"{cls.__name__} layer .*use_cudnn=True was "
                                         r"specified, but cuDNN is not supported"):
        cls(3, use_cudnn=True)(x)


@pytest.mark.parametrize("cls, argument", [
    (layers.SimpleRNN, "use_cudnn"), (layers.SimpleRNN, "implementation"),
    (layers.SimpleRNNCell, "implementation"), (layers.LSTMCell, "use_cudnn"),
])
def test_arguments_keras_rejects_are_rejected(cls, argument):
    with pytest.raises(ValueError, match=f"Unrecognized keyword arguments passed to "
                                         f"{cls.__name__}: .*{argument}"):
        cls(3, **{argument: 1})
