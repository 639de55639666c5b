"""Rescaling: `inputs * scale + offset`."""
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils
from kerasish import ops


class Rescaling(Layer):
    """Multiplies inputs by `scale` and adds `offset` (in the compute dtype).

    Args:
        scale: float, or a list/array broadcast against the inputs' last axes.
        offset: float, or a list/array like `scale`.

    Example:
        >>> layer = keras.layers.Rescaling(1.0 / 255)
        >>> layer(np.array([[0, 255]], "uint8")).numpy().tolist()
        [[0.0, 1.0]]
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True
        # built at the first call, as in Keras (which records the input shape then)

    def call(self, inputs):
        dtype = self.compute_dtype
        x = ops.cast(inputs, dtype)
        scale = ops.convert_to_tensor(utils.to_host(self.scale), dtype)
        offset = ops.convert_to_tensor(utils.to_host(self.offset), dtype)
        return ops.add(ops.multiply(x, scale), offset)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def compute_output_spec(self, inputs):
        return KerasTensor(tuple(inputs.shape), self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"scale": utils.listify(self.scale), "offset": utils.listify(self.offset)})
        return config
