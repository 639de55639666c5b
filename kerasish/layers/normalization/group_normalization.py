"""GroupNormalization: normalizes groups of channels per example (Wu & He, 2018)."""
from kerasish import constraints, initializers, ops, regularizers
from kerasish.backend import dtypes
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.normalization import normalize_moments


class GroupNormalization(Layer):
    """Splits the channels into `groups` and normalizes each group of each example.

    Mean and variance are taken over the group's channels and all other
    non-batch axes; `gamma` and `beta` are per channel. `groups=1` is close to
    LayerNormalization, `groups=-1` (one group per channel) is
    InstanceNormalization.

    Args:
        groups: number of groups (default 32; -1 means one per channel); must divide
            the channel count.
        axis: the channel axis (default -1).
        epsilon: added to the variance (default 1e-3).
        center: add the offset `beta`.
        scale: multiply by `gamma`.
        beta_initializer, gamma_initializer: initializers (zeros, ones).
        beta_regularizer, gamma_regularizer: regularizers.
        beta_constraint, gamma_constraint: constraints.

    Example:
        >>> gn = keras.layers.GroupNormalization(groups=2)
        >>> gn(np.random.rand(2, 4, 4, 6).astype("float32")).shape
        (2, 4, 4, 6)
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(groups, bool) or not isinstance(groups, int) or \
                (groups <= 0 and groups != -1):
            raise ValueError("Received an invalid value for argument `groups`, expected a "
                             "positive integer (or `-1` for instance normalization). "
                             f"Received: groups={groups}")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"GroupNormalization layer '{self.name}': `axis` must be an int. "
                             f"Received: axis={axis!r}")
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True
        self.autocast = False  # as Keras: call upcasts itself and casts back

    def build(self, input_shape):
        rank = len(input_shape)
        if not -rank <= self.axis < rank:
            raise ValueError(f"GroupNormalization layer '{self.name}': axis {self.axis} is out "
                             f"of bounds for input shape {tuple(input_shape)}.")
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined "
                             "dimension but the layer received an input with shape "
                             f"{tuple(input_shape)}.")
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the "
                             f"number of channels ({dim}).")
        if dim % self.groups:
            # Keras's words (the channels must be a multiple of the groups)
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple "
                             f"of the number of channels ({dim}).")
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: dim})
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma", shape=(dim,), initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(
                name="beta", shape=(dim,), initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint)

    def call(self, inputs):
        # As Keras: inputs are not autocast (see __init__); statistics in at least float32,
        # the result cast back to the input dtype, then to the compute dtype.
        input_dtype = inputs.dtype
        rank = inputs.ndim
        axis = self.axis % rank
        shape = tuple(inputs.shape)
        grouped = shape[:axis] + (self.groups, shape[axis] // self.groups) + shape[axis + 1:]
        reshaped = ops.cast(ops.reshape(inputs, grouped),
                            dtypes.result_type(input_dtype, "float32"))
        reduce_axes = tuple(i for i in range(1, rank + 1) if i != axis)
        param_shape = tuple(n if i in (axis, axis + 1) else 1 for i, n in enumerate(grouped))

        def broadcast(param):
            if param is None:
                return None
            return ops.reshape(ops.cast(param, reshaped.dtype), param_shape)

        outputs = normalize_moments(reshaped, reduce_axes, broadcast(self.gamma),
                                    broadcast(self.beta), self.epsilon)[0]
        outputs = ops.reshape(ops.cast(outputs, input_dtype), shape)
        return ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
        })
        return config
