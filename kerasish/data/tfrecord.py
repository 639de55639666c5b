"""TFRecord files: `TFRecordWriter`, `TFRecordDataset`, `write_records`.

Each record is framed as

    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)

(all little-endian), the format TensorFlow reads and writes. Files may be
GZIP or ZLIB compressed as a whole, as in TensorFlow.
"""
import gzip
import os
import struct
import zlib
from contextlib import closing

import numpy as np

from kerasish.data.constants import UNKNOWN_CARDINALITY
from kerasish.data.crc import masked_crc32c, masked_crc32c_bytes
from kerasish.data.dataset import Dataset
from kerasish.data.errors import DataLossError
from kerasish.data.example_proto import make_example
from kerasish.data.tensor_spec import TensorSpec

_HEADER = 12
_COMPRESSIONS = (None, "", "GZIP", "ZLIB")


class TFRecordWriter:
    """Writes records (`bytes`, or dicts turned into Examples) to a file.

    Args:
        path: the output file.
        compression_type: None/"" (plain), "GZIP" or "ZLIB".

    Example:
        >>> with TFRecordWriter("/tmp/demo.tfrecord") as writer:
        ...     writer.write(make_example({"label": 1}))
    """

    def __init__(self, path, compression_type=None):
        self.path = os.fspath(path)
        self._file = _open_write(self.path, _check_compression(compression_type))

    def write(self, record):
        """Appends one record.

        Args:
            record: `bytes`, or a dict of features (serialised with
                `make_example`).
        """
        if isinstance(record, dict):
            record = make_example(record)
        record = bytes(record)
        length = struct.pack("<Q", len(record))
        self._file.write(length + masked_crc32c_bytes(length) + record
                         + masked_crc32c_bytes(record))

    def flush(self):
        """Flushes buffered records to the file."""
        self._file.flush()

    def close(self):
        """Flushes and closes the file."""
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _check_compression(compression_type):
    if compression_type not in _COMPRESSIONS:
        raise ValueError(f"compression_type must be None, '', 'GZIP' or 'ZLIB', "
                         f"got {compression_type!r}.")
    return compression_type or None


def _open_write(path, compression):
    if compression == "GZIP":
        return gzip.open(path, "wb")
    if compression == "ZLIB":
        return _ZlibWriter(path)
    return open(path, "wb")


def _open_read(path, compression):
    if compression == "GZIP":
        return gzip.open(path, "rb")
    if compression == "ZLIB":
        return _ZlibReader(path)
    return open(path, "rb")


class _ZlibWriter:
    def __init__(self, path):
        self._file, self._zlib = open(path, "wb"), zlib.compressobj()

    def write(self, data):
        self._file.write(self._zlib.compress(data))

    def flush(self):
        self._file.flush()

    def close(self):
        self._file.write(self._zlib.flush())
        self._file.close()


class _ZlibReader:
    def __init__(self, path):
        self._file, self._zlib, self._pending = open(path, "rb"), zlib.decompressobj(), b""

    def read(self, size):
        while len(self._pending) < size:
            chunk = self._file.read(1 << 16)
            if not chunk:
                self._pending += self._zlib.flush()
                break
            self._pending += self._zlib.decompress(chunk)
        data, self._pending = self._pending[:size], self._pending[size:]
        return data

    def close(self):
        self._file.close()


def read_records(path, compression_type=None, skip_corrupt=False):
    """Yields the records of one TFRecord file, checking both CRCs.

    Args:
        path: the file.
        compression_type: None/"", "GZIP" or "ZLIB".
        skip_corrupt: skip a record whose data CRC fails, and stop reading
            the file (no error) when its framing or compression is broken.

    Yields:
        Each record's `bytes`.

    Raises:
        DataLossError: naming the file and the record's byte offset (in the
            decompressed stream for GZIP/ZLIB files): a broken frame, a CRC
            mismatch, a record longer than the file, a damaged or truncated
            compressed stream.

    Example:
        >>> records = list(read_records("/tmp/demo.tfrecord"))
    """
    compression = _check_compression(compression_type)
    path = os.fspath(path)
    limit = os.path.getsize(path) if compression is None else None
    with closing(_open_read(path, compression)) as file:
        offset = 0
        while True:
            try:
                record = _read_one(_Framed(file, path, compression, offset), path, offset, limit)
            except DataLossError:
                if skip_corrupt:
                    return
                raise
            if record is None:
                return
            data, size, data_ok = record
            offset += size
            if data_ok:
                yield data
            elif not skip_corrupt:
                raise DataLossError(path, offset - size, "data CRC mismatch")


class _Framed:
    """Reads from a (possibly compressed) file; stream errors become DataLossError."""

    _CHUNK = 1 << 20

    def __init__(self, file, path, compression, offset):
        self.file, self.path, self.compression, self.offset = file, path, compression, offset

    def read(self, size):
        """Up to `size` bytes, read in chunks (a huge claimed length never allocates)."""
        parts, remaining = [], size
        while remaining > 0:
            try:
                chunk = self.file.read(min(remaining, self._CHUNK))
            except (EOFError, gzip.BadGzipFile, zlib.error) as error:
                raise DataLossError(self.path, self.offset,
                                    f"damaged {self.compression} stream ({error})") from None
            if not chunk:
                break
            parts.append(chunk)
            remaining -= len(chunk)
        return b"".join(parts)


def _read_one(file, path, offset, limit=None):
    """One framed record: (data, bytes consumed, data CRC ok) or None at EOF.

    Args:
        file: a `_Framed` reader positioned at the record.
        path: the file name, for errors.
        offset: the record's byte offset.
        limit: the file's size when known (uncompressed files).
    """
    header = file.read(_HEADER)
    if not header:
        return None
    if len(header) < _HEADER:
        raise DataLossError(path, offset, "truncated record header")
    length_bytes, length_crc = header[:8], struct.unpack("<I", header[8:])[0]
    if masked_crc32c(length_bytes) != length_crc:
        raise DataLossError(path, offset, "length CRC mismatch")
    length = struct.unpack("<Q", length_bytes)[0]
    if limit is not None and offset + _HEADER + length + 4 > limit:
        raise DataLossError(path, offset, f"record length {length} exceeds the "
                                          f"{limit - offset - _HEADER} bytes left in the file")
    data, footer = file.read(length), file.read(4)
    if len(data) < length or len(footer) < 4:
        raise DataLossError(path, offset, "truncated record data")
    data_ok = masked_crc32c(data) == struct.unpack("<I", footer)[0]
    return data, _HEADER + length + 4, data_ok


class TFRecordDataset(Dataset):
    """A dataset of the records (`bytes`) of one or more TFRecord files.

    Args:
        filenames: a path, a list of paths, or a dataset of paths.
        compression_type: None/"", "GZIP" or "ZLIB".
        buffer_size: accepted for tf.data compatibility (reads are buffered
            by the OS).
        num_parallel_reads: read this many files at once, interleaving
            their records one by one (each file on its own thread); None
            reads the files in order.
        ignore_errors: skip corrupt records (a record whose framing is broken
            ends its file) instead of raising `DataLossError`.

    Example:
        >>> ds = TFRecordDataset(["/tmp/demo.tfrecord"]).map(parse_example)
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, ignore_errors=False):
        self._filenames = filenames if isinstance(filenames, Dataset) \
            else _filename_dataset(filenames)
        self._compression = _check_compression(compression_type)
        self._num_parallel_reads = num_parallel_reads
        self._ignore_errors = bool(ignore_errors)

    def _file_records(self, filename):
        return _FileRecords(filename, self._compression, self._ignore_errors)

    def _iterator(self, ctx):
        if self._num_parallel_reads in (None, 1):
            return self._sequential(ctx)
        files = self._filenames.interleave(
            self._file_records, cycle_length=self._num_parallel_reads, block_length=1,
            num_parallel_calls=self._num_parallel_reads)
        return files._iterator(ctx)

    def _sequential(self, ctx):
        with closing(self._filenames._iterator(ctx)) as names:
            for name in names:
                yield from self._file_records(name)._iterator(ctx)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _compute_element_spec(self):
        return TensorSpec((), object)


class _FileRecords(Dataset):
    """The records of one file (what `TFRecordDataset` interleaves)."""

    def __init__(self, filename, compression, ignore_errors):
        self._path = _as_path(filename)
        self._compression, self._ignore_errors = compression, ignore_errors

    def _iterator(self, ctx):
        return read_records(self._path, self._compression,
                            skip_corrupt=self._ignore_errors or ctx.ignore_errors)

    def _compute_element_spec(self):
        return TensorSpec((), object)


def _filename_dataset(filenames):
    names = [filenames] if isinstance(filenames, (str, bytes, os.PathLike)) \
        else list(filenames)
    if not names:
        raise ValueError("TFRecordDataset needs at least one filename.")
    return Dataset.from_tensor_slices(np.array([_as_path(n).encode() for n in names],
                                               dtype=object))


def _as_path(name):
    if isinstance(name, (bytes, np.bytes_)):
        return bytes(name).decode()
    return os.fspath(str(name) if isinstance(name, np.str_) else name)


def write_records(path_prefix, records, shards=1, compression_type=None):
    """Writes records round-robin into `shards` TFRecord files.

    Records may be `bytes` or dicts of features (serialised with
    `make_example`), so images, labels, text and metadata can sit together
    in one record.

    Args:
        path_prefix: files are named `{path_prefix}-00000-of-00004.tfrecord`.
        records: an iterable of records.
        shards: number of files.
        compression_type: None/"", "GZIP" or "ZLIB".

    Returns:
        The list of file paths written.

    Example:
        >>> paths = write_records("/tmp/digits", ({"label": i} for i in range(10)),
        ...                       shards=2)
    """
    if int(shards) < 1:
        raise ValueError(f"shards must be positive, got {shards}.")
    paths = [f"{os.fspath(path_prefix)}-{i:05d}-of-{int(shards):05d}.tfrecord"
             for i in range(int(shards))]
    writers = [TFRecordWriter(p, compression_type) for p in paths]
    try:
        for i, record in enumerate(records):
            writers[i % len(writers)].write(record)
    finally:
        for writer in writers:
            writer.close()
    return paths
