"""`tf.train.Example` protocol buffers: build and parse them with the `protobuf` package.

An Example is a map from feature names to one of three lists: bytes, float32 or int64.
The messages are TensorFlow's (same field numbers, packed floats and ints), so records
written here are read by TensorFlow and the other way round.
"""
import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory

from kerasish.backend.config import is_float


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


# -- the messages ----------------------------------------------------------

def _message_classes():
    """Example, Features, Feature and the three lists as protobuf message classes.

    Built from a descriptor of TensorFlow's `example.proto`/`feature.proto` (same
    field numbers and packing) in a private pool, so no generated code is needed and
    no name clashes with TensorFlow's or TensorBoard's own copies.
    """
    file = descriptor_pb2.FileDescriptorProto(name="kerasish/example.proto",
                                              package="tensorflow", syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto
    repeated = F.LABEL_REPEATED

    for list_name, value_type in (("BytesList", F.TYPE_BYTES), ("FloatList", F.TYPE_FLOAT),
                                  ("Int64List", F.TYPE_INT64)):
        file.message_type.add(name=list_name).field.add(name="value", number=1,
                                                        type=value_type, label=repeated)
    feature = file.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, name, list_type in ((1, "bytes_list", "BytesList"),
                                    (2, "float_list", "FloatList"),
                                    (3, "int64_list", "Int64List")):
        feature.field.add(name=name, number=number, type=F.TYPE_MESSAGE,
                          label=F.LABEL_OPTIONAL, type_name=f".tensorflow.{list_type}",
                          oneof_index=0)
    features = file.message_type.add(name="Features")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=".tensorflow.Feature")
    features.field.add(name="feature", number=1, type=F.TYPE_MESSAGE, label=repeated,
                       type_name=".tensorflow.Features.FeatureEntry")
    example = file.message_type.add(name="Example")
    example.field.add(name="features", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                      type_name=".tensorflow.Features")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(
        f"tensorflow.{name}")) for name in ("Example", "Feature")}


_MESSAGES = _message_classes()
Example = _MESSAGES["Example"]


# -- encoding ---------------------------------------------------------------

def _is_text(value):
    return isinstance(value, (bytes, str, np.bytes_, np.str_))


def _as_bytes(items):
    return [v.encode() if isinstance(v, str) else bytes(v) for v in items]


def _fill_feature(feature, value):
    # bytes never go through np.asarray: an "S" array drops trailing NULs.
    if _is_text(value):
        feature.bytes_list.value.extend(_as_bytes([value]))
        return
    if isinstance(value, (list, tuple)) and value and all(map(_is_text, value)):
        feature.bytes_list.value.extend(_as_bytes(value))
        return
    array = np.asarray(value)
    if array.dtype.kind in "SUO":
        feature.bytes_list.value.extend(_as_bytes(array.ravel().tolist()))
    elif is_float(array.dtype):
        feature.float_list.SetInParent()
        feature.float_list.value.extend(array.astype(np.float32).ravel().tolist())
    elif array.dtype.kind in "iub":
        feature.int64_list.SetInParent()
        feature.int64_list.value.extend(array.astype(np.int64).ravel().tolist())
    else:
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
    example = Example()
    for name, value in features.items():
        _fill_feature(example.features.feature[name], value)
    return example.SerializeToString()


# -- decoding ---------------------------------------------------------------

def _feature_values(feature):
    # list() first: numpy converts a Python list several times faster than a protobuf
    # repeated field.
    kind = feature.WhichOneof("kind")
    if kind == "bytes_list":
        return np.array(list(feature.bytes_list.value), dtype=object)
    if kind == "float_list":
        return np.array(list(feature.float_list.value), dtype=np.float32)
    if kind == "int64_list":
        return np.array(list(feature.int64_list.value), dtype=np.int64)
    return np.zeros(0, np.float32)  # a Feature with no kind set


def _parse_all(serialized):
    try:
        example = Example.FromString(bytes(serialized))
    except message.DecodeError as err:
        raise ValueError("Could not parse the record as a tf.train.Example (truncated or "
                         f"damaged data): {err}") from None
    return {name: _feature_values(feature)
            for name, feature in example.features.feature.items()}


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

