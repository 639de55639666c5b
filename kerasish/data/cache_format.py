"""The on-disk format of `Dataset.cache(filename)`: arrays only, never code.

A cache file is a magic line followed by one record per element:

    uint64 payload length | uint32 crc32(payload) | payload
    payload = uint32 header length | JSON header (the structure) | .npy arrays ...

The header describes the element's nesting (dicts, tuples, namedtuples)
and, per leaf, how to rebuild it from its arrays. Arrays are written and
read with `numpy.lib.format` and `allow_pickle=False`, so a planted or
damaged file can at worst raise an error: nothing in it is ever run.
Object arrays are stored only when they hold `bytes`/`str` (tf.string
batches); any other object data is refused when the cache is written.
"""
import io
import json
import os
import struct
import zlib

import numpy as np

from kerasish.data.errors import DataLossError

MAGIC = b"\x93KERASISH-DATASET-CACHE v2\n"
_FRAME = struct.Struct("<QI")
_LENGTH = struct.Struct("<I")


def write_magic(file):
    """Writes the format's first line to a new cache file."""
    file.write(MAGIC)


def write_element(file, element):
    """Appends one element to an open cache file.

    Args:
        file: a binary file opened for writing.
        element: a dataset element (nested dicts/tuples of numpy leaves).

    Raises:
        TypeError: a leaf is object data other than bytes/str.
    """
    arrays = []
    header = json.dumps(_encode(element, arrays, "element")).encode()
    payload = io.BytesIO()
    payload.write(_LENGTH.pack(len(header)) + header)
    for array in arrays:
        np.lib.format.write_array(payload, array, allow_pickle=False)
    data = payload.getvalue()
    file.write(_FRAME.pack(len(data), zlib.crc32(data)) + data)


def read_elements(file, path):
    """Yields the elements of an open cache file (after checking the magic).

    Args:
        file: a binary file opened for reading.
        path: its name, for error messages.

    Raises:
        DataLossError: the file is not a kerasish cache or is damaged.
    """
    if file.read(len(MAGIC)) != MAGIC:
        raise DataLossError(path, 0, "not a kerasish Dataset.cache file (wrong magic; caches "
                            "written by older kerasish versions were pickles and are never "
                            "read: delete the file to rebuild the cache)")
    size = os.fstat(file.fileno()).st_size
    while True:
        offset = file.tell()
        frame = file.read(_FRAME.size)
        if not frame:
            return
        if len(frame) < _FRAME.size:
            raise DataLossError(path, offset, "truncated cache record header")
        length, crc = _FRAME.unpack(frame)
        if offset + _FRAME.size + length > size:
            raise DataLossError(path, offset, f"cache record length {length} exceeds the "
                                              f"{size - offset - _FRAME.size} bytes left")
        data = file.read(length)
        if zlib.crc32(data) != crc:
            raise DataLossError(path, offset, "cache record CRC mismatch")
        try:
            element = _read_record(io.BytesIO(data))
        except (ValueError, KeyError, TypeError, EOFError, struct.error) as error:
            raise DataLossError(path, offset, f"damaged cache record ({error})") from None
        yield element


def _read_record(file):
    (length,) = _LENGTH.unpack(file.read(_LENGTH.size))
    header = file.read(length)
    if len(header) != length:
        raise EOFError("truncated header")
    tree = json.loads(header)
    return _decode(tree, lambda: np.lib.format.read_array(file, allow_pickle=False))


def _encode(value, arrays, where):
    """The JSON description of `value`; its arrays are appended to `arrays`."""
    if isinstance(value, dict):
        keys = list(value)
        if not all(isinstance(k, str) for k in keys):
            raise TypeError(f"Dataset.cache(filename) stores dicts with str keys only; "
                            f"{where} has keys {keys!r}.")
        return {"dict": keys, "items": [_encode(value[k], arrays, f"{where}[{k!r}]")
                                        for k in keys]}
    if isinstance(value, tuple):
        items = [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]
        if hasattr(value, "_fields"):
            return {"namedtuple": type(value).__name__, "fields": list(value._fields),
                    "items": items}
        return {"tuple": items}
    return _encode_leaf(value, arrays, where)


def _encode_leaf(value, arrays, where):
    if isinstance(value, bytes):
        arrays.append(np.frombuffer(value, dtype=np.uint8))
        return {"leaf": "bytes"}
    if isinstance(value, str):
        arrays.append(np.frombuffer(value.encode(), dtype=np.uint8))
        return {"leaf": "str"}
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        kind = "array" if isinstance(value, np.ndarray) else "scalar"
        if array.dtype != object:
            arrays.append(array)
            return {"leaf": kind}
        return _encode_strings(array, arrays, where, kind)
    raise TypeError(
        f"Dataset.cache(filename) stores numpy arrays, numpy scalars, bytes and str only; "
        f"{where} is a {type(value).__name__}. Convert it to an array, or cache in memory "
        "with cache() (no filename).")


def _encode_strings(array, arrays, where, kind):
    flat = array.reshape(-1)
    if not all(isinstance(x, bytes) for x in flat):
        kinds = sorted({type(x).__name__ for x in flat if not isinstance(x, bytes)})
        raise TypeError(
            f"Dataset.cache(filename) cannot store {where}: an object array holding "
            f"{', '.join(kinds)} (only object arrays of bytes, i.e. string tensors, can be "
            "stored without pickle). Convert it to a numeric or bytes array, or cache in "
            "memory with cache() (no filename).")
    arrays.append(np.array([len(x) for x in flat], dtype=np.int64))
    arrays.append(np.frombuffer(b"".join(flat), dtype=np.uint8))
    return {"leaf": "strings", "shape": list(array.shape), "scalar": kind == "scalar"}


def _decode(tree, next_array):
    if "dict" in tree:
        return {k: _decode(t, next_array) for k, t in zip(tree["dict"], tree["items"])}
    if "tuple" in tree:
        return tuple(_decode(t, next_array) for t in tree["tuple"])
    if "namedtuple" in tree:
        import collections
        cls = collections.namedtuple(tree["namedtuple"], tree["fields"])
        return cls(*(_decode(t, next_array) for t in tree["items"]))
    return _decode_leaf(tree, next_array)


def _decode_leaf(tree, next_array):
    kind = tree["leaf"]
    if kind == "bytes":
        return next_array().tobytes()
    if kind == "str":
        return next_array().tobytes().decode()
    if kind == "array":
        return next_array()
    if kind == "scalar":
        return next_array()[()]
    if kind == "strings":
        lengths, data = next_array(), next_array().tobytes()
        ends = np.cumsum(lengths)
        items = [data[e - n:e] for e, n in zip(ends.tolist(), lengths.tolist())]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        out = out.reshape(tree["shape"])
        return out[()] if tree["scalar"] else out
    raise ValueError(f"unknown leaf kind {kind!r}")
