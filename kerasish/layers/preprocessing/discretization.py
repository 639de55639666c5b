"""Discretization: buckets continuous values by boundaries (given or adapted)."""
import numpy as np

from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils


class Discretization(Layer):
    """Maps each value to the index of its bucket (`boundaries[i-1] <= x < boundaries[i]`).

    `adapt()` estimates `num_bins` quantile boundaries with Keras's
    approximate-quantile summary (accuracy `epsilon`), so adapted boundaries
    are Keras's.

    Args:
        bin_boundaries: sorted list of boundaries (n boundaries -> n + 1 bins).
        num_bins: number of bins to learn with `adapt()` (instead of boundaries).
        epsilon: error tolerance of the quantile summary.
        output_mode: "int" (int32 indices), "one_hot", "multi_hot" or "count".
        sparse: unsupported (must be False).

    Example:
        >>> layer = keras.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
        >>> layer(np.array([[-1.5, 1.0, 3.4, 0.5]])).numpy().tolist()
        [[0, 2, 3, 1]]
    """

    _casts_floats_to_integers = False  # Keras does not convert its inputs

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        if sparse:
            raise NotImplementedError("Discretization: `sparse=True` is not supported by "
                                      "kerasish (it has no sparse tensors).")
        utils.check_output_mode("Discretization", output_mode,
                                ("int", "one_hot", "multi_hot", "count"))
        if num_bins is not None and num_bins < 0:
            raise ValueError("Discretization: `num_bins` must be greater than or equal to 0. "
                             f"Received: `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError("Discretization: both `num_bins` and `bin_boundaries` should not "
                             f"be set. Received: `num_bins={num_bins}` and "
                             f"`bin_boundaries={bin_boundaries}`")
        if num_bins is None and bin_boundaries is None:
            raise ValueError("Discretization: you need to set either `num_bins` or "
                             "`bin_boundaries`.")
        if bin_boundaries is not None:
            bin_boundaries = utils.listify(bin_boundaries)
            if list(bin_boundaries) != sorted(bin_boundaries):
                raise ValueError("Discretization: `bin_boundaries` must be sorted in "
                                 f"increasing order. Received: {bin_boundaries}")
        self.bin_boundaries = bin_boundaries
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse
        self.summary = None if bin_boundaries else _empty_summary()
        # built at the first call, as in Keras (which records the input shape then)

    def adapt(self, data, steps=None):
        """Learns `num_bins` quantile boundaries from data (arrays, lists, datasets)."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        self.summary = _empty_summary()
        for batch in utils.iterate_adapt_batches("Discretization", data, steps):
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data):
        values = np.asarray(utils.to_host(data), dtype="float32")
        self.summary = _merge(_summarize(values, self.epsilon), self.summary, self.epsilon)

    def finalize_state(self):
        if self.num_bins is None:
            return
        self.bin_boundaries = _compress(self.summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError(
                "Discretization: you need to either pass the `bin_boundaries` argument at "
                "construction time or call `adapt(dataset)` before you can start using the "
                "`Discretization` layer.")
        values = utils.to_host(inputs)
        indices = np.digitize(values, np.asarray(self.bin_boundaries, dtype=values.dtype
                                                 if values.dtype.kind == "f" else "float64"))
        dtype = "int32" if self.output_mode == "int" else self.compute_dtype
        return utils.to_tensor(utils.encode_categorical(
            indices, self.output_mode, len(self.bin_boundaries) + 1, dtype=dtype))

    def _depth(self):
        return len(self.bin_boundaries) + 1 if self.bin_boundaries is not None \
            else self.num_bins

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        depth = self._depth()
        if self.output_mode == "one_hot":
            if len(input_shape) > 1 and input_shape[-1] == 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        if len(input_shape) >= 2:
            return (input_shape[0],) + input_shape[2:] + (depth,)
        return (depth,)

    def compute_output_spec(self, inputs):
        dtype = "int32" if self.output_mode == "int" else self.compute_dtype
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)

    def get_config(self):
        return {"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins,
                "epsilon": self.epsilon, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            boundaries = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = boundaries   # an adapted layer: keep what it learned
            return layer
        return cls(**config)


def _empty_summary():
    return np.array([[], []], dtype="float32")


def _summarize(values, epsilon):
    """Every `step`-th sorted value with weight `step` (step = n * epsilon, at least 1)."""
    values = np.sort(values.reshape(-1))
    step = max(values.size * epsilon, 1)
    points = values[int(step - 1)::int(step)]
    return np.stack([points, np.ones_like(points) * step])


def _merge(first, second, epsilon):
    merged = np.concatenate((first, second), axis=1)
    merged = np.take(merged, np.argsort(merged[0]), axis=1)
    return _compress(merged, epsilon)


def _compress(summary, epsilon):
    """Resamples a summary at the quantiles epsilon, 2*epsilon, ... (if it is larger)."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    cumulative_fraction = cumulative / cumulative[-1]
    points = np.interp(percents, cumulative_fraction, summary[0])
    cumulative = np.interp(percents, cumulative_fraction, cumulative)
    weights = cumulative - np.concatenate((np.array([0]), cumulative[:-1]))
    return np.stack((points, weights)).astype("float32")
