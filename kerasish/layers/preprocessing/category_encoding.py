"""CategoryEncoding: integer features as one-hot, multi-hot or count vectors."""
import numpy as np

from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils
from kerasish.layers.preprocessing.first_call_build import BuiltAtFirstCall


class CategoryEncoding(BuiltAtFirstCall, Layer):
    """Encodes integer indices in `[0, num_tokens)` as dense vectors.

    As Keras, indices outside `[0, num_tokens)` are dropped silently. A 1-D input is one sample for "multi_hot"/"count" (output
    `(num_tokens,)`) and one index per row for "one_hot"; a 2-D input
    `(batch, k)` gives `(batch, num_tokens)`.

    Args:
        num_tokens: number of categories.
        output_mode: "one_hot", "multi_hot" (default) or "count".
        sparse: unsupported (must be False).

    Example:
        >>> layer = keras.layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")
        >>> layer(np.array([3, 2, 0, 1])).numpy().tolist()[0]
        [0.0, 0.0, 0.0, 1.0]
    """

    _casts_floats_to_integers = False  # Keras does not convert its inputs

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if sparse:
            raise NotImplementedError("CategoryEncoding: `sparse=True` is not supported by "
                                      "kerasish (it has no sparse tensors).")
        if output_mode == "binary":
            output_mode = "multi_hot"
        utils.check_output_mode("CategoryEncoding", output_mode,
                                ("one_hot", "multi_hot", "count"))
        if num_tokens is None:
            raise ValueError("CategoryEncoding: `num_tokens` must be set. "
                             "Received: num_tokens=None.")
        if num_tokens < 1:
            raise ValueError("CategoryEncoding: `num_tokens` must be >= 1. "
                             f"Received: num_tokens={num_tokens}.")
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = sparse
        # built at the first call, as in Keras (which records the input shape then)


    def call(self, inputs, count_weights=None):
        indices = utils.to_host(inputs)
        if indices.dtype.kind == "f":
            indices = indices.astype("int64")
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError("CategoryEncoding: `count_weights` is not used when "
                                 "`output_mode` is not `'count'`. Received "
                                 f"`count_weights={count_weights}`.")
            return utils.to_tensor(self._weighted_counts(indices,
                                                         utils.to_host(count_weights)))
        return utils.to_tensor(utils.encode_categorical(
            indices, self.output_mode, self.num_tokens, dtype=self.compute_dtype))

    def _weighted_counts(self, indices, weights):
        rows = indices.reshape(-1, indices.shape[-1]) if indices.ndim else indices.reshape(1, 1)
        utils.check_non_negative(rows)
        weights = np.broadcast_to(weights, indices.shape).reshape(rows.shape)
        out = np.zeros((rows.shape[0], self.num_tokens), dtype=self.compute_dtype)
        keep = rows < self.num_tokens   # as a bincount with maxlength: dropped
        row_ids = np.arange(rows.shape[0])[:, None].repeat(rows.shape[1], 1)
        np.add.at(out, (row_ids[keep], rows[keep]), weights[keep])
        return out.reshape(indices.shape[:-1] + (self.num_tokens,)) if indices.ndim else out[0]

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if not input_shape:
            return (self.num_tokens,)
        if self.output_mode == "one_hot":
            if input_shape[-1] != 1:
                return input_shape + (self.num_tokens,)
            return input_shape[:-1] + (self.num_tokens,)
        return input_shape[:-1] + (self.num_tokens,)

    def compute_output_spec(self, inputs, count_weights=None):
        return KerasTensor(self.compute_output_shape(inputs.shape), self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode})
        return config
