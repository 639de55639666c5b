"""TFRecord framing: files written by TensorFlow, round trips, corruption."""
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from kerasish.data import (DataLossError, Dataset, FixedLenFeature, TFRecordDataset,
                           TFRecordWriter, UNKNOWN_CARDINALITY, parse_example,
                           parse_single_example, read_records, write_records)

FIXTURES = Path(__file__).parent / "fixtures"
RAW = [b"", b"a", b"hello world", bytes(range(256)) * 3]


def test_reads_records_written_by_tensorflow():
    assert list(read_records(FIXTURES / "tf_raw.tfrecord")) == RAW
    assert list(TFRecordDataset(str(FIXTURES / "tf_raw.tfrecord"))) == RAW


def test_writer_output_is_byte_identical_to_tensorflow(tmp_path):
    path = tmp_path / "ours.tfrecord"
    with TFRecordWriter(path) as writer:
        for record in RAW:
            writer.write(record)
    assert path.read_bytes() == (FIXTURES / "tf_raw.tfrecord").read_bytes()


@pytest.mark.parametrize("name, compression", [("tf_examples_gzip.tfrecord", "GZIP"),
                                               ("tf_examples_zlib.tfrecord", "ZLIB")])
def test_compressed_files_from_tensorflow(name, compression):
    plain = list(read_records(FIXTURES / "tf_examples.tfrecord"))
    assert list(TFRecordDataset(str(FIXTURES / name), compression_type=compression)) == plain


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_round_trip_with_compression(tmp_path, compression):
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path, compression) as writer:
        for i in range(50):
            writer.write({"label": i, "text": f"item {i}"})
    parsed = [parse_example(r) for r in read_records(path, compression)]
    assert [int(p["label"][0]) for p in parsed] == list(range(50))
    assert parsed[7]["text"][0] == b"item 7"
    with pytest.raises(ValueError, match="compression_type"):
        TFRecordWriter(tmp_path / "x", "BZIP2")


def test_dataset_pipeline_with_parse(tmp_path):
    paths = write_records(tmp_path / "digits", ({"image": np.full(4, i, np.uint8).tobytes(),
                                                 "label": i % 10} for i in range(20)),
                          shards=3)
    assert [os.path.basename(p) for p in paths] == [
        "digits-00000-of-00003.tfrecord", "digits-00001-of-00003.tfrecord",
        "digits-00002-of-00003.tfrecord"]
    spec = {"image": FixedLenFeature([], "string"), "label": FixedLenFeature([], "int64")}

    def decode(record):
        example = parse_single_example(record, spec)
        return np.frombuffer(example["image"], np.uint8), example["label"]

    ds = TFRecordDataset(paths).map(decode).batch(8)
    assert ds.cardinality() == UNKNOWN_CARDINALITY
    labels = np.concatenate([y for _, y in ds])
    assert sorted(labels.tolist()) == sorted(i % 10 for i in range(20))
    # Round-robin sharding: shard 0 holds records 0, 3, 6, ...
    first = [parse_example(r)["label"][0] for r in read_records(paths[0])]
    assert first == [0, 3, 6, 9, 2, 5, 8]


def test_parallel_reads_interleave_files(tmp_path, no_leaked_threads):
    paths = [write_records(tmp_path / f"f{i}", [bytes([i, j]) for j in range(3)])[0]
             for i in range(2)]
    ds = TFRecordDataset(paths, num_parallel_reads=2)
    assert list(ds) == [b"\x00\x00", b"\x01\x00", b"\x00\x01", b"\x01\x01",
                        b"\x00\x02", b"\x01\x02"]
    files = Dataset.list_files(str(tmp_path / "f*"), shuffle=False)
    assert len(list(TFRecordDataset(files))) == 6
    assert len(list(Dataset.from_tfrecord(paths))) == 6


def _corrupt(tmp_path, offset_from_record_start):
    path = tmp_path / "bad.tfrecord"
    shutil.copy(FIXTURES / "tf_raw.tfrecord", path)
    data = bytearray(path.read_bytes())
    start = 16 + 17  # records 0 (16 bytes) and 1 (17 bytes) come first
    data[start + offset_from_record_start] ^= 0xFF
    path.write_bytes(bytes(data))
    return path, start


def test_corrupt_data_names_file_and_offset(tmp_path):
    path, start = _corrupt(tmp_path, 14)  # a byte of record 2's data
    with pytest.raises(DataLossError) as info:
        list(read_records(path))
    assert info.value.offset == start and str(path) in str(info.value)
    assert "data CRC mismatch" in str(info.value) and f"offset {start}" in str(info.value)


def test_corrupt_data_skipped_with_ignore_errors(tmp_path):
    path, _ = _corrupt(tmp_path, 14)
    expected = [RAW[0], RAW[1], RAW[3]]
    assert list(TFRecordDataset(str(path), ignore_errors=True)) == expected
    assert list(TFRecordDataset(str(path)).ignore_errors()) == expected


def test_corrupt_length_stops_the_file(tmp_path):
    path, start = _corrupt(tmp_path, 0)
    with pytest.raises(DataLossError, match="length CRC mismatch"):
        list(read_records(path))
    assert list(read_records(path, skip_corrupt=True)) == RAW[:2]


def test_truncated_file(tmp_path):
    path = tmp_path / "short.tfrecord"
    path.write_bytes((FIXTURES / "tf_raw.tfrecord").read_bytes()[:-3])
    with pytest.raises(DataLossError, match="truncated"):
        list(read_records(path))
    path.write_bytes(b"\x01\x02\x03")
    with pytest.raises(DataLossError, match="truncated record header"):
        list(read_records(path))


def test_bad_arguments():
    with pytest.raises(ValueError):
        TFRecordDataset([])
    with pytest.raises(ValueError):
        write_records("/tmp/never", [], shards=0)


def _frame_claiming(length):
    """A record header whose (valid-CRC) length field claims `length` bytes."""
    import struct
    from kerasish.data.crc import masked_crc32c_bytes
    header = struct.pack("<Q", length)
    return header + masked_crc32c_bytes(header) + b"abc"


def test_oversized_length_is_a_data_loss_error_not_a_memory_error(tmp_path):
    path = tmp_path / "huge.tfrecord"
    path.write_bytes(_frame_claiming(2 ** 40))
    assert path.stat().st_size == 15
    with pytest.raises(DataLossError) as info:
        list(read_records(path))
    message = str(info.value)
    assert "record length 1099511627776 exceeds the 3 bytes left in the file" in message
    assert str(path) in message and "byte offset 0" in message
    assert list(TFRecordDataset(str(path), ignore_errors=True)) == []


def test_oversized_length_in_a_gzip_file_is_a_data_loss_error(tmp_path):
    import gzip
    path = tmp_path / "huge.tfrecord.gz"
    path.write_bytes(gzip.compress(_frame_claiming(2 ** 40)))
    with pytest.raises(DataLossError, match="truncated record data") as info:
        list(read_records(path, "GZIP"))
    assert str(path) in str(info.value)


def _gzip_records(tmp_path, name, records):
    path = tmp_path / name
    with TFRecordWriter(str(path), "GZIP") as writer:
        for record in records:
            writer.write(record)
    return path


def test_truncated_gzip_names_the_file_and_is_skipped_by_ignore_errors(tmp_path):
    good = _gzip_records(tmp_path, "good.gz", RAW)
    bad = _gzip_records(tmp_path, "bad.gz", [bytes(range(256)) * 40] * 3)
    bad.write_bytes(bad.read_bytes()[:-30])
    with pytest.raises(DataLossError, match=r"damaged GZIP stream|truncated") as info:
        list(read_records(bad, "GZIP"))
    assert str(bad) in str(info.value) and "byte offset" in str(info.value)
    kept = list(TFRecordDataset([str(bad), str(good)], "GZIP", ignore_errors=True))
    assert kept[-len(RAW):] == RAW and len(kept) <= len(RAW) + 2


def test_mislabelled_gzip_file_names_the_file_and_is_skipped_by_ignore_errors(tmp_path):
    plain = tmp_path / "plain.tfrecord"
    shutil.copy(FIXTURES / "tf_raw.tfrecord", plain)
    good = _gzip_records(tmp_path, "good.gz", RAW)
    with pytest.raises(DataLossError, match="damaged GZIP stream .*Not a gzipped file") as info:
        list(read_records(plain, "GZIP"))
    assert str(plain) in str(info.value) and "byte offset 0" in str(info.value)
    assert list(TFRecordDataset([str(plain), str(good)], "GZIP", ignore_errors=True)) == RAW
    assert list(TFRecordDataset([str(plain), str(good)], "GZIP").ignore_errors()) == RAW
