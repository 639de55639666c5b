"""The build config of preprocessing layers that Keras builds at their first call."""
from kerasish.autodiff.tensor import Tensor
from kerasish.layers.keras_tensor import KerasTensor


class BuiltAtFirstCall:
    """Mixin: the build config is the first call's input shape, as in Keras, and
    None when that first call got an array rather than a tensor (Keras records
    no input shape then).

    Example:
        >>> layer = keras.layers.CategoryEncoding(3)
        >>> _ = layer(keras.ops.convert_to_tensor([0, 2]))
        >>> layer.get_build_config()
        {'input_shape': (2,)}
    """

    def get_build_config(self):
        """Keras's build config: the first call's input shape (None for an array).

        Returns:
            dict, or None before the first call.
        """
        return {"input_shape": self._build_shapes} if self.built else None

    def __call__(self, inputs, *args, **kwargs):
        array_build = not self.built and not isinstance(inputs, (Tensor, KerasTensor))
        outputs = super().__call__(self._call_inputs(inputs), *args, **kwargs)
        if array_build:
            self._build_shapes = None
        return outputs

    def _call_inputs(self, inputs):
        """What `Layer.__call__` gets (a subclass may convert its inputs first)."""
        return inputs
