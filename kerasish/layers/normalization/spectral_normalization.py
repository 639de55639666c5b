"""SpectralNormalization: divides a wrapped layer's kernel by its spectral norm."""
from kerasish import initializers, ops
from kerasish.layers.core.wrapper import Wrapper
from kerasish.layers.input_spec import InputSpec


def _normalize(x):
    return ops.divide(x, ops.sqrt(ops.maximum(ops.sum(ops.square(x)), 1e-12)))


class SpectralNormalization(Wrapper):
    """Spectral normalization (Miyato et al., 2018) of a layer's `kernel` (or `embeddings`).

    In training, `power_iterations` power-iteration steps update the
    non-trainable `vector_u` (shape `(1, kernel.shape[-1])`) and the kernel
    is replaced by `kernel / sigma` (sigma the estimated largest singular
    value of the kernel reshaped to `(-1, kernel.shape[-1])`); an all-zero
    kernel is left alone. Inference uses the kernel as it stands.

    Args:
        layer: a layer with a `kernel` or `embeddings` weight.
        power_iterations: positive int.

    Example:
        >>> sn = keras.layers.SpectralNormalization(keras.layers.Dense(4))
        >>> sn(np.ones((2, 3)), training=True).shape
        (2, 4)
    """

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError("`power_iterations` should be greater than "
                             f"zero. Received: `power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: input_shape[-1]})
        if hasattr(self.layer, "kernel"):
            kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            kernel = self.layer.embeddings
        else:
            raise ValueError(f"{type(self.layer).__name__} object has no "
                             "attribute 'kernel' nor 'embeddings'")
        # As Keras, the wrapper tracks the kernel as its own (first) weight too: it comes
        # first in `weights` and is stored with vector_u in the weights file.
        self._trainable_variables.append(kernel)
        self.kernel = kernel
        self.kernel_shape = tuple(kernel.shape)
        self.vector_u = self.add_weight(
            shape=(1, self.kernel_shape[-1]), initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False, name="vector_u", dtype=kernel.dtype)

    def call(self, inputs, training=False):
        if training and bool(ops.any(ops.not_equal(self.kernel, 0))):
            new_u, new_kernel = self.normalized_weights()
            self.vector_u.assign(new_u)
            self.kernel.assign(new_kernel)
        output = self.layer(inputs)
        return ops.cast(output, inputs.dtype)

    def normalized_weights(self):
        """(new vector_u, kernel / sigma) from `power_iterations` power-iteration steps."""
        weights = ops.reshape(self.kernel, (-1, self.kernel_shape[-1]))
        u = ops.convert_to_tensor(self.vector_u)
        for _ in range(self.power_iterations):
            v = _normalize(ops.matmul(u, ops.transpose(weights)))
            u = _normalize(ops.matmul(v, weights))
        u, v = ops.stop_gradient(u), ops.stop_gradient(v)
        sigma = ops.matmul(ops.matmul(v, weights), ops.transpose(u))
        kernel = ops.reshape(ops.divide(self.kernel, sigma), self.kernel_shape)
        return ops.cast(u, self.vector_u.dtype), ops.cast(kernel, self.kernel.dtype)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        config = super().get_config()
        config["power_iterations"] = self.power_iterations
        return config
