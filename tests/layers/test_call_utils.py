"""What Layer.__call__ reads off a call: the `call` signature and the input masks."""
import numpy as np

from kerasish import layers, ops
from kerasish.layers.call_utils import call_signature, get_mask


class _Plain(layers.Layer):
    def call(self, x):
        return x


class _Masked(layers.Layer):
    def call(self, inputs, mask=None, training=False):
        return inputs


class _Kwargs(layers.Layer):
    def call(self, x, **kwargs):
        return x


def test_call_signature_reads_first_argument_training_and_mask():
    plain, masked, kwargs = call_signature(_Plain), call_signature(_Masked), call_signature(_Kwargs)
    assert (plain.first, plain.has_training, plain.has_mask) == ("x", False, False)
    assert (masked.first, masked.has_training, masked.has_mask) == ("inputs", True, True)
    assert masked.training_default is False and plain.training_default is None
    # as Keras's `_call_has_training_arg`: `**kwargs` does not take `training`
    assert not kwargs.has_training and not kwargs.has_mask
    assert call_signature(_Plain) is plain               # cached per class


def test_get_mask_of_tensors_and_lists():
    x = ops.convert_to_tensor(np.ones((2, 3)))
    assert get_mask(x) is None and get_mask([x, x]) is None and get_mask(np.ones(2)) is None
    masked = ops.convert_to_tensor(np.ones((2, 3)))
    masked._keras_mask = ops.convert_to_tensor(np.array([[True, False, True]] * 2))
    assert get_mask(masked) is masked._keras_mask
    assert get_mask([x, masked]) == [None, masked._keras_mask]
