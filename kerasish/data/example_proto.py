"""`tf.train.Example` protocol buffers without protobuf: build and parse.

An Example is a map from feature names to one of three lists: bytes,
float32 or int64. The wire format written here is what TensorFlow writes
(length-delimited map entries; packed floats and ints), and the parser also
accepts the unpacked encodings other writers may use.
"""
import numpy as np
from kerasish.backend.config import is_float

_BYTES, _FLOAT, _INT64 = 1, 2, 3  # field numbers of Feature's oneof


class FixedLenFeature:
    """A feature with a fixed number of values, parsed into a dense array.

    Args:
        shape: shape of the parsed array (`[]` for a scalar).
        dtype: "int64", "float32" or "string" (numpy dtypes also accepted;
            strings give an object array of `bytes`).
        default_value: used when the feature is missing; None makes a missing
            feature an error.

    Example:
        >>> FixedLenFeature([], "int64", default_value=0)
        FixedLenFeature(shape=(), dtype=int64, default_value=0)
    """

    def __init__(self, shape, dtype, default_value=None):
        dims = shape if isinstance(shape, (list, tuple)) else [shape]
        self.shape = tuple(int(d) for d in dims)
        self.dtype = _feature_dtype(dtype)
        self.default_value = default_value

    def __repr__(self):
        return (f"FixedLenFeature(shape={self.shape}, dtype={self.dtype}, "
                f"default_value={self.default_value!r})")


class VarLenFeature:
    """A feature with any number of values, parsed into a 1-D array.

    (tf.data returns a SparseTensor; kerasish has no sparse type, so the
    values come back dense, ready for `padded_batch`.)

    Args:
        dtype: "int64", "float32" or "string".

    Example:
        >>> VarLenFeature("float32")
        VarLenFeature(dtype=float32)
    """

    def __init__(self, dtype):
        self.dtype = _feature_dtype(dtype)

    def __repr__(self):
        return f"VarLenFeature(dtype={self.dtype})"


def _feature_dtype(dtype):
    if dtype in ("string", "bytes", bytes, str, object, np.bytes_):
        return np.dtype(object)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.int64), np.dtype(np.float32), np.dtype(object)):
        raise ValueError(f"Example features hold int64, float32 or string values, "
                         f"not {dtype}.")
    return dtype


# -- encoding ---------------------------------------------------------------

def _varint(value):
    value &= 0xFFFFFFFFFFFFFFFF  # negative int64 -> two's complement (10 bytes)
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _is_text(value):
    return isinstance(value, (bytes, str, np.bytes_, np.str_))


def _bytes_payload(items):
    items = [v.encode() if isinstance(v, str) else bytes(v) for v in items]
    return _field(_BYTES, b"".join(_field(1, v) for v in items))


def _feature_payload(value):
    # bytes never go through np.asarray: an "S" array drops trailing NULs.
    if _is_text(value):
        return _bytes_payload([value])
    if isinstance(value, (list, tuple)) and value and all(map(_is_text, value)):
        return _bytes_payload(value)
    array = np.asarray(value)
    if array.dtype.kind in "SUO":
        return _bytes_payload(array.ravel().tolist())
    if is_float(array.dtype):
        packed = array.astype("<f4").ravel().tobytes()
        return _field(_FLOAT, _field(1, packed) if packed else b"")
    if array.dtype.kind in "iub":
        packed = b"".join(_varint(int(v)) for v in array.astype(np.int64).ravel())
        return _field(_INT64, _field(1, packed) if packed else b"")
    raise TypeError(f"Cannot store values of dtype {array.dtype} in an Example.")


def make_example(features):
    """Serialises a dict of values as a `tf.train.Example`.

    Args:
        features: name -> value. `bytes`/`str` (or lists/arrays of them)
            become a bytes_list; float arrays a float_list (stored as
            float32); int and bool arrays an int64_list. Arrays are flattened.

    Returns:
        The serialized Example (`bytes`), readable by TensorFlow.

    Example:
        >>> record = make_example({"label": 3, "image": b"\\x89PNG..."})
        >>> parse_example(record)["label"]
        array([3])
    """
    entries = b""
    for name, value in features.items():
        entry = _field(1, name.encode()) + _field(2, _feature_payload(value))
        entries += _field(1, entry)
    return _field(1, entries) if entries else b""


# -- decoding ---------------------------------------------------------------

class _Reader:
    """Walks protobuf wire-format fields of one message."""

    def __init__(self, data):
        self.data, self.pos = memoryview(data), 0

    def varint(self):
        result = shift = 0
        while True:
            if self.pos >= len(self.data):
                raise ValueError("Truncated varint in Example.")
            byte = self.data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7

    def fields(self):
        """Yields (field_number, wire_type, value) until the end."""
        while self.pos < len(self.data):
            key = self.varint()
            number, wire = key >> 3, key & 7
            yield number, wire, self._value(wire)

    def _value(self, wire):
        if wire == 0:
            return self.varint()
        if wire == 2:
            size = self.varint()
            return self._take(size)
        if wire == 5:
            return self._take(4)
        if wire == 1:
            return self._take(8)
        raise ValueError(f"Unsupported protobuf wire type {wire} in Example.")

    def _take(self, size):
        if self.pos + size > len(self.data):
            raise ValueError("Truncated field in Example.")
        value = self.data[self.pos:self.pos + size]
        self.pos += size
        return value


def _parse_feature(data):
    for kind, _, payload in _Reader(data).fields():
        if kind == _BYTES:
            return np.array([bytes(v) for _, _, v in _Reader(payload).fields()],
                            dtype=object)
        if kind == _FLOAT:
            return _parse_floats(payload)
        if kind == _INT64:
            return _parse_ints(payload)
    return np.zeros(0, np.float32)  # a Feature with no kind set


def _parse_floats(payload):
    parts = []
    for _, _, value in _Reader(payload).fields():
        parts.append(bytes(value))  # packed (wire 2) or single (wire 5) alike
    return np.frombuffer(b"".join(parts), dtype="<f4").astype(np.float32)


def _parse_ints(payload):
    values = []
    for _, wire, value in _Reader(payload).fields():
        if wire == 2:
            inner = _Reader(value)
            while inner.pos < len(inner.data):
                values.append(inner.varint())
        else:
            values.append(value)
    return np.array(values, dtype=np.uint64).astype(np.int64)


def _parse_all(serialized):
    features = {}
    for number, _, example_field in _Reader(bytes(serialized)).fields():
        if number != 1:
            continue
        for _, _, entry in _Reader(example_field).fields():
            name, value = None, b""
            for field_number, _, payload in _Reader(entry).fields():
                if field_number == 1:
                    name = bytes(payload).decode()
                elif field_number == 2:
                    value = payload
            features[name] = _parse_feature(value)
    return features


def parse_example(serialized, features=None):
    """Parses serialized `tf.train.Example`s.

    Args:
        serialized: one record (`bytes`), or a list / object array of them.
        features: optional dict name -> `FixedLenFeature`/`VarLenFeature`;
            without it every feature is returned as a 1-D array (int64,
            float32, or object array of `bytes`).

    Returns:
        A dict name -> array; for a list of records, FixedLenFeature values
        are stacked (leading batch dimension) and other values are object
        arrays holding one array per record.

    Example:
        >>> parse_example(make_example({"x": [1.5, 2.0]}))["x"]
        array([1.5, 2. ], dtype=float32)
    """
    if isinstance(serialized, (bytes, bytearray, memoryview, np.bytes_)):
        if features is None:
            return _parse_all(serialized)
        return parse_single_example(serialized, features)
    parsed = [parse_example(s, features) for s in serialized]
    return {name: _stack_column([p[name] for p in parsed],
                                isinstance((features or {}).get(name), FixedLenFeature))
            for name in (features or (parsed[0] if parsed else {}))}


def _stack_column(values, fixed):
    if fixed:
        return np.stack(values)
    column = np.empty(len(values), dtype=object)
    column[:] = values
    return column


def parse_single_example(serialized, features):
    """Parses one `tf.train.Example` against a feature spec, like tf.io's.

    Args:
        serialized: the record (`bytes`).
        features: dict name -> `FixedLenFeature` or `VarLenFeature`.

    Returns:
        A dict name -> numpy array (FixedLen: the given shape; VarLen: 1-D).

    Raises:
        ValueError: a required feature is missing, or has the wrong size or
            value type.

    Example:
        >>> spec = {"label": FixedLenFeature([], "int64")}
        >>> parse_single_example(make_example({"label": 7}), spec)
        {'label': np.int64(7)}
    """
    found = _parse_all(serialized)
    return {name: _apply_spec(name, found.get(name), spec)
            for name, spec in features.items()}


def _apply_spec(name, values, spec):
    if isinstance(spec, VarLenFeature):
        if values is None:
            return np.zeros(0, dtype=spec.dtype)
        return _check_kind(name, values, spec.dtype)
    if not isinstance(spec, FixedLenFeature):
        raise TypeError(f"Feature {name!r}: expected FixedLenFeature or VarLenFeature, "
                        f"got {type(spec).__name__}.")
    if values is None or (values.size == 0 and spec.default_value is not None):
        if spec.default_value is None:
            raise ValueError(f"Feature {name!r} is required but missing from the Example.")
        default = np.asarray(spec.default_value, dtype=spec.dtype)
        return _scalar_or_array(np.broadcast_to(default, spec.shape).copy())
    values = _check_kind(name, values, spec.dtype)
    if values.size != int(np.prod(spec.shape, dtype=np.int64)):
        raise ValueError(f"Feature {name!r}: expected {int(np.prod(spec.shape))} values "
                         f"for shape {list(spec.shape)}, found {values.size}.")
    return _scalar_or_array(values.reshape(spec.shape))


def _check_kind(name, values, dtype):
    if values.size and values.dtype != dtype:
        raise ValueError(f"Feature {name!r}: data type {values.dtype} in the Example "
                         f"does not match the requested {dtype}.")
    return values.astype(dtype, copy=False)


def _scalar_or_array(array):
    return array[()] if array.ndim == 0 else array

