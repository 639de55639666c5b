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
    if right_size is None and left_size is None:
        raise ValueError("split_dataset: at least one of the `left_size` or `right_size` must "
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
        splits.append(split.batch(batch_size) if batch_size else split)
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
    if isinstance(dataset, (list, tuple)):
        arrays = [np.asarray(a) for a in dataset]
        lengths = {len(a) for a in arrays}
        if len(lengths) != 1:
            raise ValueError("split_dataset: all arrays must have the same length. Received "
                             f"lengths {[len(a) for a in arrays]}.")
        return list(zip(*arrays)), (type(dataset), None), None
    raise TypeError("split_dataset: the `dataset` argument must be either a "
                    "`kerasish.data.Dataset` object, or a list/tuple of arrays. Received: "
                    f"dataset={dataset!r:.80} of type {type(dataset)}")


def _check_same_shapes(samples):
    """Keras's check on array samples (tuples are not checked)."""
    if not samples or not isinstance(samples[0], np.ndarray):
        return
    first = np.shape(samples[0])
    for i, sample in enumerate(samples[1:]):
        if np.shape(sample) != first:
            raise ValueError(f"split_dataset: all `dataset` samples must have same shape, "
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
    """Keras's checks and conversion of split sizes to two positive ints."""
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if size is not None and type(size) not in (int, float):
            raise TypeError(f"split_dataset: invalid `{name}` type. Expected: int or float or "
                            f"None, Received: type({name})={type(size)}.")
        if (type(size) is int and (size <= 0 or size >= total_length)) or \
                (type(size) is float and (size <= 0 or size >= 1)):
            raise ValueError(f"split_dataset: `{name}` should be either a positive integer "
                             f"smaller than {total_length}, or a float within the range "
                             f"`[0, 1]`. Received: {name}={size}")
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError("split_dataset: the sum of `left_size` and `right_size` is greater "
                         "than 1. It must be less than or equal to 1.")
    left = round(left_size * total_length) if type(left_size) is float else left_size
    right = round(right_size * total_length) if type(right_size) is float else right_size
    left = total_length - right if left is None else left
    right = total_length - left if right is None else right
    if left + right > total_length:
        raise ValueError("split_dataset: the sum of `left_size` and `right_size` should be "
                         f"smaller than the {total_length}. Received: left_size + right_size "
                         f"= {left + right}")
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError(f"split_dataset: with `dataset` of length={total_length}, "
                             f"`left_size`={left} and `right_size`={right}, the {side} split "
                             "would be empty. Adjust the sizes.")
    return int(left), int(right)


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
                raise ValueError(f"{caller}: the `class_names` passed did not match the names "
                                 f"of the subdirectories of the target directory. Expected: "
                                 f"{subdirs} (or a subset of it), but received: "
                                 f"class_names={class_names}")
            subdirs = list(class_names)
    else:
        if class_names is not None:
            raise ValueError(f'{caller}: you can only pass `class_names` if `labels="inferred"`. '
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
            raise ValueError(f"{caller}: expected the lengths of `labels` to match the number "
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
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"{caller}: `validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError(f"{caller}: if `subset` is set, `validation_split` must be set, and "
                         "inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f"{caller}: `subset` must be either \"training\", \"validation\" or "
                         f"\"both\", received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError(f"{caller}: if using `validation_split` and shuffling the data, you "
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
