"""InputLayer and `keras.Input`: the entry points of a functional graph."""
from kerasish.backend import config
from kerasish.layers.keras_tensor import KerasTensor, Node
from kerasish.layers.layer import Layer


class InputLayer(Layer):
    """The layer behind `keras.Input`: holds the graph's input KerasTensor.

    Args:
        shape: shape without the batch axis.
        batch_size: optional fixed batch size.
        dtype: input dtype (floatx by default).
        batch_shape: full shape including the batch axis (instead of shape).
        input_tensor: an existing KerasTensor to wrap.
        name: layer name ("input_layer", "input_layer_1", ... by default).

    Example:
        >>> layer = keras.layers.InputLayer(shape=(784,))
        >>> layer.output.shape
        (None, 784)
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None,
                 batch_shape=None, input_tensor=None, optional=False, name=None, ragged=None,
                 **kwargs):
        if "input_shape" in kwargs:
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        super().__init__(name=name, **kwargs)
        if shape is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
        for value in (shape, batch_shape):   # Keras's standardize_shape: 4 is no shape
            if value is not None and not hasattr(value, "__iter__"):
                raise ValueError(f"Cannot convert '{value}' to a shape.")
        if input_tensor is not None:
            batch_shape = input_tensor.shape
        elif batch_shape is None:
            if shape is None:
                raise ValueError("You must pass a `shape` argument.")
            batch_shape = (batch_size,) + tuple(shape)
        self._batch_shape = tuple(batch_shape)
        self._input_dtype = config.standardize_dtype(dtype)
        self.sparse = bool(sparse)
        if ragged:
            raise ValueError("`ragged=True` is not supported by kerasish (numpy arrays are dense).")
        self.ragged = False
        self.optional = optional
        self._build_at_init()
        # The tensor takes the user's name, else its own "keras_tensor_N" (as in Keras).
        tensor = input_tensor or KerasTensor(self._batch_shape, self._input_dtype,
                                             sparse=self.sparse, name=name)
        Node(self, (), {}, tensor)
        self._input_tensor = tensor

    @property
    def batch_shape(self):
        return self._batch_shape

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": tuple(self._batch_shape), "dtype": self._input_dtype,
                "sparse": self.sparse, "ragged": False, "name": self.name,
                "optional": self.optional}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None,
          name=None, tensor=None, optional=False):
    """Creates a symbolic input for a functional model or Sequential.

    Args:
        shape: shape tuple without the batch axis, e.g. `(784,)`; None for
            unknown sizes (e.g. `(None,)` for variable-length sequences).
        batch_size: optional static batch size.
        dtype: dtype of the inputs (floatx by default).
        batch_shape: full shape including the batch axis.
        name: optional name.

    Returns:
        KerasTensor.

    Example:
        >>> x = keras.Input(shape=(28, 28, 1))
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       batch_shape=batch_shape, name=name, input_tensor=tensor,
                       optional=optional, ragged=ragged)
    return layer.output
