"""The row form of a lookup's gradient (TensorFlow's `tf.IndexedSlices`).

The gradient of `take(table, ids, axis=0)` is a dense Tensor of the table's
shape (the rows of every id occurrence summed), as everywhere in kerasish. It
also remembers its rows before the sum, as Keras on TensorFlow hands them to
the optimizer: there `ops.square(gradient)` squares each occurrence's row and
only then sums duplicates, so Adam's second moment of a row looked up twice
is `g1^2 + g2^2`, not `(g1 + g2)^2`. Optimizers read the rows with
`slices_of(gradient)`; every other consumer sees the dense Tensor. Rows
survive only what keeps them on TensorFlow: summing two row gradients of one
table concatenates their rows; adding a dense gradient (a regularizer, a tied
weight) makes the sum dense.
"""
from kerasish.backend import devices


class IndexedSlices:
    """Rows `values[i]` to be added at rows `indices[i]` of a `dense_shape` array.

    Args:
        values: array `ids.shape + dense_shape[1:]`, one row per id.
        ids: int array of any shape; negative ids count from the end.
        dense_shape: shape of the dense gradient.

    Example:
        >>> s = IndexedSlices(np.ones((2, 3), "float32"), np.array([1, -3]), (4, 3))
        >>> s.dense()[1]          # array([2., 2., 2.], dtype=float32)
        >>> s.dense(np.square)[1] # squares per row, then summed: array([2., 2., 2.])
    """

    __slots__ = ("raw_values", "ids", "dense_shape", "recast")

    def __init__(self, values, ids, dense_shape, recast=None):
        self.raw_values, self.ids, self.dense_shape = values, ids, tuple(dense_shape)
        # recast(dtype) -> the gradient rebuilt from its rows cast to `dtype` (set by
        # the lookup's backward): a cast gradient sums its rows in the new dtype
        self.recast = recast

    @property
    def values(self):
        """The rows, `(n,) + dense_shape[1:]`."""
        return self.raw_values.reshape((self.ids.size,) + self.dense_shape[1:])

    @property
    def indices(self):
        """The row of each value, `(n,)`, in `[0, dense_shape[0])`."""
        return self.ids.reshape(-1) % self.dense_shape[0]

    def dense(self, transform=None):
        """The rows summed into a dense array (TensorFlow's `convert_to_tensor`).

        Args:
            transform: optional elementwise function applied to each row first.

        Returns:
            array of `dense_shape`.
        """
        values = self.values if transform is None else transform(self.values)
        device = devices.device_of_array(values)
        target = device.xp.zeros(self.dense_shape, dtype=values.dtype)
        device.kernel("index_add")(target, self.indices, values)
        return target

    def with_values(self, values):
        """The same rows with new values (a row-wise op's result)."""
        return IndexedSlices(values, self.indices, self.dense_shape)

    def astype(self, dtype):
        """The rows cast to `dtype`."""
        return self.with_values(self.values.astype(dtype, copy=False))

    def concat(self, other):
        """The rows of two gradients of one table, as TensorFlow sums them."""
        xp = devices.xp_of(self.values)
        other_values = devices.device_of_array(self.values).send(other.values)
        return IndexedSlices(xp.concatenate([self.values, other_values.astype(self.values.dtype)]),
                             xp.concatenate([self.indices, other.indices]), self.dense_shape)


def slices_of(gradient):
    """The `IndexedSlices` a gradient Tensor carries, or None (dense gradient)."""
    return getattr(gradient, "_indexed_slices", None)


def attach(gradient, upstream, ids, recast=None):
    """Marks `gradient` (the table's gradient of `take(table, ids, axis=0)`) with its rows.

    Args:
        gradient: the dense gradient Tensor of the table.
        upstream: the gradient of the lookup's output, shaped `ids.shape + row`.
        ids: the looked-up ids (raw int array; negative ids count from the end).
        recast: optional `fn(dtype)` giving the gradient rebuilt from the rows
            cast to `dtype` (TensorFlow casts an IndexedSlices' values, so a
            float16 lookup's rows are summed in float32 once cast).
    """
    gradient._indexed_slices = IndexedSlices(upstream._value, ids, gradient.shape, recast)


def merge(total, a, b):
    """Sets the rows of `total = a + b` where both addends have rows (else it stays dense)."""
    sa, sb = slices_of(a), slices_of(b)
    if sa is not None and sb is not None:
        total._indexed_slices = sb.concat(sa)  # TensorFlow keeps forward order
