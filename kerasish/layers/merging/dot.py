"""Dot: the dot product of two tensors along given axes."""
from kerasish import ops
from kerasish.layers.layer import Layer


class Dot(Layer):
    """Batch dot product of two inputs along `axes` (optionally L2-normalised).

    Args:
        axes: int or pair of ints (axes of each input, batch axis excluded).
        normalize: L2-normalise both inputs first (cosine similarity).

    Example:
        >>> keras.layers.Dot(axes=1)([np.ones((2, 3)), np.ones((2, 3))]).shape
        (2, 1)
    """

    _output_shape_known = True  # Keras implements compute_output_shape; kerasish traces `call`

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes = axes
        self.normalize = normalize

    def _axes(self, a_ndim, b_ndim):
        axes = self.axes if isinstance(self.axes, (list, tuple)) else (self.axes, self.axes)
        return axes[0] % a_ndim, axes[1] % b_ndim

    def call(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs; got {len(inputs)}.")
        a, b = inputs
        ax_a, ax_b = self._axes(a.ndim, b.ndim)
        if self.normalize:
            a = ops.normalize(a, axis=ax_a)
            b = ops.normalize(b, axis=ax_b)
        a = ops.moveaxis(a, ax_a, -1)
        b = ops.moveaxis(b, ax_b, 1)
        a3 = ops.reshape(a, (a.shape[0], -1, a.shape[-1]))
        b3 = ops.reshape(b, (b.shape[0], b.shape[1], -1))
        out = ops.matmul(a3, b3)
        shape = (a.shape[0],) + a.shape[1:-1] + b.shape[2:]
        if len(shape) == 1:
            shape = shape + (1,)
        return ops.reshape(out, shape)

    def compute_mask(self, inputs, previous_mask=None):
        """Accepts masked inputs (as Keras's Dot) but outputs no mask."""
        return None

    def get_config(self):
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """Functional interface to `Dot`: the dot product of two inputs along `axes`."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
