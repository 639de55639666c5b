"""Probabilistic metrics: running means of cross-entropies, KL divergence and Poisson."""
from kerasish.losses.probabilistic import (binary_crossentropy, categorical_crossentropy,
                                           kl_divergence, poisson,
                                           sparse_categorical_crossentropy)
from kerasish.metrics.reduction_metrics import MeanMetricWrapper


class KLDivergence(MeanMetricWrapper):
    """Kullback-Leibler divergence `y_true * log(y_true / y_pred)`.

    Args:
        name: the metric name (default "kl_divergence").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.KLDivergence()
        >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> round(float(m.result()), 4)
        0.4581
    """

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(fn=kl_divergence, name=name, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class Poisson(MeanMetricWrapper):
    """Poisson metric `y_pred - y_true * log(y_pred)`.

    Args:
        name: the metric name (default "poisson").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.Poisson()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> round(float(m.result()), 4)
        0.5
    """

    def __init__(self, name="poisson", dtype=None):
        super().__init__(fn=poisson, name=name, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class BinaryCrossentropy(MeanMetricWrapper):
    """Running mean of the binary cross-entropy.

    Args:
        name: the metric name (default "binary_crossentropy").
        dtype: the state dtype.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; squeezes targets towards 0.5.

    Example:
        >>> m = keras.metrics.BinaryCrossentropy()
        >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> round(float(m.result()), 4)
        0.8149
    """

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0):
        super().__init__(binary_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing}


class CategoricalCrossentropy(MeanMetricWrapper):
    """Running mean of the categorical cross-entropy (one-hot targets).

    Args:
        name: the metric name (default "categorical_crossentropy").
        dtype: the state dtype.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1].
        axis: the class axis (default -1).

    Example:
        >>> m = keras.metrics.CategoricalCrossentropy()
        >>> m.update_state([[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])
        >>> round(float(m.result()), 4)
        1.1769
    """

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0, axis=-1):
        super().__init__(categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """Running mean of the sparse categorical cross-entropy (integer targets).

    Args:
        name: the metric name (default "sparse_categorical_crossentropy").
        dtype: the state dtype.
        from_logits: whether `y_pred` holds logits.
        ignore_class: optional label whose entries are left out of the mean.
        axis: the class axis (default -1).

    Example:
        >>> m = keras.metrics.SparseCategoricalCrossentropy()
        >>> m.update_state([1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])
        >>> round(float(m.result()), 4)
        1.1769
    """

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False,
                 ignore_class=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "ignore_class": self.ignore_class, "axis": self.axis}
