"""`TensorSpec` and `DatasetSpec`: what a dataset's elements look like."""
import numpy as np

from kerasish.data import structure


class TensorSpec:
    """Shape and dtype of one leaf of a dataset element, like `tf.TensorSpec`.

    A `None` dimension is unknown (for example the batch dimension of
    `batch(n)` without `drop_remainder`). Strings and bytes have dtype
    `object`, like batches of `tf.string` seen through numpy.

    Args:
        shape: tuple of ints or `None`s (`None` for an unknown rank).
        dtype: anything `np.dtype` accepts. Defaults to float32.
        name: optional name.

    Example:
        >>> TensorSpec((None, 3), "float32")
        TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)
    """

    def __init__(self, shape, dtype="float32", name=None):
        self.shape = as_shape(shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    @classmethod
    def from_value(cls, value):
        """The spec of one concrete leaf.

        Args:
            value: numpy array, numpy scalar, or `bytes`.

        Returns:
            A `TensorSpec` with the leaf's exact shape and dtype.
        """
        return cls(structure.leaf_shape(value), structure.leaf_dtype(value))

    def is_compatible_with(self, value):
        """Whether a leaf (or spec) has this dtype and a matching shape.

        Args:
            value: a leaf or a `TensorSpec`.

        Returns:
            bool.
        """
        other = value if isinstance(value, TensorSpec) else TensorSpec.from_value(value)
        return other.dtype == self.dtype and _shapes_compatible(self.shape, other.shape)

    def most_specific_common(self, other):
        """The spec covering both specs: differing dimensions become None."""
        if self.shape is None or other.shape is None or len(self.shape) != len(other.shape):
            return TensorSpec(None, self.dtype, self.name)
        shape = tuple(a if a == b else None for a, b in zip(self.shape, other.shape))
        return TensorSpec(shape, self.dtype, self.name)

    def with_batch_dim(self, size):
        """This spec with a leading dimension `size` (None for unknown)."""
        return TensorSpec((size,) + (self.shape or ()), self.dtype, self.name)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        # TensorFlow's form: `dtype=tf.float32`, text as `tf.string`
        dtype = "string" if self.dtype.kind in "OSU" else self.dtype.name
        return f"TensorSpec(shape={self.shape}, dtype=tf.{dtype}, name={self.name!r})"


class DatasetSpec:
    """The spec of an element that is itself a dataset (see `Dataset.window`).

    Args:
        element_spec: the nested `TensorSpec` of the inner dataset.

    Example:
        >>> DatasetSpec(TensorSpec((), "int64"))
        DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None))
    """

    def __init__(self, element_spec):
        self.element_spec = element_spec

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r})"


def as_shape(shape):
    """Normalises a shape: an int means `(int,)`; -1 and None are unknown.

    Args:
        shape: None, an int, or a sequence of ints / None.

    Returns:
        None (unknown rank) or a tuple of ints and Nones.
    """
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(None if d is None or d == -1 else int(d) for d in shape)


def _shapes_compatible(expected, actual):
    if expected is None or actual is None:
        return True
    if len(expected) != len(actual):
        return False
    return all(e is None or e == a for e, a in zip(expected, actual))


def spec_of(element):
    """The nested `TensorSpec` of a concrete element.

    Args:
        element: a nested element of leaves.

    Returns:
        The same structure with a `TensorSpec` per leaf.
    """
    return structure.map_structure(TensorSpec.from_value, element)
