"""The input seam of fit/evaluate/predict: every data source becomes batches.

`get_adapter` turns numpy arrays (nested lists/dicts too), Python
generators, `kerasish.data.Dataset`s and PyDataset-style sequences into an
object with `num_batches` (None when unknown) and `batches()` (a fresh
iterator of `(x, y, sample_weight)`-style numpy structures per epoch).
"""
import functools
import itertools
import math
import random
import types
import warnings

import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config as backend_config, devices, philox
from kerasish.data.dataset import Dataset
from kerasish.data.iterator import DatasetIterator, IterationContext
from kerasish.utils import tree


def unpack_x_y_sample_weight(data):
    """Splits a batch into (x, y, sample_weight); y and sample_weight may be None.

    Example:
        >>> x, y, sw = keras.utils.unpack_x_y_sample_weight((x_batch, y_batch))
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(
        "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
        f"found a tuple of length {len(data)}."
    )


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The inverse of `unpack_x_y_sample_weight`; a lone `x` is not wrapped (as Keras),
    except a list/tuple of inputs, which becomes `(x,)`."""
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _to_numpy(value):
    if value is None:
        return None
    value = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
    # as Keras's array adapter: float arrays other than floatx become floatx
    floatx = backend_config.floatx()
    if value.dtype.kind == "f" and value.dtype.name != floatx:
        value = value.astype(floatx)
    return value


def _is_array_data(x):
    leaves = tree.flatten(x)
    return bool(leaves) and all(isinstance(v, (np.ndarray, Tensor, list, int, float))
                                or hasattr(v, "__array__") for v in leaves)


@functools.lru_cache(maxsize=4)
def _tf_order(seed, n, batch_size):
    """`philox.tf_global_shuffle`, kept: every epoch asks for the same order
    (0.7 s for a million samples)."""
    order = philox.tf_global_shuffle(seed, n, batch_size)
    order.setflags(write=False)
    return order


def _shuffled(n, shuffle, batch_size):
    """The sample order of one epoch of `fit(shuffle=True)` or `fit(shuffle="batch")`.

    As Keras, "batch" keeps the batches in order and shuffles the samples
    within each. After `keras.utils.set_random_seed(s)` the order is
    Keras-on-TensorFlow's (the same for every epoch: `philox.tf_global_shuffle`);
    without a seed, numpy's global generator draws a fresh order per epoch.
    """
    per_batch = shuffle == "batch"
    seed = devices.global_seed()
    if seed is not None:
        return _tf_order(seed, n, batch_size if per_batch else None)
    if not per_batch:
        return np.random.permutation(n)
    return np.concatenate([np.random.permutation(min(batch_size, n - start)) + start
                           for start in range(0, n, batch_size)])


class ArrayAdapter:
    """Batches in-memory arrays, shuffling sample order each epoch if asked.

    Args:
        x, y, sample_weight: arrays or nested structures of arrays.
        batch_size: samples per batch (last partial batch kept).
        shuffle: True (per epoch), "batch" (shuffle the samples within each
            batch, batches in order, as Keras), or False.
        class_weight: dict class index -> weight, turned into sample weights.
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False,
                 class_weight=None):
        if sample_weight is not None and class_weight is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        if any(not hasattr(leaf, "shape") or not np.ndim(leaf)
               for leaf in tree.flatten([x, y, sample_weight]) if leaf is not None):
            # Keras's message: nested Python lists of numbers (a scalar leaf) are no arrays
            raise ValueError(f"Unrecognized data type: x={x} (of type {type(x)})")
        self.x = tree.map_structure(_to_numpy, x)
        self.y = tree.map_structure(_to_numpy, y) if y is not None else None
        self.sample_weight = (tree.map_structure(_to_numpy, sample_weight)
                              if sample_weight is not None else None)
        for leaf in tree.flatten([self.x, self.y, self.sample_weight]):
            if leaf is not None and leaf.dtype.kind in "US":
                # as Keras's array adapter: numpy str/bytes arrays are refused (object
                # arrays of strings are the way to feed strings)
                raise ValueError(f"Invalid dtype: {leaf.dtype.name}")
        lengths = {a.shape[0] for a in tree.flatten([self.x, self.y, self.sample_weight])
                   if a is not None}
        if len(lengths) > 1:
            # Keras's text, byte for byte (no space after the first sentence).
            sizes = "".join(
                f"'{name}' sizes: {', '.join(str(a.shape[0]) for a in tree.flatten(v))}\n"
                for name, v in (("x", self.x), ("y", self.y),
                                ("sample_weight", self.sample_weight)) if v is not None)
            raise ValueError("Data cardinality is ambiguous. Make sure all arrays contain the "
                             f"same number of samples.{sizes}")
        self.num_samples = lengths.pop() if lengths else 0
        if self.num_samples == 0:
            raise ValueError("Expected input data to be non-empty (got 0 samples).")
        if class_weight is not None:
            self.sample_weight = _class_weight_to_sample_weight(self.y, class_weight, self.sample_weight)
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.num_batches = math.ceil(self.num_samples / self.batch_size)
        # Keras on TensorFlow slices arrays into a dataset whose batch dimension is
        # static only when no last, partial batch exists.
        self.static_batch_size = self.batch_size \
            if self.num_samples % self.batch_size == 0 else None

    def batches(self):
        order = _shuffled(self.num_samples, self.shuffle, self.batch_size) \
            if self.shuffle else None
        for start in range(0, self.num_samples, self.batch_size):
            if order is None:
                index = slice(start, start + self.batch_size)
            else:
                index = order[start:start + self.batch_size]
            yield self._slice(index)

    def _slice(self, index):
        def take(a):
            return None if a is None else a[index]  # an omitted (optional) input stays None
        # Keras on TensorFlow batches arrays through a tf.data dataset, which makes the
        # lists of the structures tuples: a step (and a model's `call`) gets tuples
        x = _lists_to_tuples(tree.map_structure(take, self.x))
        if self.y is None:  # as Keras: `train_step` gets the bare input batch
            return (x,) if isinstance(x, (list, tuple)) else x
        y = _lists_to_tuples(tree.map_structure(take, self.y))
        if self.sample_weight is None:
            return (x, y)
        return (x, y, _lists_to_tuples(tree.map_structure(take, self.sample_weight)))


def _lists_to_tuples(structure):
    """Keras's `tree.lists_to_tuples`: every list of a nested structure as a tuple."""
    if isinstance(structure, list):
        return tuple(_lists_to_tuples(v) for v in structure)
    if isinstance(structure, tuple) and not hasattr(structure, "_fields"):
        return tuple(_lists_to_tuples(v) for v in structure)
    if isinstance(structure, dict):
        return {k: _lists_to_tuples(v) for k, v in structure.items()}
    return structure


def _class_weight_to_sample_weight(y, class_weight, sample_weight):
    if y is None or tree.is_nested(y):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    labels = y.argmax(axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else np.round(y).reshape(-1)
    weights = np.array([class_weight.get(int(c), 1.0) for c in labels], dtype="float32")
    return weights if sample_weight is None else weights * sample_weight


class IterableAdapter:
    """Batches from a generator, a Dataset or any iterable of ready batches.

    Args:
        source: a callable returning a fresh iterator, or an iterable.
        num_batches: batches per epoch if known, else None.
    """

    def __init__(self, source, num_batches=None):
        self.source = source
        self.num_batches = num_batches
        self._iterator = None

    def batches(self):
        if callable(self.source):
            return iter(self.source())
        if isinstance(self.source, Dataset):
            # Keras on TensorFlow iterates a dataset through a distributed
            # iterator, which draws each shuffle's iteration seeds twice.
            return DatasetIterator(self.source._iterator(IterationContext(seed_draws=2)))
        if _is_one_shot(self.source):
            if self._iterator is None:
                self._iterator = iter(self.source)
            return self._iterator
        return iter(self.source)


def _one_ahead(batches):
    """Yields `batches`, each one once the next has been read, as TensorFlow's input
    pipeline prefetches a PyDataset's batches (so `__getitem__` runs when Keras's does)."""
    try:
        current = next(batches)
    except StopIteration:
        return
    for upcoming in batches:
        yield current
        current = upcoming
    yield current


def _is_one_shot(source):
    return iter(source) is source


class SequenceAdapter:
    """Batches from a PyDataset-style object with `__len__` and `__getitem__`."""

    def __init__(self, sequence, shuffle=False):
        self.sequence = sequence
        self.shuffle = shuffle
        # a PyDataset says `num_batches` (None: infinite, batches run until steps_per_epoch)
        self.num_batches = sequence.num_batches if hasattr(sequence, "num_batches") \
            else len(sequence)
        self._peeked = False

    def _peek(self):
        """Keras on TensorFlow reads the first two batches once, to learn their specs,
        before anything else (so `__getitem__` side effects, such as draws from numpy's
        global generator, happen as in Keras); the batches themselves are not used."""
        if not self._peeked:
            self._peeked = True
            for i in range(min(_PEEKED_BATCHES, self.num_batches or _PEEKED_BATCHES)):
                self.sequence[i]

    def batches(self):
        self._peek()
        if self.num_batches is None:
            order = itertools.count()
        else:
            # Keras shuffles the batch indices with Python's `random` (seeded by
            # `set_random_seed`), once per epoch.
            order = list(range(self.num_batches))
            if self.shuffle:
                random.shuffle(order)
        yield from _one_ahead(self.sequence[int(i)] for i in order)

    # Called by the epoch iterator when Keras's PyDatasetAdapter calls them.
    def on_epoch_begin(self):
        self._peek()
        if hasattr(self.sequence, "on_epoch_begin"):
            self.sequence.on_epoch_begin()

    def on_epoch_end(self):
        self._peek()
        if hasattr(self.sequence, "on_epoch_end"):
            self.sequence.on_epoch_end()


def get_adapter(x, y=None, sample_weight=None, batch_size=None, shuffle=False,
                class_weight=None, steps=None):
    """Returns the adapter for any supported input.

    Raises:
        ValueError: for unsupported inputs, or `y`/`batch_size` given with a
            source that yields its own batches.
    """
    if x is None:
        raise ValueError("Unexpected value for `x`: None. Pass input data.")
    if _is_dataset(x) or hasattr(x, "__getitem__") and hasattr(x, "__len__") and \
            not _is_array_data(x) and not isinstance(x, (list, tuple, dict)):
        _refuse_extra("a dataset or sequence", y, sample_weight)
        if _is_dataset(x):
            if shuffle and shuffle != "auto":  # as Keras, fit's default shuffle=True warns too
                warnings.warn("`shuffle=True` was passed, but will be ignored since the data `x` "
                              "was provided as a tf.data.Dataset. The Dataset is expected to "
                              "already be shuffled (via `.shuffle(buffer_size)`).", stacklevel=3)
            cardinality = int(x.cardinality())
            return IterableAdapter(x, cardinality if cardinality >= 0 else None)
        return SequenceAdapter(x, shuffle=bool(shuffle))
    if hasattr(x, "__next__") or (hasattr(x, "__iter__") and not isinstance(x, (list, tuple, dict, np.ndarray, Tensor))):
        _refuse_extra("a generator", y, sample_weight)
        if shuffle and shuffle != "auto":
            warnings.warn("`shuffle=True` was passed, but will be ignored since the data `x` was "
                          "provided as a generator. The generator is expected to yield "
                          "already-shuffled data.", stacklevel=3)
        if isinstance(x, types.GeneratorType):
            return IterableAdapter(_replaying_generator(x), None)
        return IterableAdapter(x, None)
    return ArrayAdapter(x, y, sample_weight, batch_size=batch_size, shuffle=shuffle,
                        class_weight=class_weight)


_PEEKED_BATCHES = 2  # Keras's NUM_BATCHES_FOR_TENSOR_SPEC


def _replaying_generator(generator):
    """Keras's generator adapter: it reads the first two batches up front
    (to learn their specs) and every new pass over the data (each epoch
    without `steps_per_epoch`, each evaluation during `fit`) yields those two
    again before going on with the generator, reading it one batch ahead."""
    peeked = list(itertools.islice(generator, _PEEKED_BATCHES))
    if not peeked:
        raise ValueError("When passing a Python generator to a Keras model, the generator "
                         "must yield at least one batch. Received an empty generator.")
    if not isinstance(peeked[0], tuple):
        raise ValueError("When passing a Python generator to a Keras model, the generator "
                         "must return a tuple, either (input,) or (inputs, targets) or "
                         f"(inputs, targets, sample_weights). Received: {peeked[0]}")
    return lambda: _one_ahead(itertools.chain(peeked, generator))


def _is_dataset(x):
    return hasattr(x, "cardinality") and hasattr(x, "__iter__") and not isinstance(x, np.ndarray)


def _refuse_extra(kind, y, sample_weight):
    if y is not None:
        raise ValueError(f"`y` argument is not supported when using {kind} as input "
                         "(it yields its own (x, y) batches).")
    if sample_weight is not None:
        raise ValueError(f"`sample_weight` argument is not supported when using {kind} as input.")


def train_validation_split(arrays, validation_split):
    """Splits arrays: the last `validation_split` fraction is validation (before shuffling)."""
    if not 0 < validation_split < 1:
        raise ValueError(
            f"`validation_split` must be between 0 and 1. Received: {validation_split}"
        )
    leaves = [a for a in tree.flatten(arrays) if a is not None]
    for a in leaves:
        if not isinstance(a, (np.ndarray, Tensor)) and not hasattr(a, "shape"):
            raise ValueError(
                "`validation_split` is only supported for numpy arrays and tensors; received "
                f"{type(a).__name__}."
            )
    n = leaves[0].shape[0]
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(
            f"Training data contains {n} samples, which is not sufficient to split it into a "
            f"validation and training set as specified by `validation_split={validation_split}`."
        )

    def part(lo, hi):
        return tree.map_structure(lambda a: None if a is None else _to_numpy(a)[lo:hi], arrays)
    return part(0, split_at), part(split_at, n)
