"""`keras.datasets.imdb`: Keras's filtering semantics, both file layouts, the subset."""
import hashlib
import json

import numpy as np
import pytest

from kerasish.datasets import imdb

# Keras's layout: raw word indices, before shuffling and encoding.
RAW_TRAIN = [[1, 2, 3], [6], [4, 4, 5, 7], [3, 1]]
RAW_Y_TRAIN = [0, 1, 1, 0]
RAW_TEST = [[2, 9], [1, 1, 1], [8]]
RAW_Y_TEST = [1, 0, 1]
# np.random.RandomState(113) shuffles range(4) to [3, 2, 0, 1], then range(3)
# to [1, 0, 2]; start_char=1 is prepended and index_from=3 added, giving:
#   train [[1, 6, 4], [1, 7, 7, 8, 10], [1, 4, 5, 6], [1, 9]], labels [0, 1, 0, 1]
#   test  [[1, 4, 4, 4], [1, 5, 12], [1, 11]],                labels [0, 1, 1]


def _object_array(sequences):
    out = np.empty(len(sequences), dtype=object)
    for i, s in enumerate(sequences):
        out[i] = list(s)
    return out


@pytest.fixture
def keras_npz(tmp_path):
    path = tmp_path / "tiny_imdb.npz"
    np.savez(path, x_train=_object_array(RAW_TRAIN), y_train=np.array(RAW_Y_TRAIN),
             x_test=_object_array(RAW_TEST), y_test=np.array(RAW_Y_TEST))
    return str(path)


@pytest.fixture
def flat_npz(tmp_path):
    """Pre-encoded flat layout: train [[1,5,2,9],[1,3],[1,7,7]], test [[1,4],[1,8,6,5]]."""
    path = tmp_path / "tiny_flat.npz"
    np.savez(path, x_train_flat=np.array([1, 5, 2, 9, 1, 3, 1, 7, 7], np.int32),
             x_train_offsets=np.array([0, 4, 6, 9], np.int64),
             x_test_flat=np.array([1, 4, 1, 8, 6, 5], np.int32),
             x_test_offsets=np.array([0, 2, 6], np.int64),
             y_train=np.array([1, 0, 1], np.uint8), y_test=np.array([0, 1], np.uint8))
    return str(path)


def _lists(x):
    return [list(s) for s in x]


def test_keras_layout_defaults(keras_npz):
    (x_train, y_train), (x_test, y_test) = imdb.load_data(path=keras_npz)
    assert x_train.dtype == object and x_train.shape == (4,)
    # num_words=None becomes the largest index (12), which Keras then maps to oov.
    assert _lists(x_train) == [[1, 6, 4], [1, 7, 7, 8, 10], [1, 4, 5, 6], [1, 9]]
    assert _lists(x_test) == [[1, 4, 4, 4], [1, 5, 2], [1, 11]]
    assert y_train.tolist() == [0, 1, 0, 1] and y_test.tolist() == [0, 1, 1]
    assert all(type(w) is int for w in x_train[0])


def test_keras_layout_num_words_and_skip_top(keras_npz):
    (x_train, _), (x_test, _) = imdb.load_data(path=keras_npz, num_words=8, skip_top=5)
    assert _lists(x_train) == [[2, 6, 2], [2, 7, 7, 2, 2], [2, 2, 5, 6], [2, 2]]
    assert _lists(x_test) == [[2, 2, 2, 2], [2, 5, 2], [2, 2]]


def test_keras_layout_maxlen_drops_long_reviews(keras_npz):
    (x_train, y_train), (x_test, y_test) = imdb.load_data(path=keras_npz, maxlen=4)
    assert _lists(x_train) == [[1, 6, 4], [1, 9]] and y_train.tolist() == [0, 1]
    assert _lists(x_test) == [[1, 5, 2], [1, 11]] and y_test.tolist() == [1, 1]


def test_keras_layout_oov_none_removes_words(keras_npz):
    (x_train, _), (x_test, _) = imdb.load_data(path=keras_npz, num_words=8, skip_top=5,
                                               oov_char=None)
    assert _lists(x_train) == [[6], [7, 7], [5, 6], []]
    assert _lists(x_test) == [[], [5], []]


def test_keras_layout_no_start_char_no_offset(keras_npz):
    (x_train, _), (x_test, _) = imdb.load_data(path=keras_npz, start_char=None,
                                               index_from=0)
    assert _lists(x_train) == [[3, 1], [4, 4, 5, 7], [1, 2, 3], [6]]
    assert _lists(x_test) == [[1, 1, 1], [2, 2], [8]]


def test_maxlen_keeping_nothing_raises(keras_npz):
    with pytest.raises(ValueError, match="maxlen=2, no sequence was kept"):
        imdb.load_data(path=keras_npz, maxlen=2)


def test_flat_layout_is_not_reencoded_or_shuffled(flat_npz):
    (x_train, y_train), (x_test, y_test) = imdb.load_data(path=flat_npz)
    assert _lists(x_train) == [[1, 5, 2, 9], [1, 3], [1, 7, 7]]
    assert _lists(x_test) == [[1, 4], [1, 8, 6, 5]]
    assert y_train.tolist() == [1, 0, 1] and y_test.tolist() == [0, 1]
    assert y_train.dtype == np.uint8


def test_flat_layout_filters(flat_npz):
    (x_train, _), (x_test, _) = imdb.load_data(path=flat_npz, num_words=6)
    assert _lists(x_train) == [[1, 5, 2, 2], [1, 3], [1, 2, 2]]
    assert _lists(x_test) == [[1, 4], [1, 2, 2, 5]]
    (x_train, _), (x_test, _) = imdb.load_data(path=flat_npz, num_words=6, skip_top=4)
    assert _lists(x_train) == [[2, 5, 2, 2], [2, 2], [2, 2, 2]]
    assert _lists(x_test) == [[2, 4], [2, 2, 2, 5]]
    (x_train, y_train), (x_test, y_test) = imdb.load_data(path=flat_npz, maxlen=3)
    assert _lists(x_train) == [[1, 3]] and y_train.tolist() == [0]
    assert _lists(x_test) == [[1, 4]] and y_test.tolist() == [0]


def test_inconsistent_flat_offsets_and_unknown_layout(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, x_train_flat=np.arange(3), x_train_offsets=np.array([0, 5]),
             x_test_flat=np.arange(1), x_test_offsets=np.array([0, 1]),
             y_train=np.array([1]), y_test=np.array([0]))
    with pytest.raises(ValueError, match="inconsistent x_train_flat / x_train_offsets"):
        imdb.load_data(path=str(bad))
    other = tmp_path / "other.npz"
    np.savez(other, x=np.arange(3))
    with pytest.raises(KeyError, match="Keras's imdb.npz layout, or the flat layout"):
        imdb.load_data(path=str(other))


def test_unknown_kwargs_warn(flat_npz):
    with pytest.warns(UserWarning, match=r"ignoring unknown arguments \['nb_words'\]"):
        imdb.load_data(path=flat_npz, nb_words=10)


def _reference(raw, num_words, skip_top, maxlen, seed, start_char, oov_char, index_from):
    """The documented algorithm, step by step on Python lists."""
    rng = np.random.RandomState(seed)
    splits = []
    for x, y in raw:
        order = np.arange(len(x))
        rng.shuffle(order)
        x = [x[i] for i in order]
        y = [y[i] for i in order]
        prefix = [start_char] if start_char is not None else []
        x = [prefix + [w + index_from for w in s] for s in x]
        if maxlen:
            keep = [i for i, s in enumerate(x) if len(s) < maxlen]
            x, y = [x[i] for i in keep], [y[i] for i in keep]
        splits.append((x, y))
    if not num_words:
        num_words = max(max(s) for x, _ in splits for s in x)

    def cap(s):
        if oov_char is None:
            return [w for w in s if skip_top <= w < num_words]
        return [w if skip_top <= w < num_words else oov_char for w in s]

    return [([cap(s) for s in x], y) for x, y in splits]


@pytest.mark.parametrize("options", [
    {},
    {"num_words": 20, "skip_top": 4},
    {"maxlen": 12, "seed": 7},
    {"num_words": 15, "oov_char": None, "start_char": 5, "index_from": 2},
    {"maxlen": 10, "skip_top": 6, "oov_char": 3},
])
def test_matches_reference_on_random_data(tmp_path, options):
    rng = np.random.RandomState(0)
    raw = [([rng.randint(1, 30, size=rng.randint(0, 15)).tolist() for _ in range(n)],
            rng.randint(0, 2, size=n).tolist()) for n in (40, 25)]
    path = tmp_path / "random.npz"
    np.savez(path, x_train=_object_array(raw[0][0]), y_train=np.array(raw[0][1]),
             x_test=_object_array(raw[1][0]), y_test=np.array(raw[1][1]))
    settings = {"num_words": None, "skip_top": 0, "maxlen": None, "seed": 113,
                "start_char": 1, "oov_char": 2, "index_from": 3, **options}
    expected = _reference(raw, **settings)
    (x_train, y_train), (x_test, y_test) = imdb.load_data(path=str(path), **settings)
    assert _lists(x_train) == expected[0][0] and y_train.tolist() == expected[0][1]
    assert _lists(x_test) == expected[1][0] and y_test.tolist() == expected[1][1]


def test_shared_subset(data_dir):
    path = data_dir / "imdb_subset.npz"
    (x_train, y_train), (x_test, y_test) = imdb.load_data(path=str(path))
    assert x_train.shape == (5000,) and x_test.shape == (1000,)
    assert x_train.dtype == object and isinstance(x_train[0], list)
    with np.load(path) as f:
        flat, offsets = f["x_train_flat"], f["x_train_offsets"]
        assert x_train[0] == flat[offsets[0]:offsets[1]].tolist()
        assert x_train[-1] == flat[offsets[-2]:offsets[-1]].tolist()
        np.testing.assert_array_equal(y_train, f["y_train"])
        np.testing.assert_array_equal(y_test, f["y_test"])
        train_lengths = np.diff(offsets)
    # The first review of Keras's shuffled IMDB training set, capped at 500 words.
    assert x_train[0][:5] == [1, 14, 22, 16, 43]
    assert y_train[:10].tolist() == [1, 0, 0, 1, 0, 0, 1, 0, 1, 0]
    assert all(s[0] == 1 for s in x_train)
    assert max(max(s) for s in x_train) < 500 and min(min(s) for s in x_train) >= 1
    assert set(np.unique(y_train)) == {0, 1}

    (x_train, y_train), _ = imdb.load_data(path=str(path), num_words=100, maxlen=200)
    assert len(x_train) == len(y_train) == int(np.sum(train_lengths < 200))
    assert max(len(s) for s in x_train) < 200
    assert max(max(s) for s in x_train) < 100


def test_same_origins_and_hashes_as_keras():
    base = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
    assert imdb._ORIGIN == base + "imdb.npz"
    assert imdb._FILE_HASH == ("69664113be75683a8fe16e3ed0ab59fd"
                               "a8886cb3cd7ada244f7d9544e4676b9f")
    assert imdb._WORD_INDEX_ORIGIN == base + "imdb_word_index.json"
    assert imdb._WORD_INDEX_HASH == "bfafd718b763782e994055a2d397834f"


def test_default_path_uses_keras_cache(tmp_path, cache_home, monkeypatch, keras_npz):
    monkeypatch.setattr(imdb, "_ORIGIN", f"file://{keras_npz}")
    with open(keras_npz, "rb") as f:
        monkeypatch.setattr(imdb, "_FILE_HASH", hashlib.sha256(f.read()).hexdigest())
    (x_train, _), _ = imdb.load_data()
    assert (cache_home / "datasets" / "imdb.npz").is_file()
    assert _lists(x_train)[0] == [1, 6, 4]


def test_get_word_index_local_and_cached(tmp_path, cache_home, monkeypatch):
    index = tmp_path / "word_index.json"
    index.write_text(json.dumps({"the": 1, "and": 2}))
    assert imdb.get_word_index(path=str(index)) == {"the": 1, "and": 2}
    monkeypatch.setattr(imdb, "_WORD_INDEX_ORIGIN", index.as_uri())
    monkeypatch.setattr(imdb, "_WORD_INDEX_HASH", hashlib.md5(index.read_bytes()).hexdigest())
    assert imdb.get_word_index() == {"the": 1, "and": 2}
    assert (cache_home / "datasets" / "imdb_word_index.json").is_file()
