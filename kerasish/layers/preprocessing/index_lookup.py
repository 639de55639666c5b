"""IndexLookup: the shared engine of StringLookup and IntegerLookup (as in
Keras, not exported itself).

The vocabulary lives on the host as a token list plus a dict token -> index.
`adapt` counts tokens (and documents for tf_idf) and orders the vocabulary
by count, most frequent first, ties broken by the larger token first (as
Keras's `np.lexsort(...)[::-1]`).
"""
import collections
import os

import numpy as np

from kerasish import ops
from kerasish.backend import config
from kerasish.data.dataset import Dataset
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils
from kerasish.utils import string_hashing

_DROPPED = np.iinfo("int64").max  # masked positions in non-int modes: dropped by the encoding


class IndexLookup(Layer):
    """Maps tokens (strings or integers) to indices, or back with `invert`.

    Args:
        max_tokens: maximum vocabulary size including mask and OOV tokens.
        num_oov_indices: number of out-of-vocabulary buckets.
        mask_token: token mapped to index 0 (None: no mask).
        oov_token: token returned for OOV indices when `invert=True`.
        vocabulary_dtype: "string" or "int64".
        vocabulary: optional list/array of tokens or a path to a text file.
        idf_weights: tf_idf weights for a given vocabulary.
        invert: map indices back to tokens.
        output_mode: "int", "one_hot", "multi_hot", "count" or "tf_idf".
        sparse: not supported (kerasish has no sparse tensors).
        pad_to_max_tokens: pad non-int outputs to `max_tokens` bins.
        oov_method: "floormod" or "farmhash" (for integer keys with several OOV buckets).
        salt: key of the strong (SipHash) hash for OOV buckets.
    """

    _casts_floats_to_integers = False  # Keras does not convert its inputs

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype,
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 sparse=False, pad_to_max_tokens=False, oov_method="floormod", salt=None,
                 name=None, **kwargs):
        frozen_vocab_size = kwargs.pop("vocabulary_size", None)
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("dtype", None)
        super().__init__(name=name, **kwargs)
        cls = type(self).__name__
        output_mode = utils.legacy_output_mode(output_mode)
        self._check_arguments(cls, max_tokens, num_oov_indices, output_mode, invert, sparse,
                              pad_to_max_tokens, idf_weights, oov_method, salt)
        if isinstance(salt, int) and not isinstance(salt, bool):
            salt = [salt, salt]
        elif isinstance(salt, (list, tuple)):
            salt = list(salt)
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.vocabulary_dtype = vocabulary_dtype
        self.invert = invert
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.oov_method = oov_method
        self.salt = salt
        self.input_vocabulary = vocabulary
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = has_input_vocabulary
        self.idf_weights = None
        # Keras's config value: the size recorded when a vocabulary was set or
        # adapted (None before).
        self._frozen_vocab_size = frozen_vocab_size
        self._reset_counts()
        self._set_tokens([])
        if self.max_tokens is not None and self.max_tokens <= self._token_start_index():
            raise ValueError(
                f"{cls}: `max_tokens` ({max_tokens}) must be larger than the number of "
                f"reserved tokens ({self._token_start_index()}: mask token and "
                f"{num_oov_indices} OOV indices), or no learned token would fit.")
        if self.output_mode == "tf_idf" and has_input_vocabulary and idf_weights is None:
            raise ValueError(
                f"{cls}: when specifying the `vocabulary` argument in TF-IDF output mode, "
                "the `idf_weights` argument must also be provided.")
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        # Not built here: as in Keras, `built` turns True at the first call.

    @property
    def compute_dtype(self):
        """The vocabulary dtype ("string" or "int64"), as Keras's lookup layers report."""
        return self.vocabulary_dtype

    @property
    def variable_dtype(self):
        """The vocabulary dtype, as Keras (also `dtype`)."""
        return self.vocabulary_dtype

    @property
    def dtype(self):
        return self.vocabulary_dtype

    def get_build_config(self):
        """Keras's lookup layers store an empty build config (built or not).

        Returns:
            dict: `{}`.
        """
        return {}

    def build_from_config(self, config):
        """Marks the layer built (its state is the vocabulary, loaded separately).

        Args:
            config: the (empty) build config.
        """
        self._maybe_build(None)

    @staticmethod
    def _check_arguments(cls, max_tokens, num_oov_indices, output_mode, invert, sparse,
                         pad_to_max_tokens, idf_weights, oov_method, salt):
        if max_tokens is not None and (isinstance(max_tokens, bool) or max_tokens <= 1):
            raise ValueError(f"{cls}: if set, `max_tokens` must be greater than 1. "
                             f"Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{cls}: if `pad_to_max_tokens` is True, `max_tokens` must be "
                             f"set. Received: max_tokens={max_tokens}")
        utils.check_positive_int(cls, "num_oov_indices", num_oov_indices, minimum=0)
        utils.check_output_mode(cls, output_mode, utils.OUTPUT_MODES)
        if invert and output_mode != "int":
            raise ValueError(f"{cls}: `output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if sparse:
            raise NotImplementedError(f"{cls}: `sparse=True` is not supported by kerasish "
                                      "(it has no sparse tensors); use sparse=False.")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"{cls}: `idf_weights` should only be set if `output_mode` is "
                             f"`'tf_idf'`. Received: output_mode={output_mode}")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"{cls}: `oov_method` must be 'floormod' or 'farmhash'. "
                             f"Received: oov_method={oov_method!r}")
        if salt is not None:
            if oov_method != "farmhash" and num_oov_indices > 1:
                raise ValueError(f"{cls}: `salt` can only be used when "
                                 f"`oov_method='farmhash'`. Received: oov_method={oov_method}")
            if not (isinstance(salt, int) or (isinstance(salt, (list, tuple))
                                              and len(salt) == 2)):
                raise ValueError(f"{cls}: the `salt` argument can only be a tuple of size 2 "
                                 f"integers, or a single integer. Received: salt={salt}.")

    # Indices ------------------------------------------------------------------
    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self):
        """Size of the vocabulary, mask and OOV tokens included."""
        return len(self._tokens) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary as a list, index order (mask and OOV tokens first).

        Args:
            include_special_tokens: keep the mask and OOV tokens.
        """
        start = self._token_start_index()
        vocab = [self.oov_token] * start + self._token_scalars()
        if self.mask_token is not None and self.output_mode == "int":
            vocab[0] = self.mask_token
        return vocab if include_special_tokens else vocab[start:]

    def _token_scalars(self):
        """The tokens as numpy scalars (`np.str_`, `np.int64`), as Keras lists them."""
        if not self._tokens:
            return []
        dtype = str if self.vocabulary_dtype == "string" else self.vocabulary_dtype
        return list(np.asarray(self._tokens, dtype=dtype))

    # Vocabulary ---------------------------------------------------------------
    def _convert_tokens(self, values):
        """Host array of keys in the vocabulary dtype."""
        array = utils.to_host(values)
        if self.vocabulary_dtype == "string":
            if array.dtype.kind not in "USO":
                raise ValueError(
                    f"{type(self).__name__} ({self.name}): expected string inputs, but "
                    f"received dtype {array.dtype} (shape {array.shape}). Use IntegerLookup "
                    "for integer inputs.")
            return array.astype(str)
        if array.dtype.kind == "f":   # as Keras (a TensorFlow cast): truncated to integers
            return array.astype(self.vocabulary_dtype)
        if array.dtype.kind not in "iub":
            raise ValueError(
                f"{type(self).__name__} ({self.name}): expected integer inputs, but received "
                f"dtype {array.dtype} (shape {array.shape}).")
        return array.astype(self.vocabulary_dtype)

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (and tf_idf weights) directly.

        Args:
            vocabulary: list/array of tokens, or a path to a text file with
                one token per line. May start with the mask and OOV tokens in
                Keras's order; other repeats are an error.
            idf_weights: weights, one per token (tf_idf only).
        """
        cls = type(self).__name__
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError(f"{cls}: `idf_weights` must be set if output_mode is 'tf_idf'.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(f"{cls}: `idf_weights` should only be set if output_mode is "
                             f"'tf_idf'. Received: output_mode={self.output_mode}")
        if isinstance(vocabulary, (str, os.PathLike)):
            vocabulary = self._read_vocabulary_file(vocabulary)
        if utils.to_host(vocabulary).size == 0:
            raise ValueError(f"{cls}: cannot set an empty vocabulary. "
                             f"Received: vocabulary={vocabulary}")
        array = self._convert_tokens(vocabulary)
        if array.ndim != 1:
            raise ValueError(f"{cls}: the vocabulary must be 1-D (a list of tokens). "
                             f"Received an array of shape {array.shape}.")
        vocabulary = [self._python_token(v) for v in array.tolist()]
        start = self._token_start_index()
        special = [self.mask_token] * self._oov_start_index() + \
            [self.oov_token] * self.num_oov_indices
        tokens = vocabulary[start:] if vocabulary[:start] == special else vocabulary
        self._check_vocabulary(cls, vocabulary, tokens, special)
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            self._set_idf_weights(cls, vocabulary, idf_weights)
        self._frozen_vocab_size = self.vocabulary_size()

    def _python_token(self, value):
        return str(value) if self.vocabulary_dtype == "string" else int(value)

    def _read_vocabulary_file(self, path):
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise ValueError(f"{type(self).__name__}: vocabulary file {path} does not exist.")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        return lines if self.vocabulary_dtype == "string" else [int(v) for v in lines]

    def _check_vocabulary(self, cls, vocabulary, tokens, special):
        repeated = [t for t, c in collections.Counter(tokens).items() if c > 1]
        if repeated:
            raise ValueError(f"{cls}: the passed vocabulary has at least one repeated term. "
                             f"Please uniquify your dataset. The repeated terms are: "
                             f"{repeated}")
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(
                f"{cls}: found reserved mask token at unexpected location in `vocabulary`. "
                "Note that passed `vocabulary` does not need to include the OOV and mask "
                "tokens. Either remove all mask and OOV tokens, or include them only at the "
                f"start of the vocabulary in precisely this order: {special}. Received: "
                f"mask_token={self.mask_token} at vocabulary index "
                f"{vocabulary.index(self.mask_token)}")
        if self.oov_token is not None and self.invert and self.oov_token in tokens:
            raise ValueError(
                f"{cls}: found reserved OOV token at unexpected location in `vocabulary`. "
                "Either remove all mask and OOV tokens, or include them only at the start of "
                f"the vocabulary in precisely this order: {special}. Received: "
                f"oov_token={self.oov_token} at vocabulary index "
                f"{vocabulary.index(self.oov_token)}")
        size = self._token_start_index() + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError(f"{cls}: attempted to set a vocabulary larger than the maximum "
                             f"vocab size. Received vocabulary size is {size}; `max_tokens` "
                             f"is {self.max_tokens}.")

    def _set_tokens(self, tokens):
        start = self._token_start_index()
        self._tokens = list(tokens)
        self._index = {token: start + i for i, token in enumerate(self._tokens)}
        self._inverse = np.array(self._tokens, dtype=object)
        self._table = dict(self._index)    # what `call` looks up: tokens and the mask
        if self.mask_token is not None:
            self._table[self._python_token(self.mask_token)] = \
                0 if self.output_mode == "int" else _DROPPED

    def _set_idf_weights(self, cls, vocabulary, idf_weights):
        weights = np.asarray(utils.to_host(idf_weights), dtype="float64")
        if weights.ndim != 1:
            raise ValueError(f"{cls}: TF-IDF weights must be a 1-index array. "
                             f"Received: idf_weights of shape {weights.shape}")
        if len(vocabulary) != len(weights):
            raise ValueError(f"{cls}: `idf_weights` must be the same length as vocabulary. "
                             f"len(idf_weights) is {len(weights)}; len(vocabulary) is "
                             f"{len(vocabulary)}")
        front = self._token_start_index() - (len(vocabulary) - len(self._tokens))
        padded = np.concatenate([np.full(front, np.average(weights)), weights])
        if self.pad_to_max_tokens and self.max_tokens is not None:
            padded = np.concatenate([padded, np.zeros(self.max_tokens - len(padded))])
        self.idf_weights = padded.astype("float32")

    # Adapt --------------------------------------------------------------------
    def _reset_counts(self):
        self._token_counts = collections.Counter()
        self._document_counts = collections.Counter()
        self._num_documents = 0

    def adapt(self, data, steps=None):
        """Learns the vocabulary from data (frequency order).

        Args:
            data: numpy array, list, Tensor, `kerasish.data.Dataset` or an
                iterable of batches.
            steps: number of batches to read from a dataset (None: all).
        """
        self._check_adaptable()
        self._reset_counts()
        whole_array = not (isinstance(data, Dataset) or (hasattr(data, "__iter__") and not
                           isinstance(data, (list, tuple, np.ndarray, str)) and not
                           hasattr(data, "numpy")))
        for batch in utils.iterate_adapt_batches(type(self).__name__, data, steps):
            if whole_array and batch.ndim == 1:
                batch = batch[:, None]  # an array: one document per element
            self.update_state(batch)
        self.finalize_state()

    def _check_adaptable(self):
        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static "
                             "vocabulary via `vocabulary` argument or `set_vocabulary()` method.")

    def update_state(self, data):
        """Adds one batch of tokens to the counts (rows are documents for tf_idf)."""
        self._check_adaptable()
        data = self._convert_tokens(data)
        if data.ndim < 2:
            data = data.reshape(1, -1)
        self._count_documents(data.reshape(data.shape[0], -1).tolist())

    def _count_documents(self, documents):
        """Counts tokens given as one list of tokens per document (ragged is fine)."""
        for document in documents:
            self._token_counts.update(document)
        if self.output_mode == "tf_idf":
            for document in documents:
                self._document_counts.update(set(document))
            self._num_documents += len(documents)

    def finalize_state(self):
        """Turns the counts into the vocabulary (and idf weights)."""
        counts = self._token_counts
        if not counts:
            self._frozen_vocab_size = self.vocabulary_size()
            return
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        ordered = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        if self.max_tokens:
            ordered = ordered[:self.max_tokens - self._token_start_index()]
        self._set_tokens([token for token, _ in ordered])
        if self.output_mode == "tf_idf":
            document_counts = np.array([self._document_counts[t] for t in self._tokens],
                                       dtype="float64")
            idf = np.log(1 + self._num_documents / (1 + document_counts)).astype("float32")
            # the OOV weight is TensorFlow's float32 reduce_mean (its order of additions)
            oov_idf = ops.convert_to_numpy(ops.mean(idf)) if len(idf) else np.float32("nan")
            padded = np.concatenate([np.full(self._token_start_index(), oov_idf), idf])
            if self.pad_to_max_tokens and self.max_tokens is not None:
                padded = np.concatenate([padded, np.zeros(self.max_tokens - len(padded))])
            self.idf_weights = padded.astype("float32")
        self._reset_counts()
        self._frozen_vocab_size = self.vocabulary_size()

    # Call -----------------------------------------------------------------------
    def __call__(self, inputs, *args, **kwargs):
        return super().__call__(utils.host_strings(inputs), *args, **kwargs)

    def call(self, inputs):
        keys = self._convert_inputs(inputs)
        if self.invert:
            return utils.to_tensor(self._invert_lookup(keys).astype(str)) \
                if self.vocabulary_dtype == "string" else \
                utils.to_tensor(self._invert_lookup(keys).astype("int64"))
        indices = self._lookup(keys)
        if self.output_mode == "int":
            return utils.to_tensor(indices)
        depth = self._depth()
        output = utils.encode_categorical(
            indices, "count" if self.output_mode == "tf_idf" else self.output_mode, depth,
            dtype="int64")
        if self.output_mode == "tf_idf":
            output = output.astype("float32") * self.idf_weights[:depth]
        return utils.to_tensor(output)

    def _convert_inputs(self, inputs):
        if self.invert:
            array = utils.to_host(inputs)
            if array.dtype.kind not in "iu":
                raise ValueError(f"{type(self).__name__} ({self.name}) with invert=True "
                                 f"expects integer indices, but received dtype {array.dtype}.")
            return array.astype("int64")
        return self._convert_tokens(inputs)

    def _depth(self):
        if self.pad_to_max_tokens:
            return self.max_tokens
        size = self.vocabulary_size()
        if not self._tokens and not self._has_input_vocabulary:
            raise RuntimeError(
                f"{type(self).__name__} ({self.name}): when using "
                f"`output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you must set "
                "the layer's vocabulary before calling it. Either pass a `vocabulary` argument "
                "to the layer, or call `adapt` with some sample data.")
        return size

    def _lookup(self, keys):
        """Indices of `keys`: a host array, or a flat list of Python tokens.

        One dict lookup per token (the mask token is in the table too); only
        the misses go through the OOV rule (error, one bucket, or hashing).
        """
        shape = keys.shape if isinstance(keys, np.ndarray) else (len(keys),)
        tokens = keys.reshape(-1).tolist() if isinstance(keys, np.ndarray) else keys
        table = self._table
        mapped = np.fromiter((table.get(t, -1) for t in tokens), dtype="int64",
                             count=len(tokens))
        missing = np.flatnonzero(mapped == -1)
        if missing.size:
            mapped[missing] = self._oov_indices([tokens[i] for i in missing.tolist()])
        return mapped.reshape(shape)

    def _oov_indices(self, tokens):
        if self.num_oov_indices == 0:
            raise ValueError(
                f"{type(self).__name__} ({self.name}): when `num_oov_indices=0` all inputs "
                f"should be in vocabulary, found OOV values {sorted(set(tokens))}, consider "
                "setting `num_oov_indices=1`.")
        if self.num_oov_indices == 1:
            return self._oov_start_index()
        distinct = list(dict.fromkeys(tokens))
        buckets = dict(zip(distinct, (self._oov_buckets(np.array(distinct)) +
                                      self._oov_start_index()).tolist()))
        return [buckets[t] for t in tokens]

    def _default_value(self):
        return self._oov_start_index() if self.num_oov_indices == 1 else -1

    def _oov_buckets(self, values):
        n = self.num_oov_indices
        if self.vocabulary_dtype != "string" and self.oov_method != "farmhash":
            return np.mod(values.astype("int64"), n)
        strings = [str(v) for v in values.tolist()]
        if self.salt is not None:
            return np.array([string_hashing.siphash24(self.salt, s) % n for s in strings],
                            "int64")
        return np.array([string_hashing.fingerprint64(s) % n for s in strings], "int64")

    def _invert_lookup(self, indices):
        start = self._token_start_index()
        out = np.full(indices.shape, self.oov_token, dtype=object)
        inside = (indices >= start) & (indices < start + len(self._tokens))
        out[inside] = self._inverse[indices[inside] - start]
        if self.mask_token is not None:
            out[indices == 0] = self.mask_token
        return out

    # Shapes and config ------------------------------------------------------------
    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()
        input_shape = tuple(input_shape)
        if self.output_mode == "one_hot" and not (len(input_shape) > 1
                                                   and input_shape[-1] == 1):
            return input_shape + (depth,)
        return input_shape[:-1] + (depth,)

    def compute_output_spec(self, inputs):
        if self.output_mode == "int":
            dtype = self.vocabulary_dtype if self.invert else "int64"
        else:
            # Keras's spec: floatx for every counting mode (on tensors one_hot,
            # multi_hot and count still come out int64, as in Keras)
            dtype = config.floatx()
        return KerasTensor(self.compute_output_shape(inputs.shape),
                           "string" if dtype == "string" else dtype)

    def get_config(self):
        """Keras 3.15.1's keys, in its order (`vocabulary_size` is None until a
        vocabulary is set or adapted)."""
        config = super().get_config()
        config.update({
            "invert": self.invert,
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "oov_token": self.oov_token,
            "mask_token": self.mask_token,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "vocabulary_dtype": self.vocabulary_dtype,
            "idf_weights": utils.listify(self.input_idf_weights),
            "vocabulary": utils.listify(self.input_vocabulary),
            "vocabulary_size": self._frozen_vocab_size,
            "oov_method": self.oov_method,
            "salt": self.salt,
        })
        return config

    # Saving (Keras's `.keras` layout: assets/<path>/vocabulary.txt, vars idf_weights)
    def save_assets(self, dir_path):
        """Writes the learned vocabulary to `dir_path/vocabulary.txt` (as Keras)."""
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(str(w) for w in self.get_vocabulary(include_special_tokens=True)))

    def load_assets(self, dir_path):
        """Reads the vocabulary written by `save_assets`."""
        if self.input_vocabulary is not None:
            return
        path = os.path.join(dir_path, "vocabulary.txt")
        if not os.path.isfile(path):
            return
        values = self._read_vocabulary_file(path)
        idf = self.idf_weights if self.output_mode == "tf_idf" else None
        if idf is not None:
            idf = idf[:len(values)]
        self._set_loaded_vocabulary(values, idf)

    def _set_loaded_vocabulary(self, values, idf):
        saved_idf = self.idf_weights
        self.set_vocabulary(values, idf_weights=idf)
        if saved_idf is not None:
            self.idf_weights = saved_idf

    def save_own_variables(self, store):
        if self.output_mode == "tf_idf" and self.idf_weights is not None:
            store["idf_weights"] = np.asarray(self.idf_weights)

    def load_own_variables(self, store):
        if self.output_mode == "tf_idf" and "idf_weights" in store:
            self.idf_weights = np.asarray(store["idf_weights"], dtype="float32")
