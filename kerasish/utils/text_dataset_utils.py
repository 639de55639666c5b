"""`keras.utils.text_dataset_from_directory` on `kerasish.data.Dataset`."""
import numpy as np

from kerasish.data.constants import AUTOTUNE
from kerasish.data.dataset import Dataset
from kerasish.utils import dataset_utils

_CALLER = "text_dataset_from_directory"


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None, shuffle=True,
                                seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):
    """A Dataset of (text, label) from `.txt` files in one subfolder per class.

    Keras's file order, seeded shuffle and validation split. Texts are
    Python strings (UTF-8), truncated to `max_length` bytes when given.

    Args:
        directory: the root folder.
        labels: "inferred", None, or a list of integer labels in file order.
        label_mode: "int", "categorical", "binary" or None.
        class_names: explicit class order.
        batch_size: batch size or None.
        max_length: maximum length of a text, in bytes.
        shuffle, seed, validation_split, subset, follow_links, verbose: as
            `image_dataset_from_directory`.
        format: only "tf".

    Returns:
        A Dataset with a `class_names` attribute (two datasets for subset="both").

    Example:
        >>> train = keras.utils.text_dataset_from_directory("aclImdb/train", seed=1)
    """
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "`labels` argument should be a list/tuple of integer labels, of the same size "
                "as the number of text files in the target directory. If you wish to infer "
                "the labels from the subdirectory names in the target directory, pass "
                '`labels="inferred"`. If you wish to get a dataset that only contains text '
                f"samples (no labels), pass `labels=None`. Received: labels={labels}")
        if class_names:
            raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. '
                             f"Received: labels={labels}, and class_names={class_names}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f'`label_mode` argument must be one of "int", '
                         f'"categorical", "binary", or None. Received: label_mode={label_mode}')
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    if format == "grain":
        raise NotImplementedError(f'{_CALLER}: `format="grain"` is not supported; kerasish '
                                  'returns its own Dataset (`format="tf"`).')
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    dataset_utils.check_validation_split(_CALLER, validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, (".txt",), class_names=class_names, shuffle=shuffle, seed=seed,
        follow_links=follow_links, verbose=verbose, caller=_CALLER)
    if not paths:
        raise ValueError(f"No text files found in directory {directory}. Allowed "
                         "format: .txt")
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly '
                         f"2 class_names. Received: class_names={class_names}")
    datasets = []
    for part in (["training", "validation"] if subset == "both" else [subset]):
        part_paths, part_labels = dataset_utils.training_or_validation_split(
            paths, labels, validation_split, part)
        datasets.append(_make_dataset(part_paths, part_labels, label_mode, class_names,
                                      max_length, batch_size,
                                      shuffle and not (subset == "both" and part == "validation"),
                                      seed))
    # Keras returns a list here (audio_dataset_from_directory returns a tuple).
    return datasets if subset == "both" else datasets[0]


def _make_dataset(paths, labels, label_mode, class_names, max_length, batch_size, shuffle,
                  seed):
    def read(path):
        with open(str(path), "rb") as f:
            data = f.read()
        if max_length is not None:
            data = data[:max_length]
        return np.str_(data.decode("utf-8", errors="ignore"))

    dataset = Dataset.from_tensor_slices(np.array(paths)).map(read)
    if label_mode is not None:
        encoded = dataset_utils.encode_labels(labels, label_mode, len(class_names))
        dataset = Dataset.zip((dataset, Dataset.from_tensor_slices(encoded)))
    if shuffle:
        dataset = dataset.shuffle(batch_size * 8 if batch_size else 1024, seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    # As Keras, the pipeline ends with a prefetch (so `split_dataset` takes its elements,
    # batches or not, as the samples, as Keras does)
    dataset = dataset.prefetch(AUTOTUNE)
    dataset.class_names = class_names
    dataset.file_paths = list(paths)
    return dataset
