"""`keras.utils.audio_dataset_from_directory`: WAV files read with the standard library."""
import wave

import numpy as np

from kerasish.data.dataset import Dataset
from kerasish.utils import dataset_utils

ALLOWED_FORMATS = (".wav",)
_CALLER = "audio_dataset_from_directory"


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size=32, sampling_rate=None,
                                 output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None,
                                 follow_links=False, verbose=True):
    """A Dataset of (audio, label) from 16-bit PCM `.wav` files, one subfolder per class.

    As Keras (`tf.audio.decode_wav`): samples are float32 in [-1, 1) with shape
    `(samples, channels)`, zero-padded or truncated to `output_sequence_length`;
    without it, batches are padded to their longest clip. Keras's file order,
    seeded shuffle and validation split.

    Args:
        directory, labels, label_mode, class_names, batch_size, shuffle, seed,
        validation_split, subset, follow_links, verbose: as
            `image_dataset_from_directory`.
        sampling_rate: resampling is not supported (Keras needs tensorflow-io).
        output_sequence_length: pad/truncate every clip to this many samples.
        ragged: not supported (kerasish has no ragged tensors).

    Returns:
        A Dataset with a `class_names` attribute (two for subset="both").

    Example:
        >>> ds = keras.utils.audio_dataset_from_directory("speech", output_sequence_length=16000)
    """
    if ragged:
        raise NotImplementedError(f"{_CALLER}: `ragged=True` is not supported (kerasish has "
                                  "no ragged tensors); use `output_sequence_length` or padding.")
    if sampling_rate is not None:
        raise NotImplementedError(f"{_CALLER}: resampling (`sampling_rate`) is not supported; "
                                  "resample the files beforehand.")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f'{_CALLER}: `label_mode` argument must be one of "int", '
                         f'"categorical", "binary", or None. Received: label_mode={label_mode}')
    if output_sequence_length is not None and output_sequence_length <= 0:
        raise ValueError(f"{_CALLER}: `output_sequence_length` must be positive. Received: "
                         f"{output_sequence_length}")
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    dataset_utils.check_validation_split(_CALLER, validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, ALLOWED_FORMATS, class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose, caller=_CALLER)
    if not paths:
        raise ValueError(f"{_CALLER}: no audio files found in directory {directory}. Allowed "
                         f"format(s): {ALLOWED_FORMATS}")
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'{_CALLER}: when passing `label_mode="binary"`, there must be exactly '
                         f"2 class_names. Received: class_names={class_names}")
    datasets = []
    for part in (["training", "validation"] if subset == "both" else [subset]):
        part_paths, part_labels = dataset_utils.training_or_validation_split(
            paths, labels, validation_split, part)
        datasets.append(_make_dataset(part_paths, part_labels, label_mode, class_names,
                                      output_sequence_length, batch_size,
                                      shuffle and not (subset == "both" and part == "validation"),
                                      seed))
    return tuple(datasets) if subset == "both" else datasets[0]


def read_wav(path, desired_samples=None):
    """A 16-bit PCM WAV file as float32 `(samples, channels)` in [-1, 1), and its rate."""
    with wave.open(str(path), "rb") as f:
        if f.getsampwidth() != 2:
            raise ValueError(f"{_CALLER}: {path} is not 16-bit PCM (sample width "
                             f"{f.getsampwidth()} bytes); only 16-bit WAV is supported, as "
                             "tf.audio.decode_wav.")
        channels, rate = f.getnchannels(), f.getframerate()
        frames = f.readframes(f.getnframes())
    audio = np.frombuffer(frames, dtype="<i2").reshape(-1, channels).astype("float32") / 32768.0
    if desired_samples is not None:
        padded = np.zeros((desired_samples, channels), dtype="float32")
        keep = min(desired_samples, len(audio))
        padded[:keep] = audio[:keep]
        audio = padded
    return audio, rate


def _make_dataset(paths, labels, label_mode, class_names, length, batch_size, shuffle, seed):
    dataset = Dataset.from_tensor_slices(np.array(paths)).map(
        lambda path: read_wav(str(path), length)[0])
    if label_mode is not None:
        encoded = dataset_utils.encode_labels(labels, label_mode, len(class_names))
        dataset = Dataset.zip((dataset, Dataset.from_tensor_slices(encoded)))
    if shuffle:
        dataset = dataset.shuffle(batch_size * 8 if batch_size else 1024, seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size) if length is not None else \
            dataset.padded_batch(batch_size)
    dataset.class_names = class_names
    dataset.file_paths = list(paths)
    return dataset
