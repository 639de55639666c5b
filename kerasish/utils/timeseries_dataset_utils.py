"""`keras.utils.timeseries_dataset_from_array` on `kerasish.data.Dataset`."""
import numpy as np

from kerasish.data.dataset import Dataset
from kerasish.data.tensor_spec import TensorSpec

_CALLER = "timeseries_dataset_from_array"


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None, format="tf"):
    """Sliding windows over a time series, as batches (Keras's windows and targets).

    Window i holds `data[start + p_i + k * sampling_rate]` for k < sequence_length,
    with start positions `p_i = 0, sequence_stride, ...`; its target is
    `targets[start + p_i]`. With `shuffle`, the start positions are permuted by
    `np.random.RandomState(seed)` as in Keras (then shuffled within a buffer).

    Args:
        data: array-like, first axis is time.
        targets: array-like aligned with `data`, or None.
        sequence_length: window length (in samples after sampling).
        sequence_stride: step between window starts.
        sampling_rate: step between samples inside a window.
        batch_size: windows per batch (None: single windows).
        shuffle, seed: shuffle the windows.
        start_index, end_index: use `data[start_index:end_index]` only.
        format: only "tf".

    Returns:
        A Dataset of windows, or of (windows, targets).

    Example:
        >>> ds = keras.utils.timeseries_dataset_from_array(np.arange(10), None, 3, batch_size=4)
        >>> next(iter(ds)).tolist()
        [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]
    """
    data = np.asarray(data)
    _check_arguments(len(data), sequence_length, sequence_stride, sampling_rate, start_index,
                     end_index, format)
    start = start_index or 0
    end = len(data) if end_index is None else end_index
    num_seqs = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        targets = np.asarray(targets)
        num_seqs = min(num_seqs, len(targets))
    positions = np.arange(0, max(num_seqs, 0), sequence_stride,
                          dtype="int32" if num_seqs < 2147483647 else "int64")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(positions)
    window = np.arange(sequence_length) * sampling_rate
    series = data[start:end]
    target_series = None if targets is None else targets[start:end]

    def gather(p):
        windows = series[p[..., None] + window]
        return windows if target_series is None else (windows, target_series[p])

    dataset = Dataset.from_tensor_slices(positions)
    if shuffle:
        dataset = dataset.shuffle(batch_size * 8 if batch_size else 1024, seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    dataset = dataset.map(gather)
    # Keras's spec (the map's would be read off its first element): the batch dimension
    # of `batch()` without `drop_remainder` and the window length (a gather) are unknown.
    batch = () if batch_size is None else (None,)
    windows = TensorSpec(batch + (None,) + series.shape[1:], series.dtype.name)
    dataset._spec = windows if target_series is None else (
        windows, TensorSpec(batch + target_series.shape[1:], target_series.dtype.name))
    if batch_size is not None:
        dataset._batch_size = batch_size   # Keras's pipeline ends with `batch(batch_size)`
    # (its repr: tf.data's class of Keras's last step, `batch` or else `prefetch`)
    dataset._tf_class_name = "_BatchDataset" if batch_size is not None else "_PrefetchDataset"
    return dataset


def _check_arguments(length, sequence_length, stride, rate, start_index, end_index, format):
    def fail(message):
        raise ValueError(message)   # Keras's words, unprefixed

    if start_index:
        if start_index < 0:
            fail(f"`start_index` must be 0 or greater. Received: start_index={start_index}")
        if start_index >= length:
            fail("`start_index` must be lower than the length of the data. Received: "
                 f"start_index={start_index}, for data of length {length}")
    if end_index:
        if start_index and end_index <= start_index:
            fail("`end_index` must be higher than `start_index`. Received: "
                 f"start_index={start_index}, and end_index={end_index} ")   # (Keras's space)
        if end_index >= length:
            fail("`end_index` must be lower than the length of the data. Received: "
                 f"end_index={end_index}, for data of length {length}")
        if end_index <= 0:
            fail(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    # Keras's four messages
    if rate <= 0:
        fail(f"`sampling_rate` must be higher than 0. Received: sampling_rate={rate}")
    if rate >= length:
        fail("`sampling_rate` must be lower than the length of the data. Received: "
             f"sampling_rate={rate}, for data of length {length}")
    if stride <= 0:
        fail(f"`sequence_stride` must be higher than 0. Received: sequence_stride={stride}")
    if stride >= length:
        fail("`sequence_stride` must be lower than the length of the data. Received: "
             f"sequence_stride={stride}, for data of length {length}")
    if sequence_length <= 0:
        fail(f"`sequence_length` must be positive. Received: sequence_length={sequence_length}")
    if format not in ("tf", "grain"):
        fail(f'`format` should be either "tf" or "grain". Received: format={format}')
    if format == "grain":
        raise NotImplementedError(f'{_CALLER}: `format="grain"` is not supported; kerasish '
                                  'returns its own Dataset (`format="tf"`).')
