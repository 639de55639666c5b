"""Errors of the data pipeline that name the file they come from."""
import os


class DataLossError(Exception):
    """A data file (TFRecord, cache) is truncated, damaged or mislabelled.

    Attributes:
        filename: the file.
        offset: byte offset of the start of the bad record (in the
            decompressed stream for GZIP/ZLIB files).
    """

    def __init__(self, filename, offset, reason):
        super().__init__(f"{reason} in record at byte offset {offset} of "
                         f"{os.fspath(filename)!r} (corrupted or truncated file)")
        self.filename, self.offset = filename, offset
