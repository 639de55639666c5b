"""HDF5-backed datasets read in slabs."""
import h5py
import numpy as np
import pytest

from kerasish.data import Dataset, HDF5Dataset, TensorSpec
from kerasish.data import hdf5_source


@pytest.fixture
def h5_path(tmp_path):
    path = tmp_path / "data.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=np.arange(50 * 3, dtype=np.float32).reshape(50, 3),
                         chunks=(8, 3))
        f.create_dataset("y", data=np.arange(50))
    return path


def test_rows_as_tuples(h5_path):
    ds = Dataset.from_hdf5(h5_path, ("x", "y"))
    rows = list(ds)
    assert len(rows) == 50 and ds.cardinality() == 50
    np.testing.assert_array_equal(rows[7][0], [21, 22, 23])
    assert int(rows[49][1]) == 49
    assert ds.element_spec == (TensorSpec((3,), "float32"), TensorSpec((), "int64"))


def test_batches_and_dict_keys(h5_path):
    ds = HDF5Dataset(h5_path, {"features": "x", "label": "y"}, batch_size=16)
    batches = list(ds)
    assert [len(b["label"]) for b in batches] == [16, 16, 16, 2]
    assert ds.cardinality() == 4
    assert ds.element_spec["features"] == TensorSpec((None, 3), "float32")
    dropped = HDF5Dataset(h5_path, "y", batch_size=16, drop_remainder=True)
    assert [b.tolist()[0] for b in dropped] == [0, 16, 32]
    assert dropped.cardinality() == 3
    assert dropped.element_spec == TensorSpec((16,), "int64")


def test_reads_in_slabs_not_whole_arrays(h5_path, monkeypatch):
    monkeypatch.setattr(hdf5_source, "DEFAULT_READ_ROWS", 16)
    reads = []
    original = h5py.Dataset.__getitem__

    def spy(self, key):
        reads.append(key)
        return original(self, key)

    monkeypatch.setattr(h5py.Dataset, "__getitem__", spy)
    assert len(list(HDF5Dataset(h5_path, "x"))) == 50
    sizes = [k.stop - k.start for k in reads if isinstance(k, slice)]
    assert sizes and max(sizes) == 16


def test_composes_with_transformations(h5_path):
    ds = HDF5Dataset(h5_path, ("x", "y")).shuffle(50, seed=0).batch(10)
    labels = np.concatenate([y for _, y in ds])
    assert sorted(labels.tolist()) == list(range(50))


def test_mismatched_rows_rejected(tmp_path):
    path = tmp_path / "bad.h5"
    with h5py.File(path, "w") as f:
        f["a"], f["b"] = np.zeros(3), np.zeros(4)
    with pytest.raises(ValueError, match="same number of rows"):
        HDF5Dataset(path, ("a", "b"))
