"""Normalization: feature-wise `(x - mean) / sqrt(variance)` with adapt()."""
import math

import numpy as np

from kerasish import ops
from kerasish.backend import config as backend_config
from kerasish.data.dataset import Dataset
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils


class Normalization(Layer):
    """Shifts and scales inputs by a mean and variance, given or learned with `adapt()`.

    As Keras: the output is `(x - mean) / max(sqrt(variance), epsilon)`
    (`mean + x * max(sqrt(variance), epsilon)` with `invert=True`).
    `adapt()` on an array uses the array's own mean and variance; on a
    dataset (or list of batches) it merges per-batch statistics with
    Keras's running-weight formula, so the numbers match Keras's.

    Args:
        axis: axis or axes that keep their own statistics (-1: per feature;
            None: one scalar mean and variance).
        mean, variance: fixed statistics (both or neither).
        invert: undo the normalization instead.

    Example:
        >>> layer = keras.layers.Normalization(axis=None)
        >>> layer.adapt(np.array([1.0, 2.0, 3.0]))
        >>> [round(float(v), 4) for v in layer(np.array([2.0, 3.0])).numpy()]
        [0.0, 1.2247]
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        if (mean is not None) != (variance is not None):
            raise ValueError(
                "Normalization: when setting values directly, both `mean` and `variance` must "
                f"be set. Received: mean={mean} and variance={variance}")
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        self.supports_masking = True
        self.mean = None
        self.variance = None

    def build(self, input_shape):
        if input_shape is None:
            return
        ndim = len(input_shape)
        self._build_input_shape = tuple(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(
                f"Normalization: all `axis` values must be in the range [-ndim, ndim). "
                f"Received inputs with ndim={ndim}, while axis={self.axis}")
        self._keep_axis = tuple(sorted(d % ndim for d in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(
                    f"Normalization: all `axis` values to be kept must have a known shape. "
                    f"Received axis={self.axis}, inputs.shape={tuple(input_shape)}, with "
                    f"unknown axis at index {d}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1
                                 for d in range(ndim)]
        self._mean_and_var_shape = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=self._mean_and_var_shape,
                                              initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(name="variance",
                                                  shape=self._mean_and_var_shape,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64",
                                         initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
        else:
            self.mean, self.variance = (self._fixed_statistic(v, ndim) for v in
                                        (self.input_mean, self.input_variance))
            self.built = True

    def _fixed_statistic(self, value, ndim):
        value = np.asarray(utils.to_host(value), dtype="float64")
        if value.ndim:
            expanded = [1] * ndim
            for i in range(1, value.ndim + 1):
                expanded[self._keep_axis[-i]] = value.shape[-i]
            value = value.reshape(expanded)
        value = np.broadcast_to(value, self._broadcast_shape)
        return ops.convert_to_tensor(value.astype(self.compute_dtype))

    def adapt(self, data, steps=None):
        """Computes the mean and variance of `data` along the non-kept axes.

        Args:
            data: numpy array, Tensor, list of batches, or a (batched)
                `kerasish.data.Dataset` (an unbatched one of rank-1 elements
                is batched by 128, as Keras does).
            steps: batches to read from a dataset (None: all).
        """
        if isinstance(data, Dataset):
            spec = data.element_spec
            if isinstance(spec, tuple):
                raise ValueError(
                    "Normalization.adapt() expects a dataset of inputs only, but its elements "
                    "are tuples (e.g. (inputs, targets)). Map it first: ds.map(lambda x, y: x)")
            if len(tuple(spec.shape)) == 1:
                data = data.batch(128)
        if isinstance(data, (np.ndarray, list)) and not _is_list_of_arrays(data) \
                or hasattr(data, "numpy") and not isinstance(data, Dataset):
            self._adapt_array(utils.to_host(data))
        else:
            self._adapt_batches(utils.iterate_adapt_batches("Normalization", data, steps,
                                                            list_is_batches=True))
        self.finalize_state()

    def _check_shape(self, shape):
        if not self.built:
            self.build(shape)
            return
        for d in self._keep_axis:
            if shape[d] != self._build_input_shape[d]:
                raise ValueError(
                    f"Normalization: the layer was built with input_shape="
                    f"{self._build_input_shape}, but adapt() is being called with data with an "
                    f"incompatible shape, data.shape={tuple(shape)}")

    def _adapt_array(self, array):
        if array.size == 0:
            raise ValueError(f"Normalization.adapt() received empty data (shape {array.shape}).")
        self._check_statistics_adaptable()
        self._check_shape(array.shape)
        self.adapt_mean.assign(np.mean(array, axis=self._reduce_axis))
        self.adapt_variance.assign(np.var(array, axis=self._reduce_axis))

    def _adapt_batches(self, batches):
        self._check_statistics_adaptable()
        total_mean = total_var = None
        total_count = 0
        for batch in batches:
            batch = batch.astype(self.compute_dtype)
            self._check_shape(batch.shape)
            if total_mean is None:
                total_mean = np.zeros(self._mean_and_var_shape, self.compute_dtype)
                total_var = np.zeros(self._mean_and_var_shape, self.compute_dtype)
            batch_mean = np.mean(batch, axis=self._reduce_axis)
            batch_var = np.var(batch, axis=self._reduce_axis)
            batch_count = math.prod(batch.shape[d] for d in self._reduce_axis) \
                if self._reduce_axis else 1
            total_count += batch_count
            batch_weight = float(batch_count) / total_count
            existing_weight = 1.0 - batch_weight
            new_mean = total_mean * existing_weight + batch_mean * batch_weight
            total_var = ((total_var + (total_mean - new_mean) ** 2) * existing_weight
                         + (batch_var + (batch_mean - new_mean) ** 2) * batch_weight)
            total_mean = new_mean
        self.adapt_mean.assign(total_mean)
        self.adapt_variance.assign(total_var)

    def _check_statistics_adaptable(self):
        if self.input_mean is not None:
            raise ValueError(
                f"Normalization ({self.name}) was given `mean` and `variance`; it cannot be "
                "adapted. Create it without them to learn the statistics with adapt().")

    def finalize_state(self):
        """Refreshes the broadcast mean/variance from the adapted weights."""
        if self.input_mean is not None or not self.built:
            return
        self.mean = ops.cast(ops.reshape(self.adapt_mean, self._broadcast_shape),
                             self.compute_dtype)
        self.variance = ops.cast(ops.reshape(self.adapt_variance, self._broadcast_shape),
                                 self.compute_dtype)

    def load_own_variables(self, store):
        """Loads the adapted statistics, then refreshes `mean`/`variance` from them (Keras)."""
        super().load_own_variables(store)
        self.finalize_state()

    def call(self, inputs):
        if self.mean is None:
            raise ValueError(f"Normalization ({self.name}): you must call "
                             "`.build(input_shape)` on the layer before using it.")
        if self.input_mean is None:
            self.finalize_state()   # weights may have been loaded or assigned
        x = ops.cast(inputs, self.compute_dtype)
        scale = ops.maximum(ops.sqrt(self.variance), backend_config.epsilon())
        if self.invert:
            return ops.add(self.mean, ops.multiply(x, scale))
        return ops.divide(ops.subtract(x, self.mean), scale)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def compute_output_spec(self, inputs):
        return KerasTensor(tuple(inputs.shape), self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": utils.listify(self.input_mean),
                       "variance": utils.listify(self.input_variance)})
        return config

    def build_from_config(self, build_config):
        if build_config and build_config.get("input_shape") is not None:
            self.build(tuple(build_config["input_shape"]))


def _is_list_of_arrays(data):
    """A list of numpy arrays/tensors is a list of batches (as Keras's iterable input)."""
    return isinstance(data, list) and bool(data) and all(
        isinstance(b, np.ndarray) or hasattr(b, "numpy") for b in data)
