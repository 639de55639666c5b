"""CRC-32C against published check values (RFC 3720 B.4 and the CRC catalogue)."""
import pytest

from kerasish.data import crc


@pytest.mark.parametrize("data, expected", [
    (b"", 0x00000000),
    (b"123456789", 0xE3069283),
    (bytes(32), 0x8A9136AA),
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
    (bytes(range(31, -1, -1)), 0x113FDB5C),
])
def test_known_values(data, expected):
    assert crc.crc32c(data) == expected
    assert crc.crc32c(memoryview(data)) == expected


def test_masking_matches_tfrecord_definition():
    value = crc.crc32c(b"abc")
    rotated = ((value >> 15) | (value << 17)) & 0xFFFFFFFF
    assert crc.masked_crc32c(b"abc") == (rotated + 0xA282EAD8) & 0xFFFFFFFF
    # The header of an empty record written by TensorFlow: length 0 -> 0x07980329.
    assert crc.masked_crc32c(bytes(8)) == 0x07980329
    assert crc.masked_crc32c_bytes(bytes(8)) == bytes.fromhex("29039807")


def test_reports_the_implementation():
    assert crc.implementation() in ("google_crc32c (c)", "google_crc32c (python)")
