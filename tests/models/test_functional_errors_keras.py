"""Functional-model construction errors in Keras 3.15.1's words."""
import pytest

import kerasish as keras


def test_empty_outputs_refused_as_keras():
    inp = keras.Input((4,), name="feat")
    with pytest.raises(ValueError) as info:
        keras.Model(inputs=inp, outputs=[])
    # the text Keras 3.15.1 prints for this call
    assert str(info.value) == (
        "`outputs` argument cannot be empty. Received:\n"
        "inputs=<KerasTensor shape=(None, 4), dtype=float32, sparse=False, ragged=False, "
        "name=feat>\noutputs=[]")
