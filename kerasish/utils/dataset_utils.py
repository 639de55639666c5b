"""`keras.utils.split_dataset` and the directory indexing shared by
`image_dataset_from_directory` and `text_dataset_from_directory` (Keras's order,
shuffling and splits)."""
import os
import random

import numpy as np

from kerasish.data.dataset import Dataset


class MissingDirectoryError(FileNotFoundError, ValueError):
    """The data directory does not exist: Keras raises FileNotFoundError (os.listdir's);
    a ValueError too, as kerasish raises for bad arguments."""


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None,
                  preferred_backend=None):
    """Splits arrays, a tuple/list of arrays or a Dataset into two Datasets.

    As Keras: float sizes are fractions (rounded), int sizes counts; the left
    split is the first `left_size` samples and the right split the last
    `right_size`; `shuffle` uses Python's `random` seeded with `seed`.

    Args:
        dataset: numpy array, list/tuple of arrays, or `kerasish.data.Dataset`.
        left_size, right_size: int count or float fraction (one may be None).
        shuffle: shuffle before splitting.
        seed: seed of the shuffle.
        preferred_backend: ignored (Keras compatibility).

    Returns:
        (left, right) `kerasish.data.Dataset`s (a dataset whose last step is
        `batch()` is split by samples and both splits batched again, as Keras).

    Example:
        >>> left, right = keras.utils.split_dataset(np.arange(10), left_size=0.8)
        >>> len(list(left)), len(list(right))
        (8, 2)
    """
    if not isinstance(dataset, (Dataset, np.ndarray, list, tuple)):
        raise TypeError(f"Unsupported dataset type: {type(dataset)}")   # Keras's words
    if right_size is None and left_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must "
                         "be specified. Received: left_size=None and right_size=None")
    samples, structure, batch_size = _as_samples(dataset)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    left, right = rescale_split_sizes(left_size, right_size, len(samples))
    splits = []
    for part in (samples[:left], samples[-right:]):
        split = Dataset.from_tensor_slices(_restore(part, structure))
        split = split.batch(batch_size) if batch_size else split
        split._tf_class_name = "_PrefetchDataset"   # Keras's splits end with `prefetch`
        splits.append(split)
    return tuple(splits)


def _as_samples(dataset):
    if isinstance(dataset, Dataset):
        # As Keras (`is_batched`): a dataset whose last step is `batch()` is unbatched
        # into samples and the splits batched again; any other's elements are the samples
        batch_size = getattr(dataset, "_batch_size", None)
        elements = list(dataset.as_numpy_iterator())
        if batch_size is not None:
            elements = [_unbatch(e, i) for e in elements for i in range(len(_first_leaf(e)))]
        _check_same_shapes(elements)
        return elements, ("dataset", elements[0] if elements else None), batch_size
    if isinstance(dataset, np.ndarray):
        return list(dataset), ("array", None), None
    kind = "tuple" if isinstance(dataset, tuple) else "list"   # Keras's words for each
    if not dataset:
        raise ValueError("Received an empty list dataset. Please provide a non-empty list of "
                         "arrays." if kind == "list" else "Received an empty list dataset."
                         "Please provide a non-empty tuple of arrays.")
    for i, array in enumerate(dataset):
        if not isinstance(array, np.ndarray):
            raise ValueError(f"Expected a {kind} of `numpy.ndarray` objects,Received: "
                             f"{type(array)} at index {i}.")
        if array.shape[0] != dataset[0].shape[0]:
            raise ValueError(f"Received a {kind} of NumPy arrays with different lengths."
                             f"Mismatch found at index {i}, Expected shape={dataset[0].shape} "
                             f"Received shape={array.shape}.Please provide a {kind} of NumPy "
                             "arrays of the same length.")
    return list(zip(*dataset)), (type(dataset), None), None


def _check_same_shapes(samples):
    """Keras's check on array samples (tuples are not checked)."""
    if not samples or not isinstance(samples[0], np.ndarray):
        return
    first = np.shape(samples[0])
    for i, sample in enumerate(samples[1:]):
        if np.shape(sample) != first:
            raise ValueError(f"All `dataset` samples must have same shape, "
                             f"Expected shape: {first} Received shape: {np.shape(sample)} at "
                             f"index {i}.")


def _first_leaf(element):
    return element[0] if isinstance(element, tuple) else element


def _unbatch(element, i):
    return tuple(e[i] for e in element) if isinstance(element, tuple) else element[i]


def _restore(samples, structure):
    kind, _ = structure
    if kind == "array" or (kind == "dataset" and not isinstance(samples[0], tuple)):
        return np.array(samples)
    return tuple(np.array(column) for column in zip(*samples))


def rescale_split_sizes(left_size, right_size, total_length):
    """Keras's checks (in its order and words) and conversion of split sizes to two
    positive ints."""
    left_type, right_type = type(left_size), type(right_size)
    left_bad = left_size is not None and left_type not in (int, float)
    right_bad = right_size is not None and right_type not in (int, float)
    if left_bad and right_bad:
        raise TypeError("Invalid `left_size` and `right_size` Types. Expected: integer or "
                        f"float or None, Received: type(left_size)={left_type} and "
                        f"type(right_size)={right_type}")
    if left_bad:
        raise TypeError("Invalid `left_size` Type. Expected: int or float or None, "
                        f"Received: type(left_size)={left_type}.  ")
    if right_bad:
        raise TypeError("Invalid `right_size` Type. Expected: int or float or None,"
                        f"Received: type(right_size)={right_type}.")
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the "
                         "split sizes must be non-zero.")
    if _out_of_range(left_size, total_length):
        raise ValueError(f"`left_size` should be either a positive integer smaller than "
                         f"{total_length}, or a float within the range `[0, 1]`. Received: "
                         f"left_size={left_size}")
    if _out_of_range(right_size, total_length):
        raise ValueError(f"`right_size` should be either a positive integer and smaller than "
                         f"{total_length} or a float within the range `[0, 1]`. Received: "
                         f"right_size={right_size}")
    if right_type is left_type is float and right_size + left_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must "
                         "be less than or equal to 1.")
    # Keras's values: a float size is rounded, an int size becomes a float
    left = round(left_size * total_length) if left_type is float else (
        float(left_size) if left_type is int else None)
    right = round(right_size * total_length) if right_type is float else (
        float(right_size) if right_type is int else None)
    left = total_length - right if left is None else left
    right = total_length - left if right is None else right
    if left + right > total_length:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the "
                         f"{total_length}. Received: left_size + right_size = {left + right}"
                         f"and total_length = {total_length}")
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError(f"With `dataset` of length={total_length}, `left_size`={left} "
                             f"and `right_size`={right}.Resulting {side} side dataset split "
                             "will be empty. Adjust any of the aforementioned parameters")
    return int(left), int(right)


def _out_of_range(size, total_length):
    return (type(size) is int and (size <= 0 or size >= total_length)) or \
        (type(size) is float and (size <= 0 or size >= 1))


# Directory indexing -------------------------------------------------------------------------
def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None,
                    follow_links=False, verbose=True, caller="image_dataset_from_directory"):
    """File paths, labels and class names of a class-per-subfolder directory (Keras's order).

    Classes are the sorted subdirectory names (not starting with "."); files are
    walked in sorted order; `shuffle` permutes paths and labels with
    `np.random.RandomState(seed)` as Keras does.
    """
    if not os.path.isdir(directory):
        raise MissingDirectoryError(f"{caller}: `directory` {directory!r} does not exist or "
                                    "is not a directory.")
    if labels == "inferred":
        subdirs = [d for d in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(set(subdirs)):
                raise ValueError(f"The `class_names` passed did not match the names "
                                 f"of the subdirectories of the target directory. Expected: "
                                 f"{subdirs} (or a subset of it), but received: "
                                 f"class_names={class_names}")
            subdirs = list(class_names)
    else:
        if class_names is not None:
            raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. '
                             f"Received: labels={labels}, and class_names={class_names}")
        subdirs = [""]
    filenames, found_labels = [], []
    for index, subdir in enumerate(subdirs):
        root_dir = os.path.join(directory, subdir)
        for root, fname in _valid_files(root_dir, follow_links, formats):
            relative = os.path.relpath(os.path.join(root, fname), directory)
            filenames.append(relative)
            found_labels.append(index)
    if labels == "inferred":
        labels = np.array(found_labels, dtype="int32")
        class_names = subdirs
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(filenames):
            raise ValueError(f"Expected the lengths of `labels` to match the number "
                             f"of files in the target directory. len(labels) is {len(labels)} "
                             f"while we found {len(filenames)} files in directory {directory}.")
        class_names = [str(label) for label in sorted(set(labels))]
        labels = np.asarray(labels)
    if verbose:
        found = f"Found {len(filenames)} files"
        print(found + "." if labels is None else
              f"{found} belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, f) for f in filenames]
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def _valid_files(directory, follow_links, formats):
    walk = os.walk(directory, followlinks=follow_links)
    for root, _, files in sorted(walk, key=lambda entry: entry[0]):
        for fname in sorted(files):
            if fname.lower().endswith(formats):
                yield root, fname


def check_validation_split(caller, validation_split, subset, shuffle, seed):
    """Keras's `check_validation_split_arg`, in its words (`caller` is not named)."""
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and "
                         "inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f"`subset` must be either \"training\", \"validation\" or "
                         f"\"both\", received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you "
                         "must provide a `seed` argument, to make sure that there is no overlap "
                         "between the training and validation subset.")


def training_or_validation_split(samples, labels, validation_split, subset):
    """Keras's split: validation is the last `int(split * n)` samples."""
    if not validation_split:
        return samples, labels
    num_val = int(validation_split * len(samples))
    if subset == "training":
        print(f"Using {len(samples) - num_val} files for training.")
        return samples[:-num_val], None if labels is None else labels[:-num_val]
    print(f"Using {num_val} files for validation.")
    return samples[-num_val:], None if labels is None else labels[-num_val:]


def encode_labels(labels, label_mode, num_classes):
    """Labels as Keras gives them: int32, binary float32 (n, 1) or categorical float32."""
    labels = np.asarray(labels)
    if label_mode == "binary":
        return labels.astype("float32").reshape(-1, 1)
    if label_mode == "categorical":
        return np.eye(num_classes, dtype="float32")[labels.astype("int64")]
    return labels.astype("int32")
