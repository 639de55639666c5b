"""Activation functions (`keras.activations.*`), each with Keras 3's formula.

Every function takes a tensor-like and returns a Tensor; all maths goes
through `kerasish.ops`, so gradients come from the tape.
"""
from kerasish import ops


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with Keras's optional slope, cap and threshold.

    Computes `x` for `x > threshold` (else 0), clipped to `[0, max_value]`,
    minus `negative_slope * relu(threshold - x)`.

    Args:
        x: input tensor.
        negative_slope: slope below the threshold (0.0).
        max_value: saturation value, or None for no cap.
        threshold: values at or below it are damped (0.0).

    Returns:
        Tensor of the same shape.

    Example:
        >>> keras.activations.relu([-10.0, -5.0, 0.0, 5.0, 10.0], max_value=5.0)
        # [0., 0., 0., 5., 5.]
    """
    x = ops.convert_to_tensor(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return ops.leaky_relu(x, negative_slope=negative_slope)
        negative_part = ops.relu(ops.add(ops.negative(x), threshold)) if threshold != 0 \
            else ops.relu(ops.negative(x))
    clip_max = max_value is not None
    if threshold != 0:
        # a select, not a product with a mask: -5 * 0 would give -0.0 and nan * 0 nan
        x = ops.where(ops.greater(x, threshold), x, ops.zeros_like(x))
    elif max_value == 6:
        x = ops.relu6(x)
        clip_max = False
    else:
        x = ops.relu(x)
    if clip_max:
        x = ops.clip(x, 0.0, max_value)
    if negative_slope != 0.0:
        x = ops.subtract(x, ops.multiply(negative_part, negative_slope))
    return x


def relu6(x):
    """`min(max(x, 0), 6)`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.relu6([-1.0, 3.0, 9.0])   # [0., 3., 6.]
    """
    return ops.relu6(x)


def leaky_relu(x, negative_slope=0.2):
    """`x` if `x > 0` else `negative_slope * x`.

    Args:
        x: input tensor.
        negative_slope: slope for negative inputs (0.2).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.leaky_relu([-1.0, 2.0])   # [-0.2, 2.]
    """
    return ops.leaky_relu(x, negative_slope=negative_slope)


def elu(x, alpha=1.0):
    """`x` if `x > 0` else `alpha * (exp(x) - 1)`.

    Args:
        x: input tensor.
        alpha: scale of the negative part (1.0).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.elu([-1.0, 1.0])   # [-0.632, 1.]
    """
    return ops.elu(x, alpha=alpha)


def selu(x):
    """`scale * elu(x, alpha)` with alpha=1.67326324, scale=1.05070098.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.selu([1.0])   # [1.0507]
    """
    return ops.selu(x)


def gelu(x, approximate=False):
    """Gaussian error linear unit `0.5 * x * (1 + erf(x / sqrt(2)))`.

    Note that `keras.activations.gelu` defaults to the exact form while
    `keras.ops.gelu` defaults to the tanh approximation.

    Args:
        x: input tensor.
        approximate: use the tanh approximation (False).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.gelu([1.0])   # [0.8413]
    """
    return ops.gelu(x, approximate=approximate)


def sigmoid(x):
    """`1 / (1 + exp(-x))`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.sigmoid([0.0])   # [0.5]
    """
    return ops.sigmoid(x)


def hard_sigmoid(x):
    """Piecewise-linear sigmoid: 0 below -3, 1 above 3, `x / 6 + 0.5` between.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.hard_sigmoid([-4.0, 0.0, 4.0])   # [0., 0.5, 1.]
    """
    return ops.hard_sigmoid(x)


def hard_silu(x):
    """`x * hard_sigmoid(x)` (also called hard_swish).

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.hard_silu([-4.0, 1.0, 4.0])   # [0., 0.667, 4.]
    """
    return ops.hard_silu(x)


def tanh(x):
    """Hyperbolic tangent.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.tanh([0.0])   # [0.]
    """
    return ops.tanh(x)


def softmax(x, axis=-1):
    """`exp(x) / sum(exp(x))` along `axis`.

    Args:
        x: input tensor.
        axis: axis (or tuple of axes) to normalise over (-1).

    Returns:
        Tensor whose slices along `axis` sum to 1.

    Example:
        >>> keras.activations.softmax([[1.0, 1.0]])   # [[0.5, 0.5]]
    """
    return ops.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """`x - logsumexp(x)` along `axis`.

    Args:
        x: input tensor.
        axis: axis to normalise over (-1).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.log_softmax([[0.0, 0.0]])   # [[-0.693, -0.693]]
    """
    return ops.log_softmax(x, axis=axis)


def softplus(x):
    """`log(exp(x) + 1)`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.softplus([0.0])   # [0.693]
    """
    return ops.softplus(x)


def softsign(x):
    """`x / (abs(x) + 1)`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.softsign([1.0])   # [0.5]
    """
    return ops.softsign(x)


def silu(x):
    """`x * sigmoid(x)` (also called swish).

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.silu([1.0])   # [0.731]
    """
    return ops.silu(x)


def mish(x):
    """`x * tanh(softplus(x))`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.mish([1.0])   # [0.865]
    """
    return ops.mish(x)


def exponential(x):
    """`exp(x)`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.exponential([0.0])   # [1.]
    """
    return ops.exp(x)


def crelu(x, axis=-1):
    """Concatenated ReLU: `concatenate([relu(x), relu(-x)], axis)`.

    Args:
        x: input tensor.
        axis: axis to concatenate along (-1); that axis doubles in size.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.crelu([[-1.0, 2.0]])   # [[0., 2., 1., 0.]]
    """
    x = ops.convert_to_tensor(x)
    return ops.concatenate([ops.relu(x), ops.relu(ops.negative(x))], axis=axis)


def celu(x, alpha=1.0):
    """Continuously differentiable ELU: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.

    Args:
        x: input tensor.
        alpha: scale of the negative part (1.0).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.celu([-1.0, 1.0], alpha=2.0)   # [-0.787, 1.]
    """
    x = ops.convert_to_tensor(x)
    negative = ops.multiply(ops.expm1(ops.divide(ops.minimum(x, 0.0), alpha)), alpha)
    return ops.add(ops.maximum(x, 0.0), negative)


def glu(x, axis=-1):
    """Gated linear unit: splits `x` in halves `a, b` along `axis`, returns `a * sigmoid(b)`.

    Args:
        x: input tensor whose `axis` has even size.
        axis: axis to split (-1).

    Returns:
        Tensor with `axis` halved.

    Example:
        >>> keras.activations.glu([[1.0, 0.0]])   # [[0.5]]
    """
    x = ops.convert_to_tensor(x)
    if x.shape[axis] % 2:
        raise ValueError(
            f"glu: axis {axis} must have an even size to split in two. "
            f"Received: x.shape={tuple(x.shape)}"
        )
    a, b = ops.split(x, 2, axis=axis)
    return ops.multiply(a, ops.sigmoid(b))


def hard_tanh(x):
    """`clip(x, -1, 1)`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.hard_tanh([-2.0, 0.5, 2.0])   # [-1., 0.5, 1.]
    """
    return ops.clip(ops.convert_to_tensor(x), -1.0, 1.0)


def hard_shrink(x, threshold=0.5):
    """`x` where `|x| > threshold`, else 0.

    Args:
        x: input tensor.
        threshold: non-negative cut (0.5).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.hard_shrink([-1.0, 0.2, 1.0])   # [-1., 0., 1.]
    """
    x = ops.convert_to_tensor(x)
    return ops.where(ops.greater(ops.absolute(x), threshold), x, ops.zeros_like(x))


def soft_shrink(x, threshold=0.5):
    """`x - threshold` above `threshold`, `x + threshold` below `-threshold`, else 0.

    Args:
        x: input tensor.
        threshold: non-negative cut (0.5).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.soft_shrink([-1.0, 0.2, 1.0])   # [-0.5, 0., 0.5]
    """
    x = ops.convert_to_tensor(x)
    shrunk = ops.subtract(x, ops.multiply(ops.sign(x), threshold))
    return ops.where(ops.greater(ops.absolute(x), threshold), shrunk, ops.zeros_like(x))


def tanh_shrink(x):
    """`x - tanh(x)`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.tanh_shrink([1.0])   # [0.238]
    """
    x = ops.convert_to_tensor(x)
    return ops.subtract(x, ops.tanh(x))


def threshold(x, threshold, default_value):
    """`x` where `x > threshold`, else `default_value`.

    Args:
        x: input tensor.
        threshold: the cut.
        default_value: value put below (or at) the cut.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.threshold([-1.0, 2.0], 0.0, -5.0)   # [-5., 2.]
    """
    x = ops.convert_to_tensor(x)
    return ops.where(ops.greater(x, threshold), x, ops.full_like(x, default_value))


def squareplus(x, b=4):
    """Smooth ReLU `(x + sqrt(x^2 + b)) / 2`.

    Args:
        x: input tensor.
        b: non-negative smoothness (4).

    Returns:
        Tensor.

    Example:
        >>> keras.activations.squareplus([0.0])   # [1.]
    """
    x = ops.convert_to_tensor(x)
    return ops.multiply(ops.add(x, ops.sqrt(ops.add(ops.square(x), b))), 0.5)


def sparse_plus(x):
    """0 for `x <= -1`, `(x + 1)^2 / 4` on (-1, 1), `x` for `x >= 1`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.sparse_plus([-2.0, 0.0, 2.0])   # [0., 0.25, 2.]
    """
    x = ops.convert_to_tensor(x)
    middle = ops.multiply(ops.square(ops.add(x, 1.0)), 0.25)
    return ops.where(ops.less_equal(x, -1.0), ops.zeros_like(x),
                     ops.where(ops.greater_equal(x, 1.0), x, middle))


def sparse_sigmoid(x):
    """0 for `x <= -1`, `(x + 1) / 2` on (-1, 1), 1 for `x >= 1`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.sparse_sigmoid([-2.0, 0.0, 2.0])   # [0., 0.5, 1.]
    """
    return ops.multiply(ops.add(ops.clip(ops.convert_to_tensor(x), -1.0, 1.0), 1.0), 0.5)


def log_sigmoid(x):
    """`log(sigmoid(x)) = -softplus(-x)`.

    Args:
        x: input tensor.

    Returns:
        Tensor.

    Example:
        >>> keras.activations.log_sigmoid([0.0])   # [-0.693]
    """
    return ops.log_sigmoid(x)


def sparsemax(x, axis=-1):
    """Sparsemax along `axis`, with Keras 3.15.1's threshold (`ops.sparsemax`).

    `max(x - tau, 0)`. Keras's `tau` is `(sum over the support of the
    cumulative sums of the sorted values - 1) / k`, which equals the paper's
    (slices summing to 1) only when one value is in the support; kerasish
    gives Keras's numbers (see `ops.sparsemax`).

    Args:
        x: input tensor.
        axis: axis to work along (-1).

    Returns:
        Tensor of the shape of `x`.

    Example:
        >>> keras.activations.sparsemax([[2.0, 0.5, 0.0]])   # [[1., 0., 0.]]
    """
    return ops.sparsemax(ops.convert_to_tensor(x), axis=axis)


def linear(x):
    """The identity: returns `x` unchanged.

    Args:
        x: anything.

    Returns:
        `x` itself.

    Example:
        >>> keras.activations.linear(3.0)
        3.0
    """
    return x


swish = silu
hard_swish = hard_silu
