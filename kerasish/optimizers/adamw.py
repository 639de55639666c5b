"""AdamW: `keras.optimizers.AdamW` (Adam with decoupled weight decay)."""
from kerasish.optimizers.adam import Adam


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019).

    Before each Adam update, `w -= w * weight_decay * learning_rate`.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        weight_decay: float, the decay factor. Defaults to 0.004.
        beta_1, beta_2, epsilon, amsgrad: as in `Adam`.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        >>> w = keras.Variable([1.0])
        >>> opt.apply_gradients([(keras.ops.convert_to_tensor([0.0]), w)])
        >>> round(float(w[0]), 6)
        0.95
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, **kwargs):
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay, **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
