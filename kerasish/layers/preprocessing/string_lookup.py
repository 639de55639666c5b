"""StringLookup: strings to integer indices (and back)."""
from kerasish.layers.preprocessing.index_lookup import IndexLookup


class StringLookup(IndexLookup):
    """Maps strings to integer indices from a vocabulary (Keras 3's StringLookup).

    The vocabulary is given or learned with `adapt()` (most frequent first).
    Index 0 is the mask token (if any, in "int" mode), then the OOV indices,
    then the vocabulary.

    Args:
        max_tokens: maximum vocabulary size, mask and OOV tokens included.
        num_oov_indices: number of out-of-vocabulary indices (hashed when > 1).
        mask_token: token meaning "masked" (index 0), None for none.
        oov_token: token returned for OOV indices by `invert=True`.
        vocabulary: list of strings or a path to a text file (one per line).
        idf_weights: tf_idf weights for a given vocabulary.
        invert: map indices to strings instead.
        output_mode: "int", "one_hot", "multi_hot", "count" or "tf_idf".
        pad_to_max_tokens: pad non-int outputs to `max_tokens`.
        sparse: unsupported (must be False).
        encoding: text encoding of byte inputs ("utf-8").
        oov_method, salt: how several OOV buckets are chosen (see Keras).

    Example:
        >>> layer = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
        >>> layer([["a", "c"], ["d", "b"]]).numpy().tolist()
        [[1, 3], [0, 2]]
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", name=None,
                 oov_method="floormod", salt=None, **kwargs):
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         vocabulary_dtype="string", idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method,
                         salt=salt, name=name, **kwargs)

    def get_config(self):
        config = super().get_config()
        del config["vocabulary_dtype"]  # as Keras: strings are the only choice
        config["encoding"] = self.encoding
        return config
