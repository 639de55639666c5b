"""CRC-32C (Castagnoli), the checksum of TFRecord framing.

Uses the `google_crc32c` or `crc32c` package when one is installed (C speed).
Otherwise short inputs go through a pure-Python 256-entry-table loop (about
5 MB/s) and long ones through a numpy version that runs the same table
update on many slices of the input at once, then merges the slices' CRCs
(CRC is linear over GF(2): appending n zero bytes is a fixed 32x32 bit
matrix, applied here through four 256-entry lookup tables).
"""
import functools
import struct

import numpy as np

_POLY = 0x82F63B78  # CRC-32C polynomial, bit-reversed
_MASK_DELTA = 0xA282EAD8


def _make_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc32c_python(data, crc=0):
    """CRC-32C of `data` in pure Python (256-entry table, byte at a time).

    Args:
        data: bytes-like.
        crc: a previous CRC to continue from.

    Returns:
        The CRC as an unsigned 32-bit int.

    Example:
        >>> hex(crc32c_python(b"123456789"))
        '0xe3069283'
    """
    table = _TABLE
    crc ^= 0xFFFFFFFF
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


_TABLE_NP = np.array(_TABLE, dtype=np.uint32)
VECTOR_THRESHOLD = 4096  # bytes; below this the plain loop is faster


class _ZeroShift:
    """The linear map "feed n zero bytes" on a raw (unmasked) CRC register."""

    def __init__(self, columns):
        # columns[b] is the image of the register value 1 << b.
        self.columns = np.asarray(columns, dtype=np.uint32)
        values = np.arange(256)
        self.tables = np.zeros((4, 256), np.uint32)
        for k in range(4):
            for bit in range(8):
                self.tables[k][(values >> bit) & 1 == 1] ^= self.columns[8 * k + bit]

    def __call__(self, register):
        t = self.tables
        return (t[0][register & 0xFF] ^ t[1][(register >> 8) & 0xFF]
                ^ t[2][(register >> 16) & 0xFF] ^ t[3][(register >> 24) & 0xFF])

    def then(self, other):
        """The map `other(self(x))`."""
        return _ZeroShift(other(self.columns))


def _one_zero_byte():
    basis = np.uint32(1) << np.arange(32, dtype=np.uint32)
    return _ZeroShift(_TABLE_NP[basis & 0xFF] ^ (basis >> 8))


_POWERS = [_one_zero_byte()]  # _POWERS[i] feeds 2**i zero bytes


@functools.lru_cache(maxsize=512)
def _zero_shift(n):
    while (1 << len(_POWERS)) <= n:
        _POWERS.append(_POWERS[-1].then(_POWERS[-1]))
    shift = None
    for i, power in enumerate(_POWERS):
        if n >> i & 1:
            shift = power if shift is None else shift.then(power)
    return shift


def crc32c_numpy(data):
    """CRC-32C of `data`, vectorised with numpy (for long inputs).

    The input is split into K equal slices (zero-padded in front, which does
    not change a CRC that starts from 0); the table update runs on all K
    registers at once, then neighbouring slices are merged pairwise:
    crc(A + B) = shift_len(B)(crc(A)) ^ crc(B).

    Args:
        data: bytes-like.

    Returns:
        The CRC as an unsigned 32-bit int.

    Example:
        >>> hex(crc32c_numpy(b"123456789" * 1000)) == hex(crc32c_python(b"123456789" * 1000))
        True
    """
    buffer = np.frombuffer(bytes(data), dtype=np.uint8)
    length = len(buffer)
    if length == 0:
        return 0
    lanes = 1 << max(0, min(12, (length.bit_length() - 1) // 2))
    width = -(-length // lanes)
    padded = np.zeros(lanes * width, np.uint8)
    padded[lanes * width - length:] = buffer
    columns = padded.reshape(lanes, width).T.copy()
    registers = np.zeros(lanes, np.uint32)
    for column in columns:
        registers = _TABLE_NP[(registers ^ column) & 0xFF] ^ (registers >> 8)
    while len(registers) > 1:
        registers = _zero_shift(width)(registers[0::2]) ^ registers[1::2]
        width *= 2
    start = int(_zero_shift(length)(np.uint32(0xFFFFFFFF)))
    return (start ^ int(registers[0])) ^ 0xFFFFFFFF


def _native():
    try:
        import google_crc32c
        if google_crc32c.implementation == "c":
            return lambda data: google_crc32c.value(bytes(data))
    except ImportError:
        pass
    try:
        import crc32c as crc32c_package
        return lambda data: crc32c_package.crc32c(bytes(data))
    except ImportError:
        return None


_NATIVE = _native()


def crc32c(data):
    """CRC-32C of `data`, natively when a package provides it.

    Args:
        data: bytes-like.

    Returns:
        The CRC as an unsigned 32-bit int.

    Example:
        >>> hex(crc32c(b"123456789"))
        '0xe3069283'
    """
    if _NATIVE is not None:
        return _NATIVE(data)
    if len(data) >= VECTOR_THRESHOLD:
        return crc32c_numpy(data)
    return crc32c_python(data)


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
