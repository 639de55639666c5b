"""LayerNormalization: normalizes each example over its feature axes (Ba et al., 2016)."""
from kerasish import constraints, initializers, ops, regularizers
from kerasish.backend import dtypes
from kerasish.layers.layer import Layer
from kerasish.ops.normalization import normalize_moments


class LayerNormalization(Layer):
    """Normalizes each example over `axis`: `(x - mean) / sqrt(var + epsilon) * gamma + beta`.

    `gamma` and `beta` span the normalized axes (shape `input_shape[axis]`).
    With `rms_scaling=True` the output is Keras's `x * rsqrt(var + epsilon) *
    gamma` (no centring, no beta).

    Args:
        axis: int or list of ints, the axes to normalize (default -1).
        epsilon: added to the variance (default 1e-3).
        center: add the offset `beta`.
        scale: multiply by `gamma`.
        rms_scaling: use the scaling-only formula above (center/scale ignored).
        beta_initializer, gamma_initializer: initializers (zeros, ones).
        beta_regularizer, gamma_regularizer: regularizers.
        beta_constraint, gamma_constraint: constraints.

    Example:
        >>> ln = keras.layers.LayerNormalization(axis=[1, 2])
        >>> ln.build((5, 20, 30))
        >>> ln.gamma.shape
        (20, 30)
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)) and all(isinstance(a, int) for a in axis):
            self.axis = list(axis)
        elif isinstance(axis, int) and not isinstance(axis, bool):
            self.axis = axis
        else:
            raise TypeError(f"LayerNormalization layer '{self.name}': expected an int or a "
                            f"list/tuple of ints for the argument 'axis', but received: {axis!r}")
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.rms_scaling = rms_scaling
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True
        self.autocast = False

    def _axes(self, rank, input_shape):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if not -rank <= a < rank:
                raise ValueError(f"LayerNormalization layer '{self.name}': axis {a} is out of "
                                 f"bounds for input shape {tuple(input_shape)}.")
        return sorted(a % rank for a in axes)

    def build(self, input_shape):
        axes = self._axes(len(input_shape), input_shape)
        shape = tuple(input_shape[a] for a in axes)
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        self.gamma = self.beta = None
        if self.scale or self.rms_scaling:
            self.gamma = self.add_weight(
                name="gamma", shape=shape, initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                autocast=False)
        if self.center and not self.rms_scaling:
            self.beta = self.add_weight(
                name="beta", shape=shape, initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                autocast=False)

    def call(self, inputs):
        # As Keras: the inputs are not autocast; the statistics are taken in at least float32
        # (`result_type(input, "float32")`), the result is cast back to the input dtype (so
        # float16 inputs come back rounded, integer inputs truncated) and then to the
        # layer's compute dtype.
        input_dtype = inputs.dtype
        inputs = ops.cast(inputs, dtypes.result_type(input_dtype, "float32"))
        rank = inputs.ndim
        axes = self._axes(rank, inputs.shape)
        param_shape = tuple(inputs.shape[a] if a in axes else 1 for a in range(rank))

        def broadcast(param):
            if param is None:
                return None
            return ops.reshape(ops.cast(param, inputs.dtype), param_shape)

        if self.rms_scaling:
            variance = ops.var(inputs, axis=axes, keepdims=True)
            outputs = ops.multiply(inputs, ops.rsqrt(ops.add(variance, self.epsilon)))
            if self.gamma is not None:
                outputs = ops.multiply(outputs, broadcast(self.gamma))
        else:
            outputs = normalize_moments(inputs, axes, broadcast(self.gamma),
                                        broadcast(self.beta), self.epsilon)[0]
        return ops.cast(ops.cast(outputs, input_dtype), self.compute_dtype)

    def compute_output_shape(self, input_shape):
        self._axes(len(input_shape), input_shape)
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": self.rms_scaling,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
        })
        return config
