"""cache in memory and on disk, including interrupted first passes."""
import os

import numpy as np
import pytest

from kerasish.data import Dataset


def counting_dataset(n, calls):
    def gen():
        calls.append(1)
        for i in range(n):
            yield {"x": np.full(2, i), "name": f"item{i}".encode()}

    return Dataset.from_generator(gen)


def test_memory_cache_replays_without_recomputing():
    calls = []
    ds = counting_dataset(4, calls).cache()
    first, second = list(ds), list(ds)
    assert len(calls) == 1
    assert [e["x"].tolist() for e in first] == [e["x"].tolist() for e in second]
    assert second[3]["name"] == b"item3"


def test_memory_cache_partial_pass_is_discarded():
    calls = []
    ds = counting_dataset(5, calls).cache()
    assert len(list(ds.take(2))) == 2
    assert len(list(ds)) == 5  # a full pass after a partial one
    assert len(list(ds)) == 5
    assert len(calls) == 2


def test_cache_before_shuffle_reuses_data_but_reshuffles():
    ds = Dataset.range(30).map(lambda x: x * 2).cache().shuffle(30, seed=1)
    a, b = [int(x) for x in ds], [int(x) for x in ds]
    assert sorted(a) == sorted(b) == list(range(0, 60, 2)) and a != b


def test_file_cache_written_once_and_reused(tmp_path):
    calls = []
    prefix = str(tmp_path / "cache")
    ds = counting_dataset(3, calls).cache(prefix)
    first = list(ds)
    assert os.path.exists(prefix + ".data")
    second = list(ds)
    assert len(calls) == 1
    assert [e["name"] for e in second] == [e["name"] for e in first]
    # A new pipeline (e.g. another program) reuses the file too.
    assert len(list(counting_dataset(3, calls).cache(prefix))) == 3 and len(calls) == 1


def test_file_cache_partial_pass_leaves_no_file(tmp_path):
    calls = []
    prefix = str(tmp_path / "cache")
    ds = counting_dataset(5, calls).cache(prefix)
    for i, _ in enumerate(ds):
        if i == 1:
            break
    assert os.listdir(tmp_path) == []
    assert len(list(ds)) == 5
    assert os.listdir(tmp_path) == ["cache.data"]


def test_file_cache_error_during_first_pass_leaves_no_file(tmp_path):
    def gen():
        yield 1
        raise RuntimeError("disk on fire")

    ds = Dataset.from_generator(gen).cache(str(tmp_path / "c"))
    try:
        list(ds)
    except RuntimeError:
        pass
    assert os.listdir(tmp_path) == []


class _PlantedPayload:
    """Unpickling it writes a marker file: proof that the cache ran code."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_planted_pickle_cache_file_is_refused_without_running_code(tmp_path):
    import pickle
    from kerasish.data import DataLossError
    marker = tmp_path / "code_ran"
    prefix = str(tmp_path / "cache")
    with open(prefix + ".data", "wb") as f:
        pickle.dump(_PlantedPayload(str(marker)), f)
    ds = Dataset.range(3).cache(prefix)
    with pytest.raises(DataLossError, match="not a kerasish Dataset.cache file") as info:
        list(ds)
    assert "cache.data" in str(info.value)
    assert not marker.exists()


def test_file_cache_round_trips_every_leaf_kind_exactly(tmp_path):
    import collections
    Point = collections.namedtuple("Point", ["x", "y"])
    elements = [
        {"image": np.arange(6, dtype=np.float16).reshape(2, 3) + i,
         "label": np.int64(i), "flag": np.bool_(i % 2),
         "text": np.array([b"a\x00", b"", f"row{i}".encode()], dtype=object),
         "word": b"tail\x00", "pair": Point(np.float32(i), np.array([i], np.uint8))}
        for i in range(3)]
    prefix = str(tmp_path / "cache")
    ds = Dataset.from_generator(lambda: iter(elements)).cache(prefix)
    list(ds)
    replay = list(Dataset.from_generator(lambda: iter(())).cache(prefix))  # read from disk
    assert len(replay) == 3
    for got, want in zip(replay, elements):
        assert set(got) == set(want)
        for key in ("image", "label", "flag"):
            assert got[key].dtype == np.asarray(want[key]).dtype
            np.testing.assert_array_equal(got[key], want[key])
        assert got["text"].dtype == object and got["text"].tolist() == want["text"].tolist()
        assert got["word"] == b"tail\x00"
        assert got["pair"]._fields == ("x", "y") and got["pair"].x == want["pair"].x
        assert got["pair"].y.dtype == np.uint8


def test_file_cache_refuses_object_data_with_a_clear_error(tmp_path):
    def gen():
        yield {"ok": np.zeros(2), "bad": np.array([{"a": 1}, 2], dtype=object)}

    ds = Dataset.from_generator(gen).cache(str(tmp_path / "cache"))
    with pytest.raises(TypeError, match=r"cannot store element\['bad'\].*dict, int"):
        list(ds)
    assert os.listdir(tmp_path) == []


def test_truncated_cache_file_names_the_file_and_offset(tmp_path):
    from kerasish.data import DataLossError
    prefix = str(tmp_path / "cache")
    list(Dataset.range(4).cache(prefix))
    path = prefix + ".data"
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:-5])
    with pytest.raises(DataLossError,
                       match=r"(truncated|exceeds|damaged|CRC).*byte offset \d+ of .*cache\.data"):
        list(Dataset.range(4).cache(prefix))
