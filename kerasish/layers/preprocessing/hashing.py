"""Hashing: categorical values into a fixed number of bins (FarmHash / SipHash)."""
import numpy as np

from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils
from kerasish.layers.preprocessing.first_call_build import BuiltAtFirstCall
from kerasish.utils import string_hashing


def hash_values(values, num_bins, salt=None):
    """Keras's bucket of each value: FarmHash Fingerprint64 (or SipHash-2-4
    keyed by `salt`) of its string form, modulo `num_bins`.

    Integers (and floats, truncated to int64 first, as Keras) are hashed as
    their decimal strings. Each distinct value is hashed once.
    """
    values = np.asarray(values)
    if values.dtype.kind == "f":
        values = values.astype("int64")
    uniques, inverse = np.unique(values.reshape(-1), return_inverse=True)
    strings = [str(v) for v in uniques.tolist()]
    if salt is None:
        buckets = [string_hashing.fingerprint64(s) % num_bins for s in strings]
    else:
        buckets = [string_hashing.siphash24(salt, s) % num_bins for s in strings]
    return np.array(buckets, dtype="int64")[inverse].reshape(values.shape)


class Hashing(BuiltAtFirstCall, Layer):
    """Hashes strings or integers into `num_bins` bins, with Keras's numbers.

    Strings use FarmHash Fingerprint64 (as `tf.strings.to_hash_bucket_fast`),
    or SipHash-2-4 with `salt` (as `to_hash_bucket_strong`); integers are
    hashed as their decimal strings. With `mask_value`, that value goes to
    bin 0 and the others to bins 1 .. num_bins - 1.

    Args:
        num_bins: number of bins (mask bin included).
        mask_value: value to map to bin 0, or None.
        salt: int or pair of ints: use the keyed (strong) hash.
        output_mode: "int", "one_hot", "multi_hot" or "count".
        sparse: unsupported (must be False).

    Example:
        >>> layer = keras.layers.Hashing(num_bins=3)
        >>> layer([["A"], ["B"], ["C"], ["D"], ["E"]]).numpy().ravel().tolist()
        [1, 0, 1, 1, 2]
    """

    _casts_floats_to_integers = False  # Keras does not convert its inputs

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
                 **kwargs):
        if "dtype" not in kwargs or kwargs["dtype"] is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else None
        super().__init__(**kwargs)
        if num_bins is None or isinstance(num_bins, bool) or num_bins <= 0:
            raise ValueError("Hashing: the `num_bins` for `Hashing` cannot be `None` or "
                             f"non-positive values. Received: num_bins={num_bins}.")
        utils.check_output_mode("Hashing", output_mode,
                                ("int", "one_hot", "multi_hot", "count"))
        if sparse:
            raise NotImplementedError("Hashing: `sparse=True` is not supported by kerasish.")
        if salt is not None:
            if isinstance(salt, int) and not isinstance(salt, bool):
                salt = [salt, salt]
            elif isinstance(salt, (list, tuple)) and len(salt) == 2:
                salt = list(salt)
            else:
                raise ValueError("Hashing: the `salt` argument for `Hashing` can only be a "
                                 f"tuple of size 2 integers, or a single integer. "
                                 f"Received: salt={salt}.")
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.salt = salt
        self.output_mode = output_mode
        self.sparse = sparse
        # built at the first call, as in Keras (which records the input shape then)

    def _call_inputs(self, inputs):
        return utils.host_strings(inputs)

    def call(self, inputs):
        values = utils.to_host(inputs)
        if values.dtype.kind not in "USOiufb":
            raise ValueError(f"Hashing ({self.name}): expected string or numeric inputs, "
                             f"received dtype {values.dtype}.")
        indices = self._hash(values)
        if self.output_mode == "int":
            return utils.to_tensor(indices)
        return utils.to_tensor(utils.encode_categorical(indices, self.output_mode, self.num_bins,
                                                        dtype="float32"))

    def _hash(self, values):
        if self.mask_value is None:
            return hash_values(values, self.num_bins, self.salt)
        mask = values == self.mask_value
        indices = hash_values(values, self.num_bins - 1, self.salt) + 1
        return np.where(mask, 0, indices)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        # Keras 3.15.1's rule: the last axis becomes `num_bins` (also for one_hot, whose
        # tensors keep that axis unless it is 1, and for a (batch,) input)
        return input_shape[:-1] + (self.num_bins,)

    def compute_output_spec(self, inputs):
        return KerasTensor(self.compute_output_shape(inputs.shape),
                           "int64" if self.output_mode == "int" else "float32")

    def get_config(self):
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "salt": self.salt,
                       "mask_value": self.mask_value, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config
