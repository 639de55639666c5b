"""BatchNormalization: normalizes with batch statistics in training, moving ones in inference."""
from kerasish import constraints, initializers, ops, regularizers
from kerasish.backend import config
from kerasish.distribute import distribute_lib
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.normalization import normalize_moments


class BatchNormalization(Layer):
    """Layer that normalizes its inputs per channel (Ioffe & Szegedy, 2015).

    In training (`fit`, or `training=True`) on a trainable layer it returns
    `gamma * (x - mean(x)) / sqrt(var(x) + epsilon) + beta` with the batch
    mean and biased variance over all axes but `axis`, and updates, in place,

        moving_mean = moving_mean * momentum + mean * (1 - momentum)
        moving_variance = moving_variance * momentum + var * (1 - momentum)

    Otherwise (inference, or `trainable=False`: a frozen layer) it uses the
    moving statistics. Weights in Keras's order: gamma, beta (trainable),
    moving_mean, moving_variance (non-trainable), each of shape (channels,).

    Args:
        axis: the channel axis (default -1).
        momentum: momentum of the moving averages (default 0.99).
        epsilon: added to the variance (default 1e-3).
        center: add the offset `beta`.
        scale: multiply by `gamma`.
        beta_initializer, gamma_initializer, moving_mean_initializer,
            moving_variance_initializer: initializers (zeros, ones, zeros, ones).
        beta_regularizer, gamma_regularizer: regularizers.
        beta_constraint, gamma_constraint: constraints.
        synchronized: batch statistics as Keras's TensorFlow cross-replica
            path computes them (`ops.moments(..., synchronized=True)`:
            `E[x^2] - E[x]^2` from sums) with one replica; inside
            `strategy.run` with several replicas it raises NotImplementedError
            (kerasish's replicas run one after another and cannot all-reduce).
        renorm: use Batch Renormalization (Ioffe, 2017): in training the
            normalized batch is corrected to `x_hat * r + d` with
            `r = stddev(batch) / renorm_stddev` and
            `d = (mean(batch) - renorm_mean) / renorm_stddev` (no gradient
            through `r`, `d`). Adds the non-trainable weights `moving_stddev`,
            `renorm_mean` and `renorm_stddev`; inference is unchanged.
        renorm_clipping: dict with optional keys "rmax", "rmin", "dmax":
            `r` is clipped to [rmin, rmax] and `d` to [-dmax, dmax].
        renorm_momentum: momentum of `renorm_mean` / `renorm_stddev`.

    Call arguments:
        inputs: a tensor of any rank.
        training: use batch statistics (and update the moving ones).
        mask: optional boolean tensor with one dimension less than `inputs`;
            masked positions are left out of the batch statistics.

    Example:
        >>> bn = keras.layers.BatchNormalization()
        >>> y = bn(np.random.rand(8, 4).astype("float32"), training=True)
        >>> [w.name for w in bn.weights]
        ['gamma', 'beta', 'moving_mean', 'moving_variance']
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, synchronized=False, renorm=False,
                 renorm_clipping=None, renorm_momentum=0.99, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"BatchNormalization layer '{self.name}': `axis` must be an int. "
                             f"Received: axis={axis!r}")
        self.axis = axis
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.synchronized = synchronized
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True
        self.renorm = renorm
        if renorm:
            renorm_clipping = _check_renorm_clipping(renorm_clipping or {})
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum

    def build(self, input_shape):
        rank = len(input_shape)
        if not -rank <= self.axis < rank:
            raise ValueError(f"BatchNormalization layer '{self.name}': axis {self.axis} is out "
                             f"of bounds for inputs of shape {tuple(input_shape)}.")
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(f"BatchNormalization layer '{self.name}': axis {self.axis} of the "
                             f"inputs must be defined; received shape {tuple(input_shape)}.")
        shape = (channels,)
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma", shape=shape, initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                autocast=False)
        if self.center:
            self.beta = self.add_weight(
                name="beta", shape=shape, initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                autocast=False)
        self.moving_mean = self.add_weight(
            name="moving_mean", shape=shape, initializer=self.moving_mean_initializer,
            trainable=False, autocast=False)
        self.moving_variance = self.add_weight(
            name="moving_variance", shape=shape, initializer=self.moving_variance_initializer,
            trainable=False, autocast=False)
        if self.renorm:
            self._build_renorm_weights(shape)
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: channels})
        self._channel_axis = self.axis % rank
        self._reduction_axes = tuple(i for i in range(rank) if i != self._channel_axis)

    def call(self, inputs, training=None, mask=None):
        if mask is not None and mask.ndim != inputs.ndim - 1:
            raise ValueError(
                f"BatchNormalization layer '{self.name}': the mask should have one dimension "
                f"less than the inputs. Received: mask.shape={tuple(mask.shape)}, "
                f"inputs.shape={tuple(inputs.shape)}")
        input_dtype = inputs.dtype
        if input_dtype in ("float16", "bfloat16"):
            inputs = ops.cast(inputs, "float32")  # statistics overflow in half precision
        gamma = None if self.gamma is None else ops.cast(self.gamma, inputs.dtype)
        beta = None if self.beta is None else ops.cast(self.beta, inputs.dtype)
        if training and self.trainable and self.synchronized:
            self._check_single_replica()
        if training and self.trainable and self.renorm:
            mean, variance = (self._moments(inputs) if mask is None
                              else self._masked_moments(inputs, mask))
            gamma, beta = self._renorm_transforms(mean, variance, gamma, beta)
            self._update_renorm_statistics(mean, variance)
            outputs = ops.batch_normalization(inputs, mean, variance, self._channel_axis,
                                              beta, gamma, self.epsilon)
        elif training and self.trainable:
            if mask is None and self.synchronized:
                mean, variance = self._moments(inputs)
                outputs = ops.batch_normalization(inputs, mean, variance, self._channel_axis,
                                                  beta, gamma, self.epsilon)
            elif mask is None:
                outputs, mean, variance = normalize_moments(
                    inputs, self._reduction_axes, self._broadcast(gamma),
                    self._broadcast(beta), self.epsilon)
            else:
                mean, variance = self._masked_moments(inputs, mask)
                outputs = ops.batch_normalization(inputs, mean, variance, self._channel_axis,
                                                  beta, gamma, self.epsilon)
            self._update_moving(self.moving_mean, mean)
            self._update_moving(self.moving_variance, variance)
        else:
            outputs = ops.batch_normalization(
                inputs, ops.cast(self.moving_mean, inputs.dtype),
                ops.cast(self.moving_variance, inputs.dtype), self._channel_axis, beta, gamma,
                self.epsilon)
        if outputs.dtype != input_dtype:
            outputs = ops.cast(outputs, input_dtype)
        return outputs

    def _build_renorm_weights(self, shape):
        """moving_stddev, renorm_mean, renorm_stddev (Keras's names and order)."""
        def stddev_initializer(shape, dtype=None):
            return ops.sqrt(_clone(self.moving_variance_initializer)(shape, dtype=dtype))

        self.moving_stddev = self.add_weight(
            name="moving_stddev", shape=shape, initializer=stddev_initializer,
            trainable=False, autocast=False)
        self.renorm_mean = self.add_weight(
            name="renorm_mean", shape=shape, initializer=_clone(self.moving_mean_initializer),
            trainable=False, autocast=False)
        self.renorm_stddev = self.add_weight(
            name="renorm_stddev", shape=shape, initializer=stddev_initializer,
            trainable=False, autocast=False)

    def _renorm_transforms(self, mean, variance, gamma, beta):
        """Folds the renorm correction into the scale and offset.

        `(x_hat * r + d) * gamma + beta = x_hat * (r * gamma) + (d * gamma + beta)`,
        with `r` and `d` computed from the renorm statistics before this
        batch's update, clipped, and held constant for the gradient.
        """
        stddev = ops.sqrt(ops.add(variance, self.epsilon))
        renorm_mean = ops.cast(self.renorm_mean, mean.dtype)
        # the floor avoids a division by zero early in training (Keras's guard)
        renorm_stddev = ops.maximum(ops.cast(self.renorm_stddev, mean.dtype),
                                    float(self.epsilon) ** 0.5)
        r = ops.divide(stddev, renorm_stddev)
        d = ops.divide(ops.subtract(mean, renorm_mean), renorm_stddev)
        rmin = self.renorm_clipping.get("rmin")
        rmax = self.renorm_clipping.get("rmax")
        dmax = self.renorm_clipping.get("dmax")
        if rmin is not None:
            r = ops.maximum(r, rmin)
        if rmax is not None:
            r = ops.minimum(r, rmax)
        if dmax is not None:
            d = ops.clip(d, -dmax, dmax)
        r, d = ops.stop_gradient(r), ops.stop_gradient(d)
        if gamma is not None:
            r, d = ops.multiply(r, gamma), ops.multiply(d, gamma)
        if beta is not None:
            d = ops.add(d, beta)
        return r, d

    def _update_renorm_statistics(self, mean, variance):
        """Moves renorm_mean/renorm_stddev (renorm_momentum) and moving_mean/
        moving_stddev (momentum); moving_variance = relu(moving_stddev**2 - epsilon)."""
        stddev = ops.sqrt(ops.add(variance, self.epsilon))
        self._update_moving(self.renorm_mean, mean, self.renorm_momentum)
        self._update_moving(self.renorm_stddev, stddev, self.renorm_momentum)
        self._update_moving(self.moving_mean, mean)
        self._update_moving(self.moving_stddev, stddev)
        moving_stddev = ops.cast(self.moving_stddev, mean.dtype)
        self.moving_variance.assign(
            ops.relu(ops.subtract(ops.square(moving_stddev), self.epsilon)))

    def _broadcast(self, param):
        """A (C,) vector reshaped to broadcast along the channel axis."""
        if param is None or self._channel_axis == len(self._reduction_axes):
            return param
        shape = [1] * (len(self._reduction_axes) + 1)
        shape[self._channel_axis] = param.shape[0]
        return ops.reshape(param, tuple(shape))

    def _update_moving(self, variable, batch_value, momentum=None):
        """variable = variable * momentum + batch_value * (1 - momentum), in place
        (`momentum` defaults to the layer's)."""
        momentum = self.momentum if momentum is None else momentum
        batch_value = ops.cast(ops.stop_gradient(batch_value), variable.dtype)
        variable.assign(ops.add(ops.multiply(variable, momentum),
                                ops.multiply(batch_value, 1.0 - momentum)))

    def _moments(self, inputs):
        return ops.moments(inputs, self._reduction_axes, synchronized=self.synchronized)

    def _check_single_replica(self):
        context = distribute_lib.get_replica_context()
        if context is not None and context.num_replicas_in_sync > 1:
            raise NotImplementedError(
                f"BatchNormalization layer '{self.name}': synchronized=True inside "
                f"`strategy.run` with {context.num_replicas_in_sync} replicas needs cross-replica "
                "batch statistics, which kerasish cannot compute (its replicas run one after "
                "another); use synchronized=False.")

    def _masked_moments(self, inputs, mask):
        """Keras's mask-weighted mean and variance over the reduction axes."""
        # the mask is broadcast to the inputs first, so a mask with size-1 axes
        # counts every element it covers (Keras 3.15)
        weights = ops.broadcast_to(ops.expand_dims(ops.cast(mask, inputs.dtype), -1),
                                   inputs.shape)
        weighted = ops.multiply(weights, inputs)
        total = ops.sum(weights, self._reduction_axes, keepdims=True)
        denominator = ops.add(total, config.epsilon())
        mean = ops.divide(ops.sum(weighted, self._reduction_axes, keepdims=True), denominator)
        squared = ops.square(ops.subtract(weighted, mean))
        variance = ops.divide(ops.sum(ops.multiply(weights, squared), self._reduction_axes,
                                      keepdims=True), denominator)
        channels = inputs.shape[self._channel_axis]
        return ops.reshape(mean, (channels,)), ops.reshape(variance, (channels,))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config_ = super().get_config()
        config_.update({
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
            "moving_variance_initializer":
                initializers.serialize(self.moving_variance_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
            "synchronized": self.synchronized,
            "renorm": self.renorm,
            "renorm_clipping": self.renorm_clipping,
            "renorm_momentum": self.renorm_momentum,
        })
        return config_


def _clone(initializer):
    """A fresh copy of a configurable initializer (so a seeded one is not reused)."""
    clone = getattr(initializer, "clone", None)
    return clone() if callable(clone) else initializer


def _check_renorm_clipping(clipping):
    """Validates `renorm_clipping` like Keras; returns it."""
    keys = ["rmax", "rmin", "dmax"]
    if set(clipping) - set(keys):
        raise ValueError("Received invalid keys for `renorm_clipping` argument: "
                         f"{clipping}. Supported values: {keys}.")
    rmax, rmin, dmax = clipping.get("rmax"), clipping.get("rmin"), clipping.get("dmax")
    if rmax is not None and rmin is not None and rmax < rmin:
        raise ValueError("rmax should be greater than rmin in the `renorm_clipping` "
                         f"argument. Received: rmax={rmax}, rmin={rmin}.")
    if dmax is not None and dmax < 0:
        raise ValueError("dmax should be non-negative in the `renorm_clipping` "
                         f"argument. Received: dmax={dmax}.")
    return clipping
