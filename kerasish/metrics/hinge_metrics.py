"""Hinge metrics: running means of the hinge, squared hinge and categorical hinge."""
from kerasish.losses.hinge import categorical_hinge, hinge, squared_hinge
from kerasish.metrics.reduction_metrics import MeanMetricWrapper


class Hinge(MeanMetricWrapper):
    """Running mean of `maximum(1 - y_true * y_pred, 0)` (0/1 labels become -1/1).

    Args:
        name: the metric name (default "hinge").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.Hinge()
        >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> round(float(m.result()), 4)
        1.3
    """

    def __init__(self, name="hinge", dtype=None):
        super().__init__(fn=hinge, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class SquaredHinge(MeanMetricWrapper):
    """Running mean of `square(maximum(1 - y_true * y_pred, 0))`.

    Args:
        name: the metric name (default "squared_hinge").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.SquaredHinge()
        >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> round(float(m.result()), 4)
        1.86
    """

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(fn=squared_hinge, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class CategoricalHinge(MeanMetricWrapper):
    """Running mean of the categorical hinge `maximum(neg - pos + 1, 0)`.

    Args:
        name: the metric name (default "categorical_hinge").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.CategoricalHinge()
        >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> round(float(m.result()), 4)
        1.4
    """

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(fn=categorical_hinge, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}
