"""Softmax layer, with optional mask."""
from kerasish import ops
from kerasish.layers.layer import Layer


class Softmax(Layer):
    """Softmax over `axis`; masked positions (mask False) get probability 0 (a fully
    masked row gives zeros, as in Keras 3.15; a non-bool mask keeps values > 0.5).

    Args:
        axis: int or tuple of ints, the normalisation axis (default -1).

    Example:
        >>> keras.layers.Softmax()(np.array([1.0, 1.0]))   # [0.5, 0.5]
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, mask=None):
        if mask is not None:
            mask = self._check_mask(inputs, ops.convert_to_tensor(mask))
            big = -3e4 if inputs.dtype == "float16" else -1e9
            inputs = ops.where(mask, inputs, big)
        if isinstance(self.axis, (tuple, list)) and len(self.axis) > 1:
            outputs = ops.exp(inputs - ops.logsumexp(inputs, axis=tuple(self.axis), keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
            outputs = ops.softmax(inputs, axis=axis)
        if mask is not None:  # as Keras: a fully masked row gives zeros, not a uniform row
            outputs = ops.where(mask, outputs, 0.0)
        return outputs

    def _check_mask(self, inputs, mask):
        # Keras's two messages (it checks only on tensors: a symbolic call uses
        # `compute_output_shape`)
        if mask.ndim > inputs.ndim:
            raise ValueError(
                "The `mask` must be broadcastable to `inputs` and must not have more "
                f"dimensions. Received: inputs.shape={inputs.shape}, mask.shape={mask.shape}")
        for m_dim, i_dim in zip(mask.shape[::-1], inputs.shape[::-1]):
            if m_dim is not None and i_dim is not None and m_dim != 1 and m_dim != i_dim:
                raise ValueError(
                    "The `mask` must be broadcastable to `inputs`. Each mask dimension must be "
                    "1 or match the corresponding input dimension. Received: "
                    f"inputs.shape={inputs.shape}, mask.shape={mask.shape}")
        return mask if mask.dtype == "bool" else ops.greater(mask, 0.5)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config
