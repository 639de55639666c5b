"""cache in memory and on disk, including interrupted first passes."""
import os

import numpy as np

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
