"""BaseConv.convolution_op: Keras's hook for subclasses (keras-io "subclassing conv layers").

Expected values: the programs below under Keras 3.15.1 (TF backend, CPU), probe12
session (sc2.py), printed with numpy's default precision.
"""
import numpy as np

import kerasish as keras
from kerasish import layers, ops

X = np.random.RandomState(0).randn(1, 4, 4, 1).astype("float32")


class _Doubled2D(layers.Conv2D):
    def convolution_op(self, inputs, kernel):
        return ops.conv(inputs, kernel * 2, padding="valid", strides=list(self.strides),
                        data_format=self.data_format)


def test_an_overridden_convolution_op_is_used_then_bias_and_activation():
    layer = _Doubled2D(2, 3, activation="relu", kernel_initializer="ones",
                       bias_initializer="ones")
    np.testing.assert_allclose(layer(X).numpy().ravel(), [
        11.869479, 11.869479, 11.900314, 11.900314, 8.236736, 8.236736, 6.459163,
        6.459163], rtol=1e-6)
    negative = _Doubled2D(2, 3, activation="relu", kernel_initializer="ones")
    np.testing.assert_array_equal(negative(-X).numpy(), 0.0)


def test_super_convolution_op_keeps_strides_padding_and_channels_first():
    class Tripled(layers.Conv2D):
        def convolution_op(self, inputs, kernel):
            return super().convolution_op(inputs, kernel * 3)

    layer = Tripled(2, 3, padding="same", strides=2, data_format="channels_first",
                    kernel_initializer="ones", bias_initializer="ones")
    np.testing.assert_allclose(layer(X.transpose(0, 3, 1, 2)).numpy().ravel(), [
        17.304218, 17.850039, 6.3339977, 8.127563, 17.304218, 17.850039, 6.3339977,
        8.127563], rtol=1e-6)


def test_conv1d_ignores_convolution_op_as_keras():
    """Keras's Conv1D.call convolves by itself: the override is never reached."""
    class Doubled1D(layers.Conv1D):
        def convolution_op(self, inputs, kernel):
            return ops.conv(inputs, kernel * 2, padding="valid")

    layer = Doubled1D(2, 3, activation="relu", kernel_initializer="ones")
    np.testing.assert_allclose(layer(X[0]).numpy().ravel(), [
        3.1429477, 3.1429477, 3.6197884, 3.6197884, 1.8403685, 1.8403685, 0.0, 0.0,
        0.45142323, 0.45142323, 2.0089154, 2.0089154, 1.326576, 1.326576, 0.8992126,
        0.8992126], rtol=1e-6)


def test_the_default_convolution_op_is_the_layers_convolution():
    layer = layers.Conv2D(3, 2, strides=2, padding="same", use_bias=False)
    out = layer(X)
    np.testing.assert_allclose(layer.convolution_op(X, layer.kernel).numpy(), out.numpy(),
                               rtol=1e-6)
    assert keras.layers.Conv3D(1, 2).convolution_op is not None
