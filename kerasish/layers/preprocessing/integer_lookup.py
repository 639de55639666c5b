"""IntegerLookup: integers to contiguous indices (and back)."""
from kerasish.layers.preprocessing.index_lookup import IndexLookup


class IntegerLookup(IndexLookup):
    """Maps integers to contiguous indices from a vocabulary (Keras 3's IntegerLookup).

    Args:
        max_tokens: maximum vocabulary size, mask and OOV tokens included.
        num_oov_indices: number of out-of-vocabulary indices (value mod n when > 1,
            or hashed with `oov_method="farmhash"`).
        mask_token: integer meaning "masked" (index 0), None for none.
        oov_token: value returned for OOV indices by `invert=True` (-1).
        vocabulary: list of integers or a path to a text file (one per line).
        vocabulary_dtype: "int64" (Keras's only choice besides "int32").
        idf_weights, invert, output_mode, pad_to_max_tokens, sparse, oov_method,
        salt: as in `StringLookup`.

    Example:
        >>> layer = keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
        >>> layer([[12, 1138, 42], [42, 1000, 36]]).numpy().tolist()
        [[1, 3, 4], [4, 0, 2]]
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False, name=None,
                 oov_method="floormod", salt=None, **kwargs):
        if vocabulary_dtype not in ("int32", "int64"):
            raise ValueError("IntegerLookup: `vocabulary_dtype` must be 'int32' or 'int64'. "
                             f"Received: vocabulary_dtype={vocabulary_dtype!r}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         vocabulary_dtype=vocabulary_dtype, idf_weights=idf_weights,
                         invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method,
                         salt=salt, name=name, **kwargs)

