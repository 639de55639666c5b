"""tf.train.Example encoding/decoding, checked against bytes TensorFlow wrote."""
import numpy as np
import pytest

from kerasish.data import (FixedLenFeature, VarLenFeature, make_example, parse_example,
                           parse_single_example)
from kerasish.data.tfrecord import read_records

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def test_make_example_bytes_match_tensorflow():
    # Bytes produced by tf.train.Example(...).SerializeToString() (TF 2.21).
    assert make_example({"a": 3}) == bytes.fromhex("0a0c0a0a0a016112051a030a0103")
    assert make_example({"f": [1.5, -2.25]}) == \
        bytes.fromhex("0a130a110a0166120c120a0a080000c03f000010c0")
    assert make_example({"b": b"hello"}) == \
        bytes.fromhex("0a100a0e0a016212090a070a0568656c6c6f")


def test_negative_and_large_ints_round_trip():
    values = np.array([0, -1, -(2**63), 2**63 - 1, 2**40], dtype=np.int64)
    np.testing.assert_array_equal(parse_example(make_example({"v": values}))["v"], values)


def test_round_trip_of_every_kind():
    record = make_example({"img": bytes(range(256)), "text": ["héllo", b"x"],
                           "f": np.linspace(0, 1, 5), "flag": np.array([True, False]),
                           "empty": np.zeros(0, np.float32)})
    parsed = parse_example(record)
    assert parsed["img"].tolist() == [bytes(range(256))]
    assert parse_example(make_example({"z": b"a\x00\x00"}))["z"][0] == b"a\x00\x00"
    assert parsed["text"].tolist() == ["héllo".encode(), b"x"]
    np.testing.assert_allclose(parsed["f"], np.linspace(0, 1, 5).astype(np.float32))
    assert parsed["flag"].tolist() == [1, 0]
    assert parsed["empty"].size == 0
    assert make_example({}) == b"" and parse_example(b"") == {}


def test_parse_examples_written_by_tensorflow():
    records = list(read_records(FIXTURES / "tf_examples.tfrecord"))
    spec = {"image": FixedLenFeature([], "string"), "label": FixedLenFeature([], "int64"),
            "text": FixedLenFeature([], "string"), "bbox": FixedLenFeature([4], "float32"),
            "missing": FixedLenFeature([2], "int64", default_value=[7, 8]),
            "tags": VarLenFeature("string")}
    parsed = parse_single_example(records[2], spec)
    assert parsed["image"] == bytes(range(2, 14))
    assert parsed["label"] == 1 and parsed["label"].dtype == np.int64
    assert parsed["text"] == b"digit 2"
    assert parsed["bbox"].tolist() == [1.0, 0.25, -1.0, 4.0]
    assert parsed["missing"].tolist() == [7, 8]
    assert parsed["tags"].shape == (0,)


def test_parse_batch_stacks_fixed_len_features():
    records = [make_example({"x": [i, i + 1], "v": list(range(i))}) for i in range(3)]
    batch = parse_example(records, {"x": FixedLenFeature([2], "int64"),
                                    "v": VarLenFeature("int64")})
    assert batch["x"].tolist() == [[0, 1], [1, 2], [2, 3]]
    assert [v.tolist() for v in batch["v"]] == [[], [0], [0, 1]]


def test_spec_errors_are_clear():
    record = make_example({"x": [1, 2, 3]})
    with pytest.raises(ValueError, match="required but missing"):
        parse_single_example(record, {"y": FixedLenFeature([], "int64")})
    with pytest.raises(ValueError, match="expected 2 values"):
        parse_single_example(record, {"x": FixedLenFeature([2], "int64")})
    with pytest.raises(ValueError, match="does not match"):
        parse_single_example(record, {"x": FixedLenFeature([3], "float32")})
    with pytest.raises(ValueError, match="int64, float32 or string"):
        FixedLenFeature([], "float64")
    with pytest.raises(ValueError, match="truncated or damaged"):
        parse_example(record[:-2])


def test_unpacked_encodings_are_accepted():
    # Int64List / FloatList with non-packed repeated fields (legal protobuf).
    int_list = b"\x08\x05\x08\x7f"                       # value: 5, value: 127
    float_list = b"\x0d" + np.float32(1.5).tobytes()     # value: 1.5 (fixed32)
    entry_i = b"\x0a\x01i" + b"\x12" + bytes([len(int_list) + 2]) + b"\x1a" + \
        bytes([len(int_list)]) + int_list
    entry_f = b"\x0a\x01f" + b"\x12" + bytes([len(float_list) + 2]) + b"\x12" + \
        bytes([len(float_list)]) + float_list
    features = b"".join(b"\x0a" + bytes([len(e)]) + e for e in (entry_i, entry_f))
    record = b"\x0a" + bytes([len(features)]) + features
    parsed = parse_example(record)
    assert parsed["i"].tolist() == [5, 127] and parsed["f"].tolist() == [1.5]


def test_repr_of_specs():
    assert repr(FixedLenFeature([], "int64", default_value=0)) == \
        "FixedLenFeature(shape=(), dtype=int64, default_value=0)"
    assert repr(VarLenFeature("string")) == "VarLenFeature(dtype=object)"
