"""Every format kerasish reads, damaged: truncated, bytes flipped, wrong magic.

A damaged file must either load (a flip in bytes the format does not check,
e.g. HDF5 padding) or raise an error that names the file, of the kinds the
loader documents: never a raw h5py/zlib/gzip error, a MemoryError, an
EOFError without the name, and never code run from the file.
"""
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish.data import DataLossError, Dataset, HDF5Dataset, read_records
from kerasish.datasets import _download

SEED = 1234
CLEAR_ERRORS = (ValueError, DataLossError, TypeError)


def _model():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(5), keras.layers.Dense(2)])
    model.compile("adam", "mse")
    model.fit(np.ones((4, 6), "float32"), np.ones((4, 2), "float32"), verbose=0)
    return model


def _write_keras(path):
    _model().save(path)


def _write_weights(path):
    _model().save_weights(path)


def _write_tfrecord(compression):
    def write(path):
        with keras.data.TFRecordWriter(str(path), compression) as writer:
            for i in range(20):
                writer.write(bytes(range(i, i + 40)))
    return write


def _write_cache(path):
    prefix = str(path)[:-len(".data")]
    list(Dataset.range(30).map(lambda x: {"x": np.full(3, x), "s": b"row"}).cache(prefix))


def _write_h5_rows(path):
    import h5py
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(200, dtype="float32").reshape(50, 4)


def _write_npz(path):
    np.savez(path, x=np.arange(100), y=np.ones((5, 5)))


def _read_cache(path):
    prefix = str(path)[:-len(".data")]
    return list(Dataset.range(0).cache(prefix))


FORMATS = {
    "model.keras": (_write_keras, lambda p: keras.models.load_model(p)),
    "model.h5": (_write_keras, lambda p: keras.models.load_model(p)),
    "model.weights.h5": (_write_weights, lambda p: _model().load_weights(p)),
    "plain.tfrecord": (_write_tfrecord(None), lambda p: list(read_records(p))),
    "gzip.tfrecord": (_write_tfrecord("GZIP"), lambda p: list(read_records(p, "GZIP"))),
    "zlib.tfrecord": (_write_tfrecord("ZLIB"), lambda p: list(read_records(p, "ZLIB"))),
    "cache.data": (_write_cache, _read_cache),
    "rows.h5": (_write_h5_rows, lambda p: list(HDF5Dataset(str(p), "x", batch_size=8))),
    "arrays.npz": (_write_npz, _download.load_npz),
}


def _variants(data):
    """(label, damaged bytes): truncations, seeded 4-byte flips, a wrong magic."""
    rng = np.random.default_rng(SEED)
    for fraction in (0.0, 0.1, 0.5, 0.9):
        yield f"truncated at {fraction:.0%}", data[:int(len(data) * fraction)]
    yield "last byte missing", data[:-1]
    for k in range(12):
        flipped = bytearray(data)
        for i in rng.integers(0, len(data), 4):
            flipped[i] ^= 0xFF
        yield f"flip #{k}", bytes(flipped)
    yield "wrong magic", b"NOTMAGIC" + data[8:]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_damaged_file_gives_a_clear_error_naming_it(tmp_path, name):
    write, read = FORMATS[name]
    original = tmp_path / name
    write(original)
    data = original.read_bytes()
    refused = 0
    for label, damaged in _variants(data):
        path = tmp_path / f"damaged-{name}"
        path.write_bytes(damaged)
        try:
            read(path)
        except CLEAR_ERRORS as error:
            assert path.name in str(error), f"{label}: {type(error).__name__}: {error}"
            refused += 1
        except Exception as error:  # noqa: BLE001 - the kind of error is what is tested
            pytest.fail(f"{name}, {label}: unclear {type(error).__name__}: {error}")
    assert refused >= 5  # most damage is detected


@pytest.mark.parametrize("name", ["model.keras", "model.weights.h5", "plain.tfrecord",
                                  "cache.data"])
def test_checksummed_formats_never_load_flipped_data(tmp_path, name):
    """.keras (zip CRC), TFRecord (CRC32C) and caches (CRC32) detect every flip in data."""
    write, read = FORMATS[name]
    original = tmp_path / name
    write(original)
    data = original.read_bytes()
    reference = read(original)
    for label, damaged in _variants(data):
        if not label.startswith("flip"):
            continue
        path = tmp_path / f"damaged-{name}"
        path.write_bytes(damaged)
        try:
            result = read(path)
        except CLEAR_ERRORS:
            continue
        if name.endswith((".tfrecord", ".data")):
            assert _same(result, reference), f"{label}: flipped data loaded silently"


def _same(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def test_empty_and_missing_files(tmp_path):
    for name, (_, read) in FORMATS.items():
        missing = tmp_path / f"missing-{name}"
        with pytest.raises((FileNotFoundError, DataLossError, ValueError)):
            result = read(missing)
            if name == "cache.data":  # a missing cache is rebuilt: not an error
                assert result == []
                raise FileNotFoundError(missing)
