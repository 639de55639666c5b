"""CRC-32C (Castagnoli), the checksum of TFRecord framing, from the `google-crc32c` package.

The package runs Google's C implementation (hardware CRC instructions where the CPU has
them) and carries its own pure-Python fallback for platforms where its extension cannot
be installed, so kerasish keeps no CRC code of its own.
"""
import struct

import google_crc32c

_MASK_DELTA = 0xA282EAD8


def crc32c(data):
    """CRC-32C of `data`.

    Args:
        data: bytes-like.

    Returns:
        The CRC as an unsigned 32-bit int.

    Example:
        >>> hex(crc32c(b"123456789"))
        '0xe3069283'
    """
    return google_crc32c.value(bytes(data))


def masked_crc32c(data):
    """TFRecord's masked CRC: rotate right by 15 bits, add a constant.

    Args:
        data: bytes-like.

    Returns:
        The masked CRC as an unsigned 32-bit int.
    """
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def masked_crc32c_bytes(data):
    """The masked CRC of `data` as 4 little-endian bytes (as stored)."""
    return struct.pack("<I", masked_crc32c(data))


def implementation():
    """Which CRC code runs: "google_crc32c (c)" or "google_crc32c (python)"."""
    return f"google_crc32c ({google_crc32c.implementation})"
