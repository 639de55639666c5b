"""Distributed values: `PerReplica` results and the `ReduceOp` enum.

A `PerReplica` holds one value per local replica, in replica order. It is
what `strategy.run` returns and what a distributed dataset yields when the
process drives several replicas; `strategy.run` hands component `i` to
replica `i`.
"""
import enum

import numpy as np

from kerasish.utils import tree


class ReduceOp(enum.Enum):
    """How `strategy.reduce` combines the replicas' values.

    Example:
        >>> strategy.reduce(keras.distribute.ReduceOp.SUM, per_replica_loss, axis=None)
    """

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The ReduceOp for a Variable `aggregation` ("sum" or "mean")."""
        name = str(getattr(aggregation, "value", aggregation)).lower()
        if name == "sum":
            return ReduceOp.SUM
        if name == "mean":
            return ReduceOp.MEAN
        raise ValueError(f"Could not convert aggregation {aggregation!r} to a ReduceOp.")


def as_reduce_op(value):
    """Accepts a `ReduceOp` or its name ("SUM", "mean")."""
    if isinstance(value, ReduceOp):
        return value
    try:
        return ReduceOp(str(value).upper())
    except ValueError:
        raise ValueError(
            f"reduce_op must be keras.distribute.ReduceOp.SUM or ReduceOp.MEAN. Received: {value!r}"
        ) from None


class PerReplica:
    """One value per local replica (like `tf.distribute.DistributedValues`).

    Args:
        values: a sequence with one value (Tensor, array or structure) per replica.

    Example:
        >>> result = strategy.run(lambda x: x * 2, args=(dist_batch,))
        >>> [v.shape for v in strategy.experimental_local_results(result)]
    """

    __slots__ = ("_values",)

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        """The per-replica values, in replica order."""
        return self._values

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        inner = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"PerReplica:{{\n{inner}\n}}"


def select_replica(index, structure):
    """Component `index` of every `PerReplica` in a nested structure."""
    if isinstance(structure, PerReplica):
        return structure.values[index]
    if isinstance(structure, (list, tuple, dict)) and structure:
        if isinstance(structure, dict):
            return {k: select_replica(index, v) for k, v in structure.items()}
        picked = [select_replica(index, v) for v in structure]
        return type(structure)(picked) if not hasattr(structure, "_fields") \
            else type(structure)(*picked)
    return structure


def num_rows(structure):
    """The leading dimension of the first array leaf (0 when there is none)."""
    for leaf in tree.flatten(structure):
        shape = getattr(leaf, "shape", None)
        if shape is not None and len(shape):
            return int(shape[0])
    return 0


def slice_rows(structure, start, stop):
    """Rows `start:stop` of every array leaf of a batch structure."""
    def take(leaf):
        if leaf is None or not getattr(leaf, "shape", ()):
            return leaf
        return leaf[start:stop]
    return tree.map_structure(take, structure)


def split_sizes(total, parts):
    """Splits `total` rows into `parts` contiguous pieces as evenly as possible.

    The first `total % parts` pieces get one more row; pieces may be empty
    when `total < parts`.

    Args:
        total: the number of rows (the global batch).
        parts: the number of replicas.

    Returns:
        list of `parts` ints summing to `total`.

    Example:
        >>> split_sizes(10, 4)
        [3, 3, 2, 2]
    """
    base, extra = divmod(int(total), int(parts))
    return [base + (1 if i < extra else 0) for i in range(parts)]


def offsets(sizes):
    """Start offsets of consecutive pieces: [0, s0, s0+s1, ...]."""
    return [int(x) for x in np.concatenate([[0], np.cumsum(sizes)])]
