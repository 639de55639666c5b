"""`keras.utils.pad_sequences`: pad or truncate ragged sequences into a 2D array."""
import numpy as np

_SIDES = ("pre", "post")


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre",
                  truncating="pre", value=0.0):
    """Pads sequences to the same length.

    Turns a list of `num_samples` sequences into an array of shape
    `(num_samples, num_timesteps)`, where `num_timesteps` is `maxlen` if given,
    else the length of the longest sequence. Shorter sequences are filled with
    `value`, longer ones are cut; `padding` and `truncating` say on which side
    (`"pre"`, the default, works on the beginning). Elements may themselves be
    arrays: every non-empty sequence must then share the element shape of the
    first non-empty one, which is appended to the output shape.

    Args:
        sequences: list (or other sized iterable) of sequences.
        maxlen: optional int, the output length.
        dtype: output dtype (default `"int32"`); use `object` (or a numpy
            string dtype) for strings.
        padding: `"pre"` or `"post"`: pad before or after each sequence.
        truncating: `"pre"` or `"post"`: drop values from the beginning or the
            end of sequences longer than `maxlen`.
        value: float or string, the padding value.

    Returns:
        A numpy array of shape `(len(sequences), maxlen) + element_shape`.

    Raises:
        ValueError: `sequences` (or one of its items) is not sized, `value`
            is a string but `dtype` is neither `object` nor a string dtype,
            `padding`/`truncating` is not `"pre"`/`"post"`, or the element
            shapes differ.

    Example:
        >>> pad_sequences([[1], [2, 3], [4, 5, 6]])
        array([[0, 0, 1],
               [0, 2, 3],
               [4, 5, 6]], dtype=int32)
        >>> pad_sequences([[1], [2, 3], [4, 5, 6]], maxlen=2, padding="post")
        array([[1, 0],
               [2, 3],
               [5, 6]], dtype=int32)
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = _lengths_and_sample_shape(sequences)
    maxlen = _resolve_maxlen(maxlen, lengths)
    _check_value_dtype(value, dtype)
    _check_side("Truncating", truncating)
    _check_side("Padding", padding)
    x = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s) or not maxlen:
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {trunc.shape[1:]} of sequence at "
                f"position {idx} is different from expected shape "
                f"{sample_shape}")
        if padding == "post":
            x[idx, :len(trunc)] = trunc
        else:
            x[idx, -len(trunc):] = trunc
    return x


def _lengths_and_sample_shape(sequences):
    """Lengths of all sequences and the element shape of the first non-empty one."""
    lengths = []
    sample_shape = None
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError as e:
            raise ValueError(
                "`sequences` must be a list of iterables. "
                f"Found non-iterable: {str(x)}") from e
        if sample_shape is None and len(x):
            sample_shape = np.asarray(x).shape[1:]
    return lengths, sample_shape if sample_shape is not None else ()


def _resolve_maxlen(maxlen, lengths):
    if maxlen is None:
        return int(np.max(lengths)) if lengths else 0
    try:
        valid = int(maxlen) == maxlen and maxlen >= 0
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise ValueError(
            f"`maxlen` must be None or a non-negative int; received: {maxlen!r}")
    return int(maxlen)


def _check_value_dtype(value, dtype):
    is_dtype_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: "
            f"{type(value)}\nYou should set `dtype=object` for variable length "
            "strings.")


def _check_side(kind, side):
    if side not in _SIDES:
        raise ValueError(f'{kind} type "{side}" not understood')
