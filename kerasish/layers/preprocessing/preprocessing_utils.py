"""Helpers shared by the preprocessing layers: host arrays, adapt batches,
Keras's categorical encodings and argument checks."""
import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.data.dataset import Dataset
from kerasish.ops import core

OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def to_host(x, dtype=None):
    """`x` (Tensor, numpy array, list, scalar) as a numpy array on the host.

    Python strings become a numpy unicode array; nested lists of strings
    keep their shape.
    """
    if isinstance(x, Tensor):
        x = x.numpy()
    elif hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        x = x.get()
    elif hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        x = x.numpy()   # e.g. a tf.Tensor handed over by user code
    array = np.asarray(x)
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    elif array.dtype.kind == "O" and array.size and isinstance(array.flat[0], bytes):
        array = np.vectorize(lambda b: b.decode("utf-8"), otypes=[str])(array)
    if dtype is not None:
        array = array.astype(dtype)
    return array


def is_string_array(array):
    return array.dtype.kind in "USO"


def to_tensor(array, dtype=None):
    """A numpy result as a kerasish Tensor on the current device (strings stay on the host)."""
    array = np.asarray(array)
    if dtype is not None:
        array = array.astype(dtype)
    if array.dtype.kind in "USO":
        return Tensor(array)   # a numpy array: a host tensor (a GPU cannot hold strings)
    return core.convert_to_tensor(array)


def host_strings(inputs):
    """String data (numpy arrays, lists) as a host Tensor before `Layer.__call__`
    converts it, so text never goes to a GPU device; anything else unchanged."""
    if not isinstance(inputs, (np.ndarray, list, str)):
        return inputs
    try:
        array = np.asarray(inputs)
    except ValueError:   # ragged lists: leave them to the layer's own checks
        return inputs
    if array.dtype.kind in "USO":
        return Tensor(to_host(array))
    return inputs


def iterate_adapt_batches(layer_name, data, steps=None, list_is_batches=False):
    """Yields host arrays from what `adapt()` accepts: an array, a list, a
    Tensor, a `kerasish.data.Dataset` or any iterable of batches.

    A list is one array, unless `list_is_batches` and it holds arrays (as
    Keras's Normalization reads a list of batches).
    Raises ValueError (naming the layer) when nothing comes out.
    """
    batches_list = list_is_batches and isinstance(data, list) and bool(data) and all(
        isinstance(b, (np.ndarray, Tensor)) for b in data)
    if batches_list or isinstance(data, Dataset) or (hasattr(data, "__iter__") and not
                                                     isinstance(data, (list, tuple, np.ndarray,
                                                                       Tensor, str, bytes))):
        batches = data.take(steps) if (isinstance(data, Dataset) and steps is not None) \
            else data
        if isinstance(batches, Dataset):
            batches = batches.as_numpy_iterator()
        count = 0
        for i, batch in enumerate(batches):
            if steps is not None and i >= steps:
                break
            if isinstance(batch, tuple):
                raise ValueError(
                    f"{layer_name}.adapt() expects a dataset of inputs only, but its elements "
                    f"are tuples of {len(batch)} items (e.g. (inputs, targets)). Map the "
                    "dataset to the inputs first: `ds.map(lambda x, y: x)`.")
            count += 1
            yield to_host(batch)
        if count == 0:
            raise ValueError(f"{layer_name}.adapt() received an empty dataset: there is no "
                             "data to compute the state from.")
        return
    array = to_host(data)
    if array.size == 0:
        raise ValueError(f"{layer_name}.adapt() received empty data (shape {array.shape}): "
                         "there is no data to compute the state from.")
    yield array


def encode_categorical(indices, output_mode, depth, dtype="float32", count_weights=None):
    """Keras's encoding of integer indices as one_hot / multi_hot / count.

    As Keras: a scalar becomes a vector; a rank-1 input is one sample for
    multi_hot/count (output `(depth,)`) but one index per row for one_hot
    (output `(n, depth)`); a rank-2 input `(n, k)` gives `(n, depth)`, its last
    axis summed (multi_hot/count) or, for one_hot, only when `k == 1`.
    Indices >= depth are dropped; negative ones are dropped by one_hot and
    refused (ValueError) by multi_hot/count.

    Args:
        indices: integer numpy array.
        output_mode: "int", "one_hot", "multi_hot" or "count".
        depth: number of bins.
        dtype: output dtype.
        count_weights: optional per-bin weights (tf_idf) multiplied into counts.

    Returns:
        numpy array.
    """
    indices = np.asarray(indices)
    if output_mode == "int":
        return indices.astype(dtype)
    if indices.ndim == 0:
        indices = indices.reshape(1)
    if output_mode == "one_hot":
        if indices.ndim > 1 and indices.shape[-1] == 1:
            indices = indices[..., 0]
        return _one_hot(indices, depth, dtype)
    if indices.ndim > 2:
        raise ValueError(
            f"When output_mode is not `'int'`, maximum supported output rank is 2. Received "
            f"output_mode {output_mode} and input shape {indices.shape}, which would result "
            f"in output rank {indices.ndim}.")
    counts = _bincount_rows(indices.reshape(-1, indices.shape[-1]), depth)
    if output_mode == "multi_hot":
        counts = np.minimum(counts, 1)
    counts = counts.reshape(indices.shape[:-1] + (depth,))
    if count_weights is not None:
        return counts.astype(dtype) * np.asarray(count_weights, dtype)
    return counts.astype(dtype)


def _one_hot(indices, depth, dtype):
    valid = (indices >= 0) & (indices < depth)
    out = np.zeros(indices.shape + (depth,), dtype=dtype)
    flat = out.reshape(-1, depth)
    rows = np.nonzero(valid.reshape(-1))[0]
    flat[rows, indices.reshape(-1)[rows]] = 1
    return out


def check_non_negative(indices):
    """multi_hot/count encodings are a bincount, which (TensorFlow's
    DenseBincount under Keras) refuses negative indices; one_hot drops them."""
    if indices.size and indices.min() < 0:
        raise ValueError("Input indices must be non-negative for a multi_hot or count "
                         f"encoding (a bincount). Received a negative index: {indices.min()}")


def _bincount_rows(rows, depth):
    check_non_negative(rows)
    valid = rows < depth
    row_ids = np.broadcast_to(np.arange(rows.shape[0])[:, None], rows.shape)
    counts = np.zeros((rows.shape[0], depth), dtype="int64")
    np.add.at(counts, (row_ids[valid], rows[valid]), 1)
    return counts


def legacy_output_mode(output_mode):
    """Keras's deprecated `output_mode` names: "binary" is "multi_hot", "tf-idf" is
    "tf_idf" (IndexLookup, StringLookup, IntegerLookup, TextVectorization).

    Args:
        output_mode: the `output_mode` argument as given.

    Returns:
        The current name for it (anything else unchanged).
    """
    return {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode) \
        if isinstance(output_mode, str) else output_mode


def check_output_mode(layer_name, output_mode, allowed):
    if output_mode not in allowed:
        raise ValueError(
            f"{layer_name}: invalid value for argument `output_mode`. Expected one of "
            f"{list(allowed)}. Received: output_mode={output_mode!r}")


def check_positive_int(layer_name, name, value, allow_none=False, minimum=1):
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(
            f"{layer_name}: argument `{name}` must be an integer >= {minimum}"
            f"{' or None' if allow_none else ''}. Received: {name}={value!r}")


def listify(value):
    """Arrays/tensors as (nested) lists for get_config; anything else unchanged."""
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value
