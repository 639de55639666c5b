"""`Dataset`: a tf.data-style description of an input pipeline.

A dataset is an immutable recipe; iterating it (`for x in ds`) builds the
ops' generators, so every `for` loop is a fresh epoch. Transformation
methods return new datasets and live in small classes under `ops/`.
"""

import numpy as np

from kerasish.autodiff.tensor import DTypeName
from kerasish.data import structure
from kerasish.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.iterator import DatasetIterator, IterationContext
from kerasish.data.tensor_spec import spec_of


class Dataset:
    """A sequence of elements, each a nested structure of numpy arrays.

    Build one with a source (`from_tensor_slices`, `range`, `from_generator`,
    `TFRecordDataset`, `from_hdf5`, ...), chain transformations, and iterate.
    Elements are tuples / dicts of numpy arrays and numpy scalars (`bytes`
    for strings), exactly what tf.data's `as_numpy_iterator()` yields; a `for`
    loop over the dataset gets them as eager tensors, as tf.data's.

    Example:
        >>> ds = Dataset.range(10).map(lambda x: x * 2).batch(4)
        >>> [b.numpy().tolist() for b in ds]
        [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]
    """

    _spec = None

    # -- what subclasses provide ------------------------------------------

    def _iterator(self, ctx):
        """A generator over the elements, honouring `ctx` (IterationContext)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _iterator.")

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _compute_element_spec(self):
        # Like tf.data tracing the function once, the spec of ops such as map
        # is read off one element.
        return spec_of(self._peek_element())

    def _peek_element(self):
        """One element, used only to infer `element_spec`."""
        iterator = self._iterator(IterationContext(seed_draws=0))  # no reshuffle drawn
        try:
            return next(iterator)
        except StopIteration:
            raise ValueError(f"Cannot infer the element_spec of an empty "
                             f"{type(self).__name__}.") from None
        finally:
            iterator.close()

    # -- inspection ---------------------------------------------------------

    @property
    def element_spec(self):
        """The nested `TensorSpec` of an element (batch dims are None unless
        `drop_remainder=True`, as in tf.data)."""
        if self._spec is None:
            self._spec = self._compute_element_spec()
        return self._spec

    def cardinality(self):
        """Number of elements, or INFINITE_CARDINALITY (-1) / UNKNOWN_CARDINALITY (-2).

        Returns:
            an int (computed without iterating, with tf.data's rules) that prints,
            and has `.numpy()`, as the int64 scalar tensor tf.data returns.

        Example:
            >>> print(Dataset.range(10).batch(3).cardinality())
            tf.Tensor(4, shape=(), dtype=int64)
        """
        return Cardinality(self._cardinality())

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True  # `__len__` must not decide truthiness (tf does the same)

    def __iter__(self):
        # as iterating a tf.data dataset eagerly: the elements are tensors
        return DatasetIterator(self._iterator(IterationContext()), as_tensors=True)

    def as_numpy_iterator(self):
        """An iterator of numpy elements (numpy arrays and scalars, strings as bytes).

        Returns:
            A `DatasetIterator`.

        Example:
            >>> list(Dataset.from_tensor_slices([1, 2]).as_numpy_iterator())
            [np.int32(1), np.int32(2)]
        """
        return DatasetIterator(self._iterator(IterationContext()))

    def __repr__(self):
        # tf.data's form: its private class of the last step (`_BatchDataset`...; its
        # CacheDataset is public) and the element spec
        name = getattr(self, "_tf_class_name", None) or type(self).__name__
        if not name.startswith("_") and name != "CacheDataset":
            name = f"_{name}"
        return f"<{name} element_spec={self.element_spec}>"

    # -- sources ------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset whose elements are slices of `tensors` along axis 0.

        Args:
            tensors: an array, nested list, or tuple/dict of them; every leaf
                must have the same first dimension. Python ints become int32
                and floats float32, as in tf.data.

        Returns:
            A `Dataset`.

        Example:
            >>> ds = Dataset.from_tensor_slices(({"a": [1, 2]}, [3.0, 4.0]))
            >>> next(iter(ds))
            ({'a': np.int32(1)}, np.float32(3.0))
        """
        return sources.TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors):
        """A dataset with the single element `tensors`.

        Args:
            tensors: an array or nested tuple/dict of arrays.

        Returns:
            A `Dataset` of cardinality 1.

        Example:
            >>> next(iter(Dataset.from_tensors([1, 2]))).tolist()
            [1, 2]
        """
        return sources.TensorDataset(tensors)

    @staticmethod
    def range(*args, dtype="int64"):
        """Like Python's `range`, yielding numpy scalars (int64 by default).

        Args:
            *args: `stop`, `start, stop` or `start, stop, step`.
            dtype: output dtype.

        Returns:
            A `Dataset`.

        Example:
            >>> [int(x) for x in Dataset.range(1, 8, 3)]
            [1, 4, 7]
        """
        return sources.RangeDataset(*args, dtype=dtype)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None,
                       args=None, output_signature=None):
        """A dataset whose elements come from a Python generator.

        `generator` is called again at the start of every iteration, so the
        dataset can be iterated (and repeated) many times.

        Args:
            generator: a callable returning an iterator (a generator function).
            output_types: legacy: nested dtypes of the elements.
            output_shapes: legacy: nested shapes (None dims allowed).
            args: tuple of arguments passed to `generator`.
            output_signature: nested `TensorSpec`s; each yielded value is
                converted to the spec's dtype and its shape checked. When no
                signature or types are given the first element defines it.

        Returns:
            A `Dataset` of UNKNOWN_CARDINALITY.

        Example:
            >>> def gen():
            ...     yield from ([1, 2], [3, 4])
            >>> ds = Dataset.from_generator(
            ...     gen, output_signature=TensorSpec((2,), "float32"))
            >>> [x.tolist() for x in ds]
            [[1.0, 2.0], [3.0, 4.0]]
        """
        return sources.GeneratorDataset(generator, output_types, output_shapes,
                                        args, output_signature)

    @staticmethod
    def zip(*datasets):
        """Zips datasets: elements are tuples (or dicts) of their elements.

        Args:
            *datasets: datasets, or a single (nested) tuple/dict of datasets.

        Returns:
            A `Dataset` as long as its shortest input.

        Example:
            >>> a, b = Dataset.range(3), Dataset.range(3, 5)
            >>> [tuple(map(int, x)) for x in Dataset.zip(a, b)]
            [(0, 3), (1, 4)]
        """
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        return combining.ZipDataset(datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """A dataset of the file names (as `bytes`) matching glob pattern(s).

        Args:
            file_pattern: a glob pattern or a list of them.
            shuffle: shuffle the names each iteration; defaults to True as
                in tf.data. With False the names are sorted.
            seed: shuffle seed.

        Returns:
            A `Dataset` of `bytes` paths.

        Example:
            >>> ds = Dataset.list_files("/etc/host*", shuffle=False)
        """
        return sources.list_files(file_pattern, shuffle, seed)

    @staticmethod
    def from_hdf5(path, keys, batch_size=None, drop_remainder=False):
        """Reads datasets of an HDF5 file row by row or batch by batch.

        See `kerasish.data.HDF5Dataset`.

        Args:
            path: the .h5 file.
            keys: one dataset name, a tuple of names, or a dict mapping output
                names to dataset names.
            batch_size: read and yield batches of this many rows.
            drop_remainder: drop a last, smaller batch.

        Returns:
            An `HDF5Dataset`.
        """
        return hdf5_source.HDF5Dataset(path, keys, batch_size, drop_remainder)

    @staticmethod
    def from_tfrecord(filenames, compression_type=None, num_parallel_reads=None,
                      ignore_errors=False):
        """A dataset of the serialized records (`bytes`) of TFRecord files.

        See `kerasish.data.TFRecordDataset`.

        Returns:
            A `TFRecordDataset`.
        """
        return tfrecord.TFRecordDataset(filenames, compression_type,
                                        num_parallel_reads=num_parallel_reads,
                                        ignore_errors=ignore_errors)

    # -- transformations ----------------------------------------------------

    def map(self, map_func, num_parallel_calls=None, deterministic=None,
            use_processes=False, name=None):
        """Applies `map_func` to each element.

        A tuple element is passed as positional arguments (`lambda x, y:`),
        anything else as one argument. Lists returned become tuples and Python
        scalars numpy scalars, as in tf.data.

        Args:
            map_func: the function.
            num_parallel_calls: None (inline), a worker count, or AUTOTUNE
                (one worker per CPU). Workers are threads unless
                `use_processes`.
            deterministic: keep input order (default). False yields results
                as they complete.
            use_processes: run `map_func` in spawned processes, for pure
                Python functions that hold the GIL. `map_func` must be
                picklable (a module-level function).
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset`.

        Example:
            >>> ds = Dataset.from_tensor_slices(([1, 2], [10, 20]))
            >>> [int(v) for v in ds.map(lambda x, y: x + y)]
            [11, 22]
        """
        return mapping.MapDataset(self, map_func, num_parallel_calls,
                                 deterministic, use_processes)

    def filter(self, predicate, name=None):
        """Keeps the elements for which `predicate` returns True.

        Args:
            predicate: function returning a scalar bool (unpacked like `map`).
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset` of UNKNOWN_CARDINALITY.

        Example:
            >>> [int(x) for x in Dataset.range(6).filter(lambda x: x % 2 == 0)]
            [0, 2, 4]
        """
        return mapping.FilterDataset(self, predicate)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffles with tf.data's buffer algorithm.

        The buffer is filled with the first `buffer_size` elements; each
        output is drawn uniformly from the buffer and its slot refilled with
        the next input element. A buffer at least as large as the dataset
        gives a uniform shuffling.

        Args:
            buffer_size: number of elements to draw from.
            seed: seed for a reproducible order.
            reshuffle_each_iteration: a new order every iteration (epoch);
                False repeats the first iteration's order.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset`.

        Example:
            >>> sorted(int(x) for x in Dataset.range(5).shuffle(5, seed=1))
            [0, 1, 2, 3, 4]
        """
        return shuffling.ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """Repeats the dataset `count` times (forever when None or -1).

        Each repetition re-iterates the input, so shuffles reshuffle and
        generators are called again.

        Args:
            count: number of repetitions.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset`.

        Example:
            >>> [int(x) for x in Dataset.range(2).repeat(2)]
            [0, 1, 0, 1]
        """
        return repeating.RepeatDataset(self, count)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stacks consecutive elements into batches.

        Args:
            batch_size: elements per batch.
            drop_remainder: drop a last, smaller batch (and then the batch
                dimension of `element_spec` is known).
            num_parallel_calls: stack batches on worker threads (None, int
                or AUTOTUNE).
            deterministic: unused; batches always keep their order.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset`.

        Example:
            >>> [b.tolist() for b in Dataset.range(5).batch(2)]
            [[0, 1], [2, 3], [4]]
        """
        return batching.BatchDataset(self, batch_size, drop_remainder, num_parallel_calls)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches elements of different shapes by padding them.

        Args:
            batch_size: elements per batch.
            padded_shapes: per component, the padded shape; None or -1 dims
                pad to the longest in the batch. Defaults to all-None.
            padding_values: per component padding scalar (default 0, or
                b"" for strings).
            drop_remainder: drop a last, smaller batch.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset`.

        Example:
            >>> ds = Dataset.range(1, 4).map(lambda x: np.full(x, x))
            >>> [b.tolist() for b in ds.padded_batch(2)]
            [[[1, 0], [2, 2]], [[3, 3, 3]]]
        """
        return batching.PaddedBatchDataset(self, batch_size, padded_shapes,
                                           padding_values, drop_remainder)

    def unbatch(self, name=None):
        """Splits each element along its first dimension.

        Returns:
            A `Dataset` of UNKNOWN_CARDINALITY.

        Example:
            >>> [int(x) for x in Dataset.range(3).batch(2).unbatch()]
            [0, 1, 2]
        """
        return batching.UnbatchDataset(self)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """Re-slices batches into batches of `batch_size` (same as
        `unbatch().batch(batch_size)`), or cycles through a list of sizes.

        Args:
            batch_size: an int, or a list of sizes used round-robin.
            drop_remainder: drop a last, smaller batch.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset` of UNKNOWN_CARDINALITY.

        Example:
            >>> [b.tolist() for b in Dataset.range(5).batch(3).rebatch(2)]
            [[0, 1], [2, 3], [4]]
        """
        return batching.RebatchDataset(self, batch_size, drop_remainder)

    def take(self, count, name=None):
        """The first `count` elements (all of them when `count` is -1).

        Example:
            >>> [int(x) for x in Dataset.range(10).take(3)]
            [0, 1, 2]
        """
        return slicing.TakeDataset(self, count)

    def skip(self, count, name=None):
        """All but the first `count` elements (none when `count` is -1).

        Example:
            >>> [int(x) for x in Dataset.range(5).skip(3)]
            [3, 4]
        """
        return slicing.SkipDataset(self, count)

    def shard(self, num_shards, index, name=None):
        """Every `num_shards`-th element, starting at `index`.

        Example:
            >>> [int(x) for x in Dataset.range(10).shard(3, 1)]
            [1, 4, 7]
        """
        return slicing.ShardDataset(self, num_shards, index)

    def enumerate(self, start=0, name=None):
        """Pairs each element with its index: `(index, element)`.

        Example:
            >>> [(int(i), int(x)) for i, x in Dataset.range(5, 7).enumerate()]
            [(0, 5), (1, 6)]
        """
        return Dataset.zip(sources.CounterDataset(start), self)

    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by `dataset`'s.

        Example:
            >>> [int(x) for x in Dataset.range(2).concatenate(Dataset.range(5, 6))]
            [0, 1, 5]
        """
        return combining.ConcatenateDataset(self, dataset)

    def cache(self, filename="", name=None):
        """Caches the elements of the first complete iteration.

        Args:
            filename: "" caches in memory; otherwise the elements are written
                to `filename + ".data"` during the first complete pass (an
                interrupted pass leaves no cache behind) and read from that
                file afterwards, also by later programs. The file holds plain
                arrays (read with `allow_pickle=False`): it never runs code.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset`.

        Raises:
            TypeError: (while iterating) an element holds object data other
                than bytes/str, which cannot be stored without pickle.

        Example:
            >>> ds = Dataset.range(3).map(lambda x: x + 1).cache()
            >>> [int(x) for x in ds] == [int(x) for x in ds]
            True
        """
        return caching.CacheDataset(self, filename)

    def prefetch(self, buffer_size, name=None):
        """Produces elements on a background thread ahead of the consumer.

        Args:
            buffer_size: elements kept ready; AUTOTUNE starts at 1 and grows
                whenever the consumer has to wait. 0 disables prefetching.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset`.

        Example:
            >>> [int(x) for x in Dataset.range(3).prefetch(AUTOTUNE)]
            [0, 1, 2]
        """
        return prefetching.PrefetchDataset(self, buffer_size)

    def interleave(self, map_func, cycle_length=None, block_length=1,
                   num_parallel_calls=None, deterministic=None, name=None):
        """Maps each element to a dataset and interleaves their elements.

        `cycle_length` input elements are open at once; `block_length`
        consecutive elements are taken from each in turn, in tf.data's order.

        Args:
            map_func: element -> Dataset (unpacked like `map`).
            cycle_length: datasets open at once (default: CPU count).
            block_length: elements taken from each before moving on.
            num_parallel_calls: None, or an int / AUTOTUNE to produce each
                open dataset's elements on its own thread (order unchanged).
            deterministic: unused; the order is always tf.data's
                deterministic order.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset` of UNKNOWN_CARDINALITY.

        Example:
            >>> ds = Dataset.range(1, 3).interleave(
            ...     lambda x: Dataset.from_tensors(x).repeat(2), cycle_length=2)
            >>> [int(x) for x in ds]
            [1, 2, 1, 2]
        """
        return interleaving.InterleaveDataset(self, map_func, cycle_length, block_length,
                                            num_parallel_calls)

    def flat_map(self, map_func, name=None):
        """Maps each element to a dataset and chains them in order.

        Example:
            >>> ds = Dataset.range(3).flat_map(lambda x: Dataset.range(x))
            >>> [int(x) for x in ds]
            [0, 0, 1]
        """
        return interleaving.FlatMapDataset(self, map_func)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Groups elements into windows, each a dataset (or a structure of
        datasets for tuple/dict elements) as in tf.data.

        Args:
            size: elements per windowing.
            shift: how far each window starts from the previous one
                (default `size`).
            stride: step between the elements of a windowing.
            drop_remainder: drop windows shorter than `size`.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset` of datasets.

        Example:
            >>> ds = Dataset.range(7).window(3, shift=2, drop_remainder=True)
            >>> [[int(x) for x in w] for w in ds]
            [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
        """
        return windowing.WindowDataset(self, size, shift, stride, drop_remainder)

    def ignore_errors(self, log_warning=False, name=None):
        """Drops elements whose production upstream raised an Exception.

        Errors from `map`/`filter`/`interleave` functions, generators and
        corrupt TFRecord records are skipped.

        Args:
            log_warning: log every skipped error on the "kerasish.data" logger.
            name: unused, accepted for tf.data compatibility.

        Returns:
            A `Dataset` of UNKNOWN_CARDINALITY.

        Example:
            >>> ds = Dataset.from_tensor_slices([1., 0., 2.]).map(
            ...     lambda x: 1 / x if x else 1 / 0).ignore_errors()
            >>> [float(x) for x in ds]
            [1.0, 0.5]
        """
        return error_handling.IgnoreErrorsDataset(self, log_warning)

    def apply(self, transformation_func):
        """Returns `transformation_func(self)` (for reusable pipeline pieces).

        Example:
            >>> Dataset.range(5).apply(lambda ds: ds.skip(3)).cardinality()
            2
        """
        return transformation_func(self)

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds the elements into one value: `state = reduce_func(state, x)`.

        Args:
            initial_state: the starting state (nested arrays).
            reduce_func: `(state, element) -> state`.
            name: unused, accepted for tf.data compatibility.

        Returns:
            The final state.

        Example:
            >>> int(Dataset.range(5).reduce(0, lambda s, x: s + x))
            10
        """
        state = structure.normalize_output(initial_state)
        for element in self.as_numpy_iterator():
            state = structure.normalize_output(reduce_func(state, element))
        return state


class Cardinality(int):
    """What `Dataset.cardinality()` returns: an int (arithmetic and comparisons stay
    ints) printed as TensorFlow's eager int64 scalar, with `.numpy()`, as tf.data's."""

    dtype = DTypeName("int64")   # prints as tf.int64, equals "int64"
    shape = ()

    def numpy(self):
        return np.int64(self)

    def __str__(self):
        return f"tf.Tensor({int(self)}, shape=(), dtype=int64)"

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=int64, numpy={int(self)}>"

    def __format__(self, spec):
        return str(self) if not spec else int.__format__(int(self), spec)


# The ops subclass Dataset, so they are imported once it exists.
from kerasish.data import hdf5_source, tfrecord  # noqa: E402
from kerasish.data.ops import (batching, caching, combining, error_handling,  # noqa: E402
                               interleaving, mapping, prefetching, repeating,
                               shuffling, slicing, sources, windowing)
