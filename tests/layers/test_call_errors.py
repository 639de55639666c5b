"""Errors raised inside a layer's `call` carry Keras 3.15.1's call information."""
import re

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


class _Bad(layers.Layer):
    def call(self, x, training=None):
        raise ValueError("bad thing")


class _KeyErrorLayer(layers.Layer):
    def call(self, x, mask=None):
        return {}["nokey"]


def _message(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


# Texts printed by Keras 3.15.1 (TensorFlow backend) for the same programs.
def test_eager_call_errors_list_the_arguments():
    assert _message(lambda: _Bad()(np.ones((2, 3)), training=True)) == (ValueError, (
        "Exception encountered when calling _Bad.call().\n\n\x1b[1mbad thing\x1b[0m\n\n"
        "Arguments received by _Bad.call():\n"
        "  • x=tf.Tensor(shape=(2, 3), dtype=float32)\n  • training=True"))
    kind, text = _message(lambda: _KeyErrorLayer()(np.ones((1, 2))))
    assert kind is KeyError and text == repr(
        "Exception encountered when calling _KeyErrorLayer.call().\n\n\x1b[1mnokey\x1b[0m\n\n"
        "Arguments received by _KeyErrorLayer.call():\n"
        "  • x=tf.Tensor(shape=(1, 2), dtype=float32)\n  • mask=None")


def test_only_the_innermost_call_reports_and_own_input_checks_are_not_wrapped():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    kind, text = _message(lambda: model.predict(np.ones((2, 5)), verbose=0))
    dense = model.layers[0].name
    assert kind is ValueError and text == (
        "Exception encountered when calling Sequential.call().\n\n\x1b[1mInput 0 with name "
        f"'None' of layer '{dense}' is incompatible with the layer: expected axis -1 of input "
        "shape to have value 3, but received input with shape (2, 5)\x1b[0m\n\n"
        "Arguments received by Sequential.call():\n"
        "  • inputs=tf.Tensor(shape=(2, 5), dtype=float32)\n  • training=False\n"
        "  • mask=None\n  • kwargs=<class 'inspect._empty'>")
    dense = layers.Dense(2)
    dense.build((None, 3))
    assert _message(lambda: dense(np.ones((2, 4))))[1].startswith("Input 0 with name 'None'")


def test_symbolic_call_errors_list_args_and_kwargs():
    inp = keras.Input((3,))
    layer = _Bad()
    kind, text = _message(lambda: layer(inp))
    assert kind is ValueError and text == (
        "Exception encountered when calling _Bad.call().\n\n\x1b[1mCould not automatically "
        f"infer the output shape / dtype of '{layer.name}' (of type _Bad). Either the "
        "`_Bad.call()` method is incorrect, or you need to implement the "
        "`_Bad.compute_output_spec() / compute_output_shape()` method. Error encountered:\n\n"
        "bad thing\x1b[0m\n\nArguments received by _Bad.call():\n"
        f"  • args=({repr(inp)!r},)\n  • kwargs=<class 'inspect._empty'>")


def test_disabled_traceback_filtering_keeps_the_plain_error():
    keras.config.disable_traceback_filtering()
    try:
        assert _message(lambda: _Bad()(np.ones((2, 3)))) == (ValueError, "bad thing")
    finally:
        keras.config.enable_traceback_filtering()


@pytest.mark.parametrize("call", [
    lambda: keras.layers.Dropout(0.1)(keras.Input((4, 3)), mask=keras.Input((4,), dtype="bool")),
    lambda: keras.layers.Dense(2)(np.ones((1, 3)), mask=np.ones((1,), bool)),
    lambda: keras.layers.Dense(2)(keras.Input((3,)), foo=1),
])
def test_an_unexpected_keyword_raises_kerass_binding_error(call):
    """Keras 3.15.1 (probe12 session, em2.py): `__call__` binds the keywords to
    `call`'s signature first, so a keyword `call` does not take (even `mask`, even
    symbolic) raises `TypeError: got an unexpected keyword argument '...'`."""
    with pytest.raises(TypeError) as info:
        call()
    assert re.fullmatch(r"got an unexpected keyword argument '(mask|foo)'", str(info.value))


def test_training_is_dropped_when_call_does_not_take_it():
    out = keras.layers.Dense(2, kernel_initializer="ones")(np.ones((1, 3)), training=True)
    np.testing.assert_allclose(out.numpy(), [[3.0, 3.0]])
