"""Source datasets: tensor slices, a single tensor, ranges, generators, files."""
import glob
import itertools

import numpy as np

from kerasish.data import structure
from kerasish.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.dataset import Dataset
from kerasish.data.tensor_spec import TensorSpec, as_shape, spec_of


def _to_leaves(tensors):
    return structure.map_structure(structure.to_array, tensors)


class TensorSliceDataset(Dataset):
    """Slices of nested arrays along their first axis.

    Args:
        tensors: array-likes, possibly in a tuple/dict, sharing dim 0.
    """

    def __init__(self, tensors):
        self._tensors = _to_leaves(tensors)
        leaves = structure.flatten(self._tensors)
        if any(leaf.ndim == 0 for leaf in leaves):
            raise ValueError("from_tensor_slices needs arrays of rank >= 1.")
        sizes = {len(leaf) for leaf in leaves}
        if len(sizes) != 1:
            raise ValueError(f"All components must have the same first dimension, "
                             f"got {sorted(sizes)}.")
        self._size = sizes.pop()

    def _iterator(self, ctx):
        leaves = structure.flatten(self._tensors)
        for i in range(self._size):
            yield structure.pack_as(self._tensors, [leaf[i] for leaf in leaves])

    def _cardinality(self):
        return self._size

    def _compute_element_spec(self):
        return structure.map_structure(
            lambda a: TensorSpec(a.shape[1:], a.dtype), self._tensors)


class TensorDataset(Dataset):
    """A dataset of exactly one element.

    Args:
        tensors: the element (array-likes, possibly nested).
    """

    def __init__(self, tensors):
        self._element = structure.map_structure(
            lambda v: structure.normalize_leaf(structure.to_array(v)), tensors)

    def _iterator(self, ctx):
        yield self._element

    def _cardinality(self):
        return 1

    def _compute_element_spec(self):
        return spec_of(self._element)


class RangeDataset(Dataset):
    """`range(start, stop, step)` as numpy scalars of `dtype`.

    Args:
        *args: as for Python's `range`.
        dtype: numpy dtype of the elements (default int64).
    """

    def __init__(self, *args, dtype="int64"):
        self._range = range(*(int(a) for a in args))
        self._dtype = np.dtype(dtype)

    def _iterator(self, ctx):
        make = self._dtype.type
        for value in self._range:
            yield make(value)

    def _cardinality(self):
        return len(self._range)

    def _compute_element_spec(self):
        return TensorSpec((), self._dtype)


class CounterDataset(Dataset):
    """`start, start + step, ...` forever (int64), like tf.data's Counter.

    Args:
        start: first value.
        step: increment.
    """

    def __init__(self, start=0, step=1):
        self._start, self._step = int(start), int(step)

    def _iterator(self, ctx):
        for value in itertools.count(self._start, self._step):
            yield np.int64(value)

    def _cardinality(self):
        return INFINITE_CARDINALITY

    def _compute_element_spec(self):
        return TensorSpec((), "int64")


class GeneratorDataset(Dataset):
    """Elements from a generator function, re-invoked on every iteration.

    Args:
        generator: callable returning an iterator.
        output_types: legacy nested dtypes (or None).
        output_shapes: legacy nested shapes (or None).
        args: arguments for `generator`.
        output_signature: nested `TensorSpec`s (or None).
    """

    def __init__(self, generator, output_types=None, output_shapes=None,
                 args=None, output_signature=None):
        if not callable(generator):
            raise TypeError("`generator` must be a callable that returns an iterator.")
        self._generator = generator
        self._args = tuple(args or ())
        self._signature = output_signature or _legacy_signature(output_types,
                                                                output_shapes)

    def _iterator(self, ctx):
        iterator = iter(self._generator(*self._args))
        try:
            while True:
                try:
                    value = next(iterator)
                except StopIteration:
                    return
                except Exception as error:
                    if ctx.skip(error):
                        return  # a generator that raised cannot be resumed
                    raise
                yield self._conform(value)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    def _conform(self, value):
        if self._signature is None:
            return structure.normalize_output(value)
        try:
            leaves = structure.flatten_up_to(self._signature, value)
        except ValueError as error:
            raise TypeError(f"`generator` yielded an element that did not match the "
                            f"expected structure {self._signature}: {error}") from None
        specs = structure.flatten(self._signature)
        return structure.pack_as(self._signature, map(_conform_leaf, specs, leaves))

    def _compute_element_spec(self):
        if self._signature is not None:
            return self._signature
        return super()._compute_element_spec()

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


def _conform_leaf(spec, value):
    if spec.dtype == object:
        array = np.asarray(value, dtype=object)
    else:
        try:
            array = np.asarray(value, dtype=spec.dtype)
        except (TypeError, ValueError) as error:
            raise TypeError(f"`generator` yielded an element that could not be "
                            f"converted to {spec.dtype}: {error}") from None
    if not spec.is_compatible_with(TensorSpec(array.shape, array.dtype)):
        raise ValueError(f"`generator` yielded an element of shape {array.shape} "
                         f"where an element of shape {spec.shape} was expected.")
    return array[()] if array.ndim == 0 else array


def _legacy_signature(output_types, output_shapes):
    if output_types is None:
        if output_shapes is not None:
            raise ValueError("output_shapes needs output_types.")
        return None
    if output_shapes is None:
        return structure.map_structure(lambda t: TensorSpec(None, t), output_types)
    types = structure.flatten(output_types)
    shapes = structure.flatten_up_to(output_types, output_shapes)
    return structure.pack_as(output_types, [TensorSpec(as_shape(s), t)
                                            for t, s in zip(types, shapes)])


def list_files(file_pattern, shuffle=None, seed=None):
    """The dataset behind `Dataset.list_files` (names as `bytes`)."""
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else file_pattern
    names = sorted({name for p in patterns for name in glob.glob(_as_str(p))})
    if not names:
        raise ValueError(f"No files matched pattern: {file_pattern}")
    dataset = TensorSliceDataset(np.array([n.encode() for n in names], dtype=object))
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(len(names), seed=seed)
    return dataset


def _as_str(path):
    return path.decode() if isinstance(path, bytes) else str(path)
