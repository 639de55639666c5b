"""`keras.utils.to_categorical` and `keras.utils.normalize`."""
import numpy as np

from kerasish.utils.registry import REGISTRY

_ONE_HOT_DTYPE = "float64"  # Keras 3 returns float64 for numpy input


def _ops():
    """`kerasish.ops`, found by name: this module sits below it."""
    return REGISTRY.lookup_public("", "ops")


def _is_tensor(x):
    ops = _ops()
    return ops is not None and ops.is_tensor(x)


def _to_numpy(x):
    """Returns `x` as a numpy array (kerasish tensors and cupy arrays included)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        return x.get()
    return np.asarray(x)


def to_categorical(x, num_classes=None):
    """Converts a class vector (integers) to a one-hot class matrix.

    As in Keras, a trailing axis of size 1 is dropped first, so labels of
    shape `(n, 1)` give `(n, num_classes)`; the class axis is placed last.
    Values are cast to int64 (floats are truncated) and a negative class
    index counts from the end, as numpy indexing does.

    Args:
        x: array-like of class indices in `[0, num_classes)`.
        num_classes: number of classes; `None` (or 0) infers `max(x) + 1`.

    Returns:
        A float64 numpy array (as Keras 3) of shape `x.shape + (num_classes,)` (after the
        size-1 trailing axis is dropped). A tensor `x` gives, as in Keras,
        `ops.one_hot(x, num_classes)`: a float32 tensor, all zeros for an
        index outside `[0, num_classes)`.

    Example:
        >>> to_categorical([0, 1, 2, 3], num_classes=4)
        array([[1., 0., 0., 0.],
               [0., 1., 0., 0.],
               [0., 0., 1., 0.],
               [0., 0., 0., 1.]], dtype=float64)
    """
    if _is_tensor(x):
        return _tensor_to_categorical(x, num_classes)
    x = np.array(_to_numpy(x), dtype="int64")
    input_shape = x.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    x = x.reshape(-1)
    num_classes = _resolve_num_classes(x, num_classes)
    categorical = np.zeros((x.shape[0], num_classes), dtype=_ONE_HOT_DTYPE)
    categorical[np.arange(x.shape[0]), x] = 1
    return categorical.reshape(input_shape + (num_classes,))


def _tensor_to_categorical(x, num_classes):
    """Keras's tensor path: drop a trailing size-1 axis, then `ops.one_hot`."""
    if num_classes is None:
        raise ValueError(
            "to_categorical: `num_classes` is required when `x` is a tensor "
            "(as in Keras); received num_classes=None.")
    ops = _ops()
    if x.ndim > 1 and x.shape[-1] == 1:
        x = ops.reshape(x, x.shape[:-1])
    return ops.one_hot(x, num_classes)


def _resolve_num_classes(x, num_classes):
    if not num_classes:
        if x.size == 0:
            raise ValueError(
                "to_categorical: cannot infer `num_classes` from an empty `x`; "
                "pass `num_classes` explicitly.")
        return int(np.max(x)) + 1
    try:
        valid = int(num_classes) == num_classes and num_classes > 0
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise ValueError(
            f"to_categorical: `num_classes` must be a positive int or None; "
            f"received: {num_classes!r}")
    num_classes = int(num_classes)
    outside = (x >= num_classes) | (x < -num_classes)
    if outside.any():  # Keras's error is numpy's, naming the first such index
        raise IndexError(f"index {x[outside][0]} is out of bounds for axis 1 with size "
                         f"{num_classes}")
    return num_classes


def normalize(x, axis=-1, order=2):
    """Divides `x` by its `order`-norm along `axis`.

    Slices whose norm is 0 are left unchanged (divided by 1), as in Keras.

    Args:
        x: array-like to normalize.
        axis: int, the axis along which to take the norm; `None` treats the
            whole array as one vector.
        order: norm order, as `np.linalg.norm`'s `ord` for vectors
            (e.g. 2 for L2, 1 for L1, `np.inf` for max-abs).

    Returns:
        A normalized copy of `x` as a numpy array. For a numpy `x` this is
        Keras's numpy formula (float32 stays float32, ints give float64, a
        1-D `x` gives a `(1, n)` array, and `axis=0` divides along the last
        axis, as Keras 3.15.1 does); lists and tensors are normalized along
        `axis` by Keras's `ops.nn.normalize` and returned as a tensor (float
        lists as float32; differentiable, so usable in a loss).

    Example:
        >>> normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
        array([[0.6, 0.8],
               [0. , 0. ]])
    """
    if not isinstance(x, np.ndarray):
        return _normalize_tensor(x, axis, order)
    if axis is None:  # Keras: numpy's norm over the whole array, then kept 2-D
        norm = np.atleast_1d(np.linalg.norm(x, order))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, -1)
    if not isinstance(axis, (int, np.integer)) or not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise ValueError(
            f"normalize: `axis` must be None or an int in [-{max(x.ndim, 1)}, "
            f"{max(x.ndim, 1)}) for an input of shape {x.shape}; received: {axis!r}")
    if x.ndim == 0:
        x = x.reshape(1)
    # Keras's formula, kept exactly: the norm of a 1-D `x` is a scalar made
    # (1, 1), so the result is (1, n); and the norm goes back in at
    # `axis or -1`, so `axis=0` divides along the last axis (Keras 3.15.1
    # prints [[1., 1.333], [0., 0.]] for [[3, 4], [0, 0]]).
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis or -1)


def _normalize_tensor(x, axis, order):
    """Keras's path for lists and tensors: `ops.nn.normalize` (differentiable, so
    usable inside a loss; float lists become float32; `axis=None` takes the
    norm of the whole tensor as `ops.norm` does, a matrix norm for 2-D)."""
    return _ops().normalize(x, axis=axis, order=order)
