"""Distributed input: global batches split across replicas and sharded by worker.

Keras semantics: a batch from `fit(batch_size=...)` or from a batched
dataset is the *global* batch. It is split into `num_replicas_in_sync`
contiguous pieces as evenly as possible (`values.split_sizes`); worker `r`
keeps the pieces of its replicas, so the pieces of all workers, in rank
order, are exactly the global batch.

- In-memory arrays on several workers are sharded by index: each worker
  computes the same (seeded) sample order and gathers only its rows.
- Datasets, generators and sequences are read by every worker, each keeping
  its rows of every global batch (tf.data's `AutoShardPolicy.DATA`). To read
  only a worker's part at the source, build the pipeline with
  `strategy.distribute_datasets_from_function` and `ds.shard(...)`.
- No worker ever sends data to another.
- Every worker takes the same number of steps: known batch counts are
  compared when a loop starts (a clear error with the counts when they
  differ); when the counts are unknown the workers agree before every step
  whether all still have a batch, and all stop at the shortest (the extra
  batches are dropped with a warning, as tf.distribute does).
"""
import warnings

import numpy as np

from kerasish.distribute import values
from kerasish.data import data_adapters


class InputContext:
    """What an input function needs to know to build one worker's pipeline.

    Args:
        num_input_pipelines: the number of workers (pipelines).
        input_pipeline_id: this worker's index (its MPI rank).
        num_replicas_in_sync: replicas taking part in each step.

    Example:
        >>> def dataset_fn(ctx):
        ...     batch = ctx.get_per_replica_batch_size(64)
        ...     ds = keras.data.Dataset.from_tensor_slices((x, y))
        ...     return ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(batch)
    """

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = int(num_input_pipelines)
        self.input_pipeline_id = int(input_pipeline_id)
        self.num_replicas_in_sync = int(num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size):
        """The batch each replica gets from a global batch.

        Args:
            global_batch_size: the global batch size.

        Returns:
            int: `global_batch_size // num_replicas_in_sync`.

        Raises:
            ValueError: the global batch is not divisible by the replicas.
        """
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size} is not divisible by "
                f"`num_replicas_in_sync` {self.num_replicas_in_sync}.")
        return global_batch_size // self.num_replicas_in_sync

    def __repr__(self):
        return (f"InputContext(num_input_pipelines={self.num_input_pipelines}, "
                f"input_pipeline_id={self.input_pipeline_id}, "
                f"num_replicas_in_sync={self.num_replicas_in_sync})")


class InputOptions:
    """Accepted for TensorFlow compatibility; kerasish needs no input options.

    Args:
        **kwargs: TensorFlow's options (ignored).
    """

    def __init__(self, **kwargs):
        self.options = dict(kwargs)


class StepBatch:
    """One step's input on this worker: its rows of a global batch.

    Args:
        data: this worker's rows (a batch structure of numpy arrays).
        global_size: rows in the global batch, or None when unknown (each
            worker read its own pipeline: then every replica is assumed to
            hold an equal share).
    """

    __slots__ = ("data", "global_size")

    def __init__(self, data, global_size):
        self.data = data
        self.global_size = global_size


def worker_bounds(batch_rows, num_replicas, num_local, rank):
    """The row range of worker `rank` inside a global batch.

    Returns:
        (start, stop, local_sizes): the worker's rows and its replicas' sizes.
    """
    sizes = values.split_sizes(batch_rows, num_replicas)
    starts = values.offsets(sizes)
    first = rank * num_local
    return starts[first], starts[first + num_local], sizes[first:first + num_local]


class SlicedAdapter:
    """Yields this worker's `StepBatch` of every global batch of an adapter.

    Args:
        adapter: the adapter of the global batches.
        strategy: the strategy (replica counts and rank).
    """

    def __init__(self, adapter, strategy):
        self.adapter = adapter
        self.strategy = strategy
        self.num_batches = adapter.num_batches
        self.source = getattr(adapter, "source", None)

    def batches(self):
        strategy = self.strategy
        for batch in self.adapter.batches():
            rows = values.num_rows(batch)
            start, stop, _ = worker_bounds(rows, strategy.num_replicas_in_sync,
                                           strategy._num_local, strategy._world.rank)
            local = batch if strategy._world.size == 1 else values.slice_rows(batch, start, stop)
            yield StepBatch(local, rows)


class ShardedArrayAdapter:
    """In-memory arrays on several workers: each gathers only its own rows.

    When shuffling, the chief draws each epoch's seed from numpy's global
    generator (so `keras.utils.set_random_seed` and BackupAndRestore's
    restored random state decide the order) and broadcasts it; every worker
    then computes the same sample order and indexes its part of each global
    batch.

    Args:
        adapter: the `ArrayAdapter` holding the arrays.
        strategy: the multi-worker strategy.
    """

    def __init__(self, adapter, strategy):
        self.adapter = adapter
        self.strategy = strategy
        self.num_batches = adapter.num_batches

    def _order(self):
        adapter, world = self.adapter, self.strategy._world
        order = np.arange(adapter.num_samples)
        starts = list(range(0, adapter.num_samples, adapter.batch_size))
        if adapter.shuffle:
            seed = int(np.random.randint(0, 2 ** 31 - 1)) if world.rank == 0 else None
            rng = np.random.default_rng(world.bcast_object(seed))
            if adapter.shuffle == "batch":  # as Keras: within each batch, batches in order
                order = np.concatenate([
                    rng.permutation(min(adapter.batch_size, adapter.num_samples - start)) + start
                    for start in starts])
            else:
                order = rng.permutation(adapter.num_samples)
        return order, starts

    def batches(self):
        adapter, strategy = self.adapter, self.strategy
        order, starts = self._order()
        for start in starts:
            index = order[start:start + adapter.batch_size]
            lo, hi, _ = worker_bounds(len(index), strategy.num_replicas_in_sync,
                                      strategy._num_local, strategy._world.rank)
            yield StepBatch(adapter._slice(index[lo:hi]), len(index))


class PerWorkerAdapter:
    """Batches that are already this worker's (from an input function).

    Args:
        source: an iterable of per-worker batches (re-iterable per epoch).
        num_batches: batches per epoch, or None.
    """

    def __init__(self, source, num_batches=None):
        self.source = source
        self.num_batches = num_batches

    def batches(self):
        source = self.source
        if hasattr(source, "as_numpy_iterator"):   # a Dataset: its numpy elements
            source = source.as_numpy_iterator()
        for batch in source:
            yield StepBatch(batch, None)


class AgreedAdapter:
    """Batches of unknown count: the workers agree before each step that all have one.

    Args:
        adapter: an adapter yielding `StepBatch`es (`num_batches` None on some worker).
        world: the `MpiWorld`.
    """

    def __init__(self, adapter, world):
        self.adapter = adapter
        self.world = world
        self.num_batches = None
        self.source = getattr(adapter, "source", None)

    def batches(self):
        iterator = iter(self.adapter.batches())
        step = 0
        while True:
            batch = next(iterator, None)
            flags = self.world.allgather_object(batch is not None)
            if all(flags):
                yield batch
                step += 1
                continue
            if any(flags) and self.world.rank == 0:
                warnings.warn(
                    f"MultiWorkerMirroredStrategy: the workers ran out of data at different "
                    f"steps: rank(s) {[r for r, f in enumerate(flags) if not f]} had no batch "
                    f"#{step + 1} while rank(s) {[r for r, f in enumerate(flags) if f]} still "
                    f"had one; every worker stops after {step} steps of this pass and the extra "
                    "batches are dropped (as tf.distribute does). Give every worker the same "
                    "number of batches to use all the data.", stacklevel=2)
            return


def even_steps(adapter, strategy):
    """Makes sure every worker will take the same number of steps from `adapter`.

    Args:
        adapter: this worker's adapter of `StepBatch`es.
        strategy: the strategy.

    Returns:
        `adapter`, or an `AgreedAdapter` when some worker's count is unknown.

    Raises:
        ValueError: (on every worker) the known batch counts differ, naming them.
    """
    world = strategy._world
    if world.size == 1:
        return adapter
    if isinstance(adapter, ShardedArrayAdapter):
        counts = world.allgather_object(adapter.adapter.num_samples)
        if len(set(counts)) > 1:
            listed = ", ".join(f"rank {r}: {c} samples" for r, c in enumerate(counts))
            raise ValueError(
                "MultiWorkerMirroredStrategy: the workers were given in-memory arrays of "
                f"different lengths ({listed}). "
                "Arrays passed to fit/evaluate/predict are the global data set: give every "
                "worker the same arrays (each takes its rows of every global batch), or give "
                "each worker its own shard with `strategy.distribute_datasets_from_function`.")
        return adapter
    counts = world.allgather_object(adapter.num_batches)
    if None in counts:
        return AgreedAdapter(adapter, world)
    if len(set(counts)) > 1:
        raise ValueError(
            "MultiWorkerMirroredStrategy: the workers have different numbers of batches per "
            f"epoch ({', '.join(f'rank {r}: {c}' for r, c in enumerate(counts))}), so they "
            "would not take the same number of synchronous steps. Give every worker the same "
            "number of batches (e.g. `ds.shard(...)` on a data set whose size is a multiple "
            "of the number of workers times the batch size, or `.take(n)`).")
    return adapter


def distribute_adapter(adapter, strategy):
    """Wraps a data adapter so that it yields `StepBatch`es for `strategy`.

    Args:
        adapter: an adapter from `data_adapters.get_adapter`.
        strategy: the strategy.

    Returns:
        an adapter with `num_batches` and `batches()`.
    """
    source = getattr(adapter, "source", None)
    if isinstance(source, DistributedDataset):
        return even_steps(source._as_adapter(), strategy)
    if isinstance(adapter, data_adapters.ArrayAdapter) and strategy._world.size > 1:
        return even_steps(ShardedArrayAdapter(adapter, strategy), strategy)
    return even_steps(SlicedAdapter(adapter, strategy), strategy)


class DistributedDataset:
    """A dataset whose elements are already split for the strategy's replicas.

    Iterating yields, per step, a `PerReplica` with one piece per local
    replica (or this worker's piece itself when the process drives one
    replica), ready for `strategy.run(step_fn, args=(batch,))`. It can also be
    passed to `fit`/`evaluate`/`predict`.

    Args:
        strategy: the strategy.
        dataset: the source of global batches (a Dataset or any re-iterable).
        per_worker: True when `dataset` already yields this worker's batches
            (built by `distribute_datasets_from_function`).
    """

    def __init__(self, strategy, dataset, per_worker=False):
        self._strategy = strategy
        self._dataset = dataset
        self._per_worker = per_worker

    def cardinality(self):
        """The number of steps (the source's cardinality), -2 when unknown."""
        card = getattr(self._dataset, "cardinality", None)
        if card is not None:
            return int(card())
        try:
            return len(self._dataset)
        except TypeError:
            return -2

    def __len__(self):
        n = self.cardinality()
        if n < 0:
            raise TypeError("The length of this distributed dataset is unknown.")
        return n

    def _as_adapter(self):
        n = self.cardinality()
        num_batches = n if n >= 0 else None
        if self._per_worker:
            return PerWorkerAdapter(self._dataset, num_batches)
        return SlicedAdapter(data_adapters.IterableAdapter(self._dataset, num_batches),
                             self._strategy)

    def __iter__(self):
        strategy = self._strategy
        for step_batch in even_steps(self._as_adapter(), strategy).batches():
            pieces = strategy._split_local(step_batch)[0]
            if strategy._num_local == 1:
                yield pieces[0]
            else:
                yield values.PerReplica(pieces)

    def __repr__(self):
        return f"<DistributedDataset over {self._dataset!r}>"
