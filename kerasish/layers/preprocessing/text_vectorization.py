"""TextVectorization: raw strings -> standardized tokens -> indices or bag-of-words."""
import re

import numpy as np

from kerasish.backend import config
from kerasish.autodiff.tensor import Tensor
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.preprocessing import preprocessing_utils as utils
from kerasish.layers.preprocessing.string_lookup import StringLookup
from kerasish.utils import registry

# Keras's `lower_and_strip_punctuation` pattern (removed, not replaced by spaces).
DEFAULT_STRIP_REGEX = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
_STRIP = re.compile(DEFAULT_STRIP_REGEX)
_WHITESPACE = re.compile(r"[ \t\n\r\f\v]+")     # tf.strings.split's separators
_PYTHON_ONLY_SPACE = re.compile("[\x1c-\x1f]")   # str.split() splits there, TensorFlow not
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_STANDARDIZE = (None, "lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = (None, "whitespace", "character")


class TextVectorization(Layer):
    """Turns raw strings into token indices (or multi-hot / count / tf-idf vectors).

    Each string is standardized (Keras's `lower_and_strip_punctuation`:
    ASCII lower-casing, as `tf.strings.lower`, then the punctuation in
    `DEFAULT_STRIP_REGEX` removed), split (whitespace, characters or a
    callable), optionally turned into n-grams, then looked up in a
    vocabulary learned with `adapt()` (most frequent first, Keras's tie rule).

    Args:
        max_tokens: maximum vocabulary size ("" mask and "[UNK]" included).
        standardize: one of the names above, None, or a callable taking a
            numpy array of strings and returning one.
        split: "whitespace", "character", None, or a callable taking a 1-D
            numpy array of strings and returning one list (or array) of tokens
            per string.
        ngrams: None, an int n (all 1..n-grams) or a tuple of widths.
        output_mode: "int", "multi_hot", "count" or "tf_idf".
        output_sequence_length: pad/truncate "int" outputs to this length.
        pad_to_max_tokens: pad bag-of-words outputs to `max_tokens`.
        vocabulary: list of tokens or a text file path.
        idf_weights: tf_idf weights for a given vocabulary.
        ragged, sparse: unsupported (must be False).
        encoding: text encoding of byte inputs.

    Example:
        >>> layer = keras.layers.TextVectorization(output_sequence_length=4)
        >>> layer.adapt(["The cat sat.", "The dog!"])
        >>> layer(["the dog sat"]).numpy().tolist()
        [[2, 4, 3, 0]]
    """

    _casts_floats_to_integers = False  # Keras does not convert its inputs

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int",
                 output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None,
                 **kwargs):
        kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **{k: v for k, v in kwargs.items() if k != "dtype"})
        output_mode = utils.legacy_output_mode(output_mode)
        self._check_arguments(standardize, split, ngrams, output_mode, output_sequence_length,
                              sparse, ragged)
        self._max_tokens = max_tokens
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._pad_to_max_tokens = pad_to_max_tokens
        self._encoding = encoding
        self._ragged = ragged
        self._sparse = sparse
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
            encoding=encoding)  # auto-named: takes a "string_lookup" name, as in Keras
        # Not built here: as in Keras, the first call builds it (and records its input shape).

    @staticmethod
    def _check_arguments(standardize, split, ngrams, output_mode, output_sequence_length,
                         sparse, ragged):
        if sparse or ragged:
            raise NotImplementedError(
                "TextVectorization: `sparse=True` and `ragged=True` are not supported by "
                "kerasish (it has no sparse or ragged tensors).")
        if not (callable(standardize) or standardize in _STANDARDIZE):
            raise ValueError(f"TextVectorization: invalid value for argument `standardize`. "
                             f"Expected one of {list(_STANDARDIZE)} or a callable. "
                             f"Received: standardize={standardize!r}")
        if not (callable(split) or split in _SPLIT):
            raise ValueError(f"TextVectorization: invalid value for argument `split`. "
                             f"Expected one of {list(_SPLIT)} or a callable. "
                             f"Received: split={split!r}")
        utils.check_output_mode("TextVectorization", output_mode,
                                ("int", "multi_hot", "count", "tf_idf"))
        if not (ngrams is None or (isinstance(ngrams, int) and ngrams > 0) or (
                isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams))):
            raise ValueError("TextVectorization: `ngrams` must be None, an integer, or a tuple "
                             f"of integers. Received: ngrams={ngrams}")
        if output_mode == "int" and not (output_sequence_length is None or (
                isinstance(output_sequence_length, int) and output_sequence_length > 0)):
            raise ValueError("TextVectorization: `output_sequence_length` must be either None "
                             "or a positive integer when `output_mode` is 'int'. Received: "
                             f"output_sequence_length={output_sequence_length}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError("TextVectorization: `output_sequence_length` must not be set if "
                             "`output_mode` is not 'int'. Received output_sequence_length="
                             f"{output_sequence_length}.")

    # Vocabulary --------------------------------------------------------------
    @property
    def compute_dtype(self):
        """"string", as Keras reports (the layer takes strings; a Sequential's Input too)."""
        return "string"

    @property
    def variable_dtype(self):
        return "string"

    @property
    def dtype(self):
        return "string"

    def build(self, input_shape=None):
        """Nothing to create (the vocabulary lives in the lookup sublayer), as in Keras.

        Args:
            input_shape: the input shape (recorded in the build config).
        """

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary, index order ("" and "[UNK]" first in "int" mode)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (and tf_idf weights) directly."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary from strings (array, list, Dataset of strings).

        Args:
            data: strings, shape (n,) or (n, 1), or a dataset/iterable of such batches.
            batch_size: unused (Keras compatibility).
            steps: batches to read from a dataset (None: all).
        """
        self._lookup_layer._check_adaptable()
        self._lookup_layer._reset_counts()
        if isinstance(data, (list, tuple, np.ndarray, Tensor)) and np.ndim(utils.to_host(data)) == 1:
            # Keras: an array or list of strings is as many documents (batches
            # of a dataset are taken as they come).
            data = utils.to_host(data).reshape(-1, 1)
        for batch in utils.iterate_adapt_batches("TextVectorization", data, steps):
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data):
        documents = self._preprocess(data)
        self._lookup_layer._count_documents(documents)

    def finalize_state(self):
        self._lookup_layer.finalize_state()

    # Preprocessing -------------------------------------------------------------
    def _preprocess(self, inputs):
        """Strings -> a list of token lists (one per document), or an array of
        tokens when `split` is None."""
        strings = self._as_strings(inputs)
        strings = self._standardized(strings)
        if self._split is None:
            # Unsplit strings go to the lookup as they are, and Keras's lookup
            # reads a rank-1 tensor as one sample (one document).
            documents = strings.reshape(strings.shape[0], -1).tolist() if strings.ndim > 1 \
                else [strings.reshape(-1).tolist()]
        else:
            if strings.ndim > 1:
                if strings.shape[-1] != 1:
                    raise ValueError(
                        "TextVectorization: when using `TextVectorization` to tokenize "
                        "strings, the input rank must be 1 or the last shape dimension must "
                        f"be 1. Received: inputs.shape={strings.shape} with "
                        f"rank={strings.ndim}")
                strings = strings[..., 0]
            documents = self._split_all(strings.reshape(-1)) if strings.ndim else \
                self._split_all(strings.reshape(1))
        if self._ngrams is not None:
            documents = [_ngrams(tokens, self._ngrams) for tokens in documents]
        return documents

    def _as_strings(self, inputs):
        array = utils.to_host(inputs)
        if array.dtype.kind not in "USO":
            raise ValueError(f"TextVectorization ({self.name}) expects string inputs, but "
                             f"received dtype {array.dtype} (shape {array.shape}).")
        return array.astype(str)

    def _standardized(self, strings):
        if callable(self._standardize):
            return np.asarray(self._standardize(strings)).astype(str)
        if self._standardize is None:
            return strings
        flat = strings.reshape(-1).tolist()
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            flat = [s.translate(_ASCII_LOWER) for s in flat]
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            flat = [_STRIP.sub("", s) for s in flat]
        return np.array(flat, dtype=str).reshape(strings.shape) if flat else strings

    def _split_all(self, strings):
        if self._split == "whitespace":
            return [s.split() if s.isascii() and not _PYTHON_ONLY_SPACE.search(s)
                    else [t for t in _WHITESPACE.split(s) if t] for s in strings.tolist()]
        if self._split == "character":
            return [list(s) for s in strings.tolist()]
        result = self._split(strings)
        return [[str(t) for t in utils.to_host(tokens).reshape(-1).tolist()]
                for tokens in result]

    # Call -----------------------------------------------------------------------
    def __call__(self, inputs, *args, **kwargs):
        return super().__call__(utils.host_strings(inputs), *args, **kwargs)

    def call(self, inputs):
        documents = self._preprocess(inputs)
        lengths = [len(d) for d in documents]
        indices = self._lookup_layer._lookup([t for d in documents for t in d])
        if self._output_mode == "int":
            out = self._pad(indices, lengths)
        else:
            out = self._bag_of_words(indices, lengths)
        if self._split is None and np.ndim(utils.to_host(inputs)) == 1:
            out = out[0]  # one rank-1 sample in, one out (Keras's lookup)
        return utils.to_tensor(out)

    def _pad(self, indices, lengths):
        width = self._output_sequence_length
        if width is None:
            width = max(lengths) if lengths else 0
        out = np.zeros((len(lengths), width), dtype="int64")
        start = 0
        for row, n in enumerate(lengths):
            keep = min(n, width)
            out[row, :keep] = indices[start:start + keep]
            start += n
        return out

    def _bag_of_words(self, indices, lengths):
        lookup = self._lookup_layer
        depth = lookup._depth()
        rows = np.repeat(np.arange(len(lengths)), lengths)
        valid = (indices >= 0) & (indices < depth)
        counts = np.zeros((len(lengths), depth), dtype="int64")
        np.add.at(counts, (rows[valid], indices[valid]), 1)
        if self._output_mode == "multi_hot":
            return np.minimum(counts, 1)
        if self._output_mode == "tf_idf":
            return counts.astype("float32") * lookup.idf_weights[:depth]
        return counts

    def compute_output_shape(self, input_shape):
        """Keras 3.15.1's rule, which the symbolic shapes (and summaries) show:
        "int" gives (batch, output_sequence_length); the bag-of-words modes
        take the lookup's shape of the split tokens, so an input of shape
        (batch, 1) gives (batch, 1, depth) although a call returns (batch, depth)."""
        input_shape = tuple(input_shape)
        if self._output_mode == "int":
            return (input_shape[0] if input_shape else None, self._output_sequence_length)
        if self._split is None:
            if len(input_shape) <= 1:
                input_shape = input_shape + (1,)
        else:
            input_shape = input_shape + (None,)
        return self._lookup_layer.compute_output_shape(input_shape)

    def compute_output_spec(self, inputs):
        dtype = "int64" if self._output_mode == "int" else config.floatx()  # as Keras
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)

    # Config and saving --------------------------------------------------------------
    def get_config(self):
        lookup = self._lookup_layer
        return {
            **Layer.get_config(self),  # name, trainable, dtype as Keras
            "max_tokens": lookup.max_tokens,
            "standardize": self._callable_config(self._standardize),
            "split": self._callable_config(self._split),
            "ngrams": self._ngrams_arg,
            "output_mode": self._output_mode,
            "output_sequence_length": self._output_sequence_length,
            "pad_to_max_tokens": self._pad_to_max_tokens,
            "sparse": False, "ragged": False,
            "vocabulary": utils.listify(lookup.input_vocabulary),
            "idf_weights": utils.listify(lookup.input_idf_weights),
            "encoding": self._encoding,
            "vocabulary_size": self.vocabulary_size(),
        }

    @staticmethod
    def _callable_config(value):
        if not callable(value):
            return value
        return registry.serialize_keras_object(value)

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("standardize", "split"):
            if isinstance(config.get(key), dict):
                config[key] = registry.deserialize_keras_object(config[key])
        return cls(**config)

    def save_own_variables(self, store):
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path):
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        self._lookup_layer.load_assets(dir_path)


def _ngrams(tokens, widths):
    """All n-grams of the given widths, widths in order, joined by a space (tf.strings.ngrams)."""
    out = []
    for width in widths:
        out.extend(" ".join(tokens[i:i + width]) for i in range(len(tokens) - width + 1))
    return out
