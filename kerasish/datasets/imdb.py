"""IMDB movie-review sentiment dataset, as `keras.datasets.imdb`.

Reviews are sequences of word indices, the words ranked by frequency. The
work is done on "flat" arrays (all reviews concatenated, plus offsets) and
gives element for element what Keras's list comprehensions give.
"""
import itertools
import json
import warnings

import numpy as np

from kerasish.datasets import _download

_ORIGIN = _download.ORIGIN_FOLDER + "imdb.npz"
_FILE_HASH = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
_WORD_INDEX_ORIGIN = _download.ORIGIN_FOLDER + "imdb_word_index.json"
_WORD_INDEX_HASH = "bfafd718b763782e994055a2d397834f"
_KERAS_KEYS = ("x_train", "y_train", "x_test", "y_test")
_FLAT_KEYS = ("x_train_flat", "x_train_offsets", "x_test_flat", "x_test_offsets",
              "y_train", "y_test")


def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, **kwargs):
    """Loads the IMDB dataset (25,000 train and 25,000 test reviews).

    Each review is a list of word indices; index `i + index_from` is the
    i-th most frequent word, 0 is kept for padding. With Keras's own
    `imdb.npz` layout (by default downloaded once into
    `~/.keras/datasets/imdb.npz`, the same cache and hash as Keras 3) this
    does exactly what Keras does, in this order:
    1. shuffle train and test with one `np.random.RandomState(seed)`;
    2. prepend `start_char` (unless None) and add `index_from` to each index;
    3. if `maxlen`, drop (not truncate) every review of length >= `maxlen`
       (the start character counts);
    4. if `num_words` is None (or 0) it becomes the largest index present,
       then every index outside `[skip_top, num_words)`, the start character
       included, becomes `oov_char` (or is removed when `oov_char` is None).

    Beyond Keras, `path` may name an existing local `.npz` file, read
    directly. It may hold Keras's layout (`x_train`, `y_train`, `x_test`,
    `y_test`, object arrays of raw index lists) or a flat pre-encoded layout
    (`x_train_flat` int + `x_train_offsets`, review i being
    `flat[offsets[i]:offsets[i + 1]]`, the same for `x_test_*`, plus
    `y_train`, `y_test`) whose indices are already Keras's output (start
    character, `index_from`, shuffling applied): for it only steps 3 and 4
    run, and `num_words=None` keeps every index. Examples find the project's
    shared subset through the `KERASISH_DATA_DIR` environment variable, which
    this function never reads itself:

        path = os.path.join(os.environ["KERASISH_DATA_DIR"], "imdb_subset.npz")
        (x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(
            path=path, num_words=500)

    Args:
        path: an existing `.npz` file, or the cache name to download to
            (relative to `~/.keras/datasets`).
        num_words: int or None; keep indices below it, others become `oov_char`.
        skip_top: int; indices below it become `oov_char`.
        maxlen: int or None; drop reviews of this length or longer.
        seed: int, seed of the shuffle (Keras layout only).
        start_char: int or None, marks the start of each review (Keras layout).
        oov_char: int or None, the out-of-vocabulary index.
        index_from: int, offset added to the raw word indices (Keras layout).
        **kwargs: accepted and ignored, as in Keras 3 (a warning names them).

    Returns:
        Tuple `(x_train, y_train), (x_test, y_test)`: `x_*` 1-D numpy object
        arrays whose items are lists of ints, `y_*` integer arrays of 0/1
        labels (the file's dtype).

    Raises:
        ValueError: `maxlen` leaves no train or no test review, or the file
            has neither layout or inconsistent offsets.

    Example:
        >>> (x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(
        ...     num_words=10000)
        >>> x_train[0][:5]
        [1, 14, 22, 16, 43]
    """
    if kwargs:
        warnings.warn(f"imdb.load_data: ignoring unknown arguments {sorted(kwargs)}.",
                      stacklevel=2)
    fpath = _download.resolve_path(path, _ORIGIN, _FILE_HASH, "imdb.load_data")
    arrays = _download.load_npz(fpath)
    flat_layout = all(k in arrays for k in _FLAT_KEYS)
    if flat_layout:
        train, test = _read_flat(arrays, fpath)
    else:
        _download.require_keys(arrays, _KERAS_KEYS, fpath, "imdb.load_data",
                               "Keras's imdb.npz layout, or the flat layout "
                               f"{list(_FLAT_KEYS)}")
        train, test = _read_keras(arrays, seed, start_char, index_from)
    if maxlen:
        train, test = _drop_long(train, maxlen), _drop_long(test, maxlen)
        if not len(train[2]) or not len(test[2]):
            raise ValueError(
                "After filtering for sequences shorter than maxlen="
                f"{str(maxlen)}, no sequence was kept. Increase maxlen.")
    if not num_words and not flat_layout:
        num_words = _largest_index(train, test)
    labels = np.concatenate([train[2], test[2]])
    train, test = (_cap_vocabulary(split, num_words, skip_top, oov_char)
                   for split in (train, test))
    n_train = len(train[2])
    return ((_to_object_array(*train[:2]), labels[:n_train]),
            (_to_object_array(*test[:2]), labels[n_train:]))


def get_word_index(path="imdb_word_index.json"):
    """Returns the dict mapping each word to its raw index in the IMDB dataset.

    Add `index_from` (3 by default) to a raw index to get the index used in
    `load_data`'s sequences.

    Args:
        path: an existing JSON file, read directly, or the cache name to
            download to (relative to `~/.keras/datasets`).

    Returns:
        dict: word (str) to index (int).

    Example:
        >>> word_index = keras.datasets.imdb.get_word_index()
        >>> inverted = {i + 3: w for w, i in word_index.items()}
        >>> inverted[1], inverted[2] = "[START]", "[OOV]"
        >>> " ".join(inverted[i] for i in x_train[0][:3])
        '[START] this film'
    """
    fpath = _download.resolve_path(path, _WORD_INDEX_ORIGIN, _WORD_INDEX_HASH,
                                   "imdb.get_word_index")
    with open(fpath) as f:
        return json.load(f)


def _read_keras(arrays, seed, start_char, index_from):
    """Shuffles and encodes Keras's layout; returns two (flat, offsets, labels)."""
    rng = np.random.RandomState(seed)
    splits = []
    for name in ("train", "test"):
        x, labels = arrays[f"x_{name}"], arrays[f"y_{name}"]
        indices = np.arange(len(x))
        rng.shuffle(indices)
        flat, offsets = _ragged_to_flat(x[indices])
        flat = flat + (index_from or 0)
        if start_char is not None:
            flat, offsets = _prepend(flat, offsets, start_char)
        splits.append((flat, offsets, labels[indices]))
    return splits


def _read_flat(arrays, fpath):
    """Returns the flat layout's two (flat, offsets, labels), checked."""
    splits = []
    for name in ("train", "test"):
        flat = np.asarray(arrays[f"x_{name}_flat"]).astype(np.int64)
        offsets = np.asarray(arrays[f"x_{name}_offsets"]).astype(np.int64)
        labels = arrays[f"y_{name}"]
        ok = (flat.ndim == 1 and offsets.ndim == 1 and len(offsets) == len(labels) + 1
              and offsets[0] == 0 and offsets[-1] == len(flat)
              and np.all(np.diff(offsets) >= 0))
        if not ok:
            raise ValueError(
                f"imdb.load_data: {fpath!r} has inconsistent x_{name}_flat / "
                f"x_{name}_offsets / y_{name}: expected 1-D offsets of length "
                f"len(y_{name}) + 1 = {len(labels) + 1}, rising from 0 to "
                f"len(x_{name}_flat) = {len(flat)}; found offsets of shape "
                f"{offsets.shape}.")
        splits.append((flat, offsets, labels))
    return splits


def _ragged_to_flat(sequences):
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64,
                          count=len(sequences))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    flat = np.fromiter(itertools.chain.from_iterable(sequences), dtype=np.int64,
                       count=int(offsets[-1]))
    return flat, offsets


def _prepend(flat, offsets, value):
    """Puts `value` in front of every sequence."""
    n = len(offsets) - 1
    new_offsets = offsets + np.arange(n + 1)
    out = np.empty(len(flat) + n, dtype=np.int64)
    starts = new_offsets[:-1]
    out[starts] = value
    keep = np.ones(len(out), dtype=bool)
    keep[starts] = False
    out[keep] = flat
    return out, new_offsets


def _largest_index(train, test):
    """Keras's default `num_words`: the largest index present (so that this very
    index itself becomes `oov_char`, as in Keras)."""
    values = np.concatenate([train[0], test[0]])
    return int(values.max()) if values.size else 0


def _drop_long(split, maxlen):
    """Keeps the sequences strictly shorter than `maxlen`, with their labels."""
    flat, offsets, labels = split
    keep = np.diff(offsets) < maxlen
    return _select(flat, offsets, keep) + (labels[keep],)


def _select(flat, offsets, keep):
    lengths = np.diff(offsets)
    segment = np.repeat(np.arange(len(lengths)), lengths)
    new_lengths = lengths[keep]
    new_offsets = np.concatenate([[0], np.cumsum(new_lengths)]).astype(np.int64)
    return flat[keep[segment]], new_offsets


def _cap_vocabulary(split, num_words, skip_top, oov_char):
    """Replaces (or removes) indices outside `[skip_top, num_words)`."""
    flat, offsets, labels = split
    inside = flat >= skip_top
    if num_words:
        inside &= flat < num_words
    if oov_char is not None:
        return np.where(inside, flat, oov_char), offsets, labels
    lengths = np.diff(offsets)
    segment = np.repeat(np.arange(len(lengths)), lengths)
    kept = np.bincount(segment[inside], minlength=len(lengths))
    new_offsets = np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)
    return flat[inside], new_offsets, labels


def _to_object_array(flat, offsets):
    """A 1-D object array whose items are lists of Python ints."""
    values = flat.tolist()
    out = np.empty(len(offsets) - 1, dtype=object)
    for i, (start, stop) in enumerate(zip(offsets[:-1].tolist(), offsets[1:].tolist())):
        out[i] = values[start:stop]
    return out
