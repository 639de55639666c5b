"""HashedCrossing: crosses several categorical features by hashing their combination."""
import numpy as np

from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils
from kerasish.utils import string_hashing

_MASK = 0xFFFFFFFFFFFFFFFF
_CAT_MUL = 0xC6A4A7935BD1E995
_DEFAULT_HASH_KEY = 0xDECAFCAFFE   # tf.sparse.cross_hashed's default key


def _shift_mix(value):
    return value ^ (value >> 47)


def _fingerprint_cat64(first, second):
    """FarmHash's FingerprintCat64: combines two 64-bit fingerprints."""
    result = first ^ _CAT_MUL
    result ^= (_shift_mix((second * _CAT_MUL) & _MASK) * _CAT_MUL) & _MASK
    result = (result * _CAT_MUL) & _MASK
    result = (_shift_mix(result) * _CAT_MUL) & _MASK
    return _shift_mix(result)


def _feature_hash(value):
    if isinstance(value, str):
        return string_hashing.fingerprint64(value)
    return int(value) & _MASK   # integers enter the cross as their own 64-bit pattern


class HashedCrossing(Layer):
    """Crosses categorical features and hashes each combination into `num_bins`
    (the numbers of Keras's `tf.sparse.cross_hashed`).

    Args:
        num_bins: number of hash bins.
        output_mode: "int" or "one_hot".
        sparse: unsupported (must be False).

    Example:
        >>> layer = keras.layers.HashedCrossing(num_bins=5)
        >>> layer((np.array(["A", "B"]), np.array([101, 102]))).shape
        (2,)
    """

    _casts_floats_to_integers = False  # Keras does not convert its inputs

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None,
                 **kwargs):
        if dtype is None:
            dtype = "int64" if output_mode == "int" else None
        super().__init__(name=name, dtype=dtype, **kwargs)
        if sparse:
            raise NotImplementedError("HashedCrossing: `sparse=True` is not supported by "
                                      "kerasish.")
        utils.check_output_mode("HashedCrossing", output_mode, ("int", "one_hot"))
        utils.check_positive_int("HashedCrossing", "num_bins", num_bins)
        self.num_bins = num_bins
        self.output_mode = output_mode
        self.sparse = sparse
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                f"HashedCrossing ({self.name}) should be called on a list or tuple of at "
                f"least two features. Received: inputs={inputs!r:.100}")
        features = [utils.to_host(f) for f in inputs]
        shape = features[0].shape
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] != 1):
            raise ValueError(f"HashedCrossing ({self.name}): all inputs must be scalars, "
                             "rank-1 tensors or rank-2 tensors of shape (batch, 1). "
                             f"Received shape {shape}.")
        if any(f.shape != shape for f in features):
            raise ValueError(f"HashedCrossing ({self.name}): all inputs must have the same "
                             f"shape. Received shapes {[f.shape for f in features]}.")
        columns = [[_feature_hash(v) for v in f.reshape(-1).tolist()] for f in features]
        crossed = []
        for row in zip(*columns):
            value = _DEFAULT_HASH_KEY
            for feature in row:
                value = _fingerprint_cat64(value, feature)
            crossed.append(value % self.num_bins)
        indices = np.array(crossed, dtype="int64").reshape(shape)
        if self.output_mode == "int":
            return utils.to_tensor(indices)
        return utils.to_tensor(utils.encode_categorical(indices, "one_hot", self.num_bins,
                                                        dtype="float32"))

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape[0])
        return shape if self.output_mode == "int" else \
            (shape[:-1] if len(shape) > 1 and shape[-1] == 1 else shape) + (self.num_bins,)

    def get_config(self):
        return {"num_bins": self.num_bins, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}
