"""PReLU layer: leaky ReLU with a learned slope."""
from kerasish import constraints, initializers, ops, regularizers
from kerasish.layers.layer import Layer
from kerasish.utils import registry


class PReLU(Layer):
    """Parametric ReLU: `x` if x >= 0 else `alpha * x` with `alpha` learned.

    Args:
        alpha_initializer, alpha_regularizer, alpha_constraint: for `alpha`.
        shared_axes: axes along which `alpha` is shared (1-indexed, batch excluded).

    Example:
        >>> keras.layers.PReLU()(np.array([[-1.0, 1.0]]))   # [[0., 1.]] at init
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is not None and not isinstance(shared_axes, (list, tuple)):
            shared_axes = [shared_axes]
        self.shared_axes = list(shared_axes) if shared_axes is not None else None

    def build(self, input_shape):
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            param_shape[axis - 1] = 1
        self.alpha = self.add_weight(shape=tuple(param_shape), name="alpha",
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)

    def call(self, inputs):
        # Keras's sum of two relus: signed zeros and the gradient at 0 come out as Keras's
        # (alpha = 0 gives +0.0 for negative inputs, a `where` gave -0.0).
        positive = ops.relu(inputs)
        negative = ops.multiply(ops.negative(self.alpha), ops.relu(ops.negative(inputs)))
        return ops.add(positive, negative)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "alpha_initializer": registry.serialize_keras_object(self.alpha_initializer),
            "alpha_regularizer": registry.serialize_keras_object(self.alpha_regularizer),
            "alpha_constraint": registry.serialize_keras_object(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        })
        return config
