"""Reuters newswire topic classification dataset, as `keras.datasets.reuters`."""
import json

import numpy as np

from kerasish.datasets import _download

_ORIGIN = _download.ORIGIN_FOLDER + "reuters.npz"
_FILE_HASH = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
_WORD_INDEX_ORIGIN = _download.ORIGIN_FOLDER + "reuters_word_index.json"
_WORD_INDEX_HASH = "4d44cc38712099c9e383dc6e5f11a921"
_LABEL_NAMES = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply",
    "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas",
    "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin",
    "strategic-metal", "livestock", "retail", "ipi", "iron-steel", "rubber", "heat", "jobs",
    "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead")


def load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2,
              seed=113, start_char=1, oov_char=2, index_from=3):
    """Loads the Reuters newswire dataset (11,228 newswires, 46 topics), as Keras:
    shuffle with `np.random.RandomState(seed)`, prepend `start_char` and add
    `index_from`, drop sequences of length >= `maxlen`, map indices outside
    `[skip_top, num_words)` to `oov_char`, then split at `int(n * (1 - test_split))`.

    Args:
        path: cache name (under `~/.keras/datasets`) or an existing `.npz` file.
        num_words, skip_top, maxlen, test_split, seed, start_char, oov_char,
        index_from: as in Keras.

    Returns:
        `(x_train, y_train), (x_test, y_test)`: object arrays of index lists and
        integer topic labels.

    Example:
        >>> (x_train, y_train), _ = keras.datasets.reuters.load_data(num_words=10000)
    """
    fpath = _download.resolve_path(path, _ORIGIN, _FILE_HASH, "reuters.load_data")
    arrays = _download.load_npz(fpath)
    _download.require_keys(arrays, ("x", "y"), fpath, "reuters.load_data", "Keras's layout")
    xs, labels = arrays["x"], arrays["y"]
    indices = np.arange(len(xs))
    np.random.RandomState(seed).shuffle(indices)
    xs, labels = xs[indices], labels[indices]
    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    elif index_from:
        xs = [[w + index_from for w in x] for x in xs]
    else:
        xs = [list(x) for x in xs]
    if maxlen:
        kept = [(x, y) for x, y in zip(xs, labels) if len(x) < maxlen]
        if not kept:
            raise ValueError(f"reuters.load_data: after filtering for sequences shorter than "
                             f"maxlen={maxlen}, no sequence was kept. Increase maxlen.")
        xs, labels = [x for x, _ in kept], np.array([y for _, y in kept])
    if not num_words:
        num_words = max(max(x) for x in xs if x)
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    cut = int(len(xs) * (1 - test_split))
    return ((_object_array(xs[:cut]), np.array(labels[:cut])),
            (_object_array(xs[cut:]), np.array(labels[cut:])))


def _object_array(lists):
    out = np.empty(len(lists), dtype=object)
    out[:] = lists
    return out


def get_word_index(path="reuters_word_index.json"):
    """The dict mapping each word to its raw index (add `index_from` for `load_data`'s).

    Args:
        path: cache name or an existing JSON file.
    """
    fpath = _download.resolve_path(path, _WORD_INDEX_ORIGIN, _WORD_INDEX_HASH,
                                   "reuters.get_word_index")
    with open(fpath) as f:
        return json.load(f)


def get_label_names():
    """The 46 topic names, in label order (a tuple, as Keras)."""
    return _LABEL_NAMES
