"""`Strategy`: the shared engine of every distribution strategy.

A strategy owns a list of local devices (one replica each), a local reducer
(how the replicas of this process sum their buffers) and a world (how worker
processes sum theirs). Subclasses only choose these three; scopes, `run`,
`reduce`, datasets and the fit/evaluate/predict integration live here.

Variables created inside `scope()` are registered with the strategy:
- on GPU replicas each one gets a copy per GPU (`Variable._replicas`), and
  the replica being run sees its own copy;
- on CPU replicas the trainable variables are one numpy copy shared by every
  replica (they all compute with it and it is updated once per step, so every
  replica always sees identical weights); variables created non-trainable
  (moving statistics) get one private copy per replica, averaged after each
  step.
"""
import contextlib

import numpy as np

from kerasish.backend.config import is_float
from kerasish.backend import devices as _devices
from kerasish.distribute import cross_device_ops, distribute_lib, input_lib, replica_step, values
from kerasish.ops import core
from kerasish.utils import tree


class StrategyExtended:
    """TensorFlow's `strategy.extended`: placement and chief information.

    Args:
        strategy: the owning strategy.
    """

    def __init__(self, strategy):
        self._strategy = strategy

    @property
    def should_checkpoint(self):
        """True on the worker that writes checkpoints (the chief, rank 0)."""
        return self._strategy._world.rank == 0

    @property
    def should_save_summary(self):
        """True on the worker that writes logs and summaries (the chief)."""
        return self._strategy._world.rank == 0

    @property
    def should_init(self):
        """Every worker initialises its variables (then the chief's are broadcast)."""
        return True

    @property
    def worker_devices(self):
        """The names of this worker's replica devices."""
        return tuple(d.name for d in self._strategy._devices)

    parameter_devices = worker_devices

    def _in_multi_worker_mode(self):
        return self._strategy._world.size > 1


class Strategy:
    """Base class: runs computation on several replicas in sync.

    Args:
        devices: the local `Device`s, one replica each.
        reducer: the local reducer (see `cross_device_ops`).
        world: `LocalWorld`, `MpiWorld` or `NcclWorld`.

    Example:
        >>> strategy = keras.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
        >>> with strategy.scope():
        ...     model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        ...     model.compile("sgd", "mse")
    """

    def __init__(self, devices, reducer, world):
        self._devices = list(devices)
        self._num_local = len(self._devices)
        self._reducer = reducer
        self._world = world
        self._variables = []
        self._variable_ids = set()
        self._state_variables = []
        self._synced = 0
        self._layouts = {}
        self._buffer_sets = {}
        self._last_target = None
        self.extended = StrategyExtended(self)

    # Basic properties ---------------------------------------------------------
    @property
    def num_replicas_in_sync(self):
        """Replicas taking part in every step: local devices times workers."""
        return self._num_local * self._world.size

    @property
    def cluster_resolver(self):
        """Rank information for multi-worker strategies; None otherwise."""
        return None

    @property
    def is_chief(self):
        """True on the worker that writes checkpoints and logs (rank 0)."""
        return self._world.rank == 0

    def __repr__(self):
        return (f"<{type(self).__name__} devices={[d.name for d in self._devices]} "
                f"num_replicas_in_sync={self.num_replicas_in_sync}>")

    @contextlib.contextmanager
    def scope(self):
        """Variables (models, optimizers, metrics) created inside are distributed.

        Example:
            >>> with strategy.scope():
            ...     model = make_model()
            ...     model.compile(optimizer="adam", loss="mse")
        """
        distribute_lib.push(self)
        try:
            with _devices.device(self._devices[0]):
                yield self
        finally:
            distribute_lib.pop(self)

    # Variables ------------------------------------------------------------------
    def _on_variable_created(self, variable):
        """Registers a weight created in scope and places its replica copies."""
        if id(variable) in self._variable_ids:
            return
        self._variables.append(variable)
        self._variable_ids.add(id(variable))
        primary = self._devices[0]
        if variable._device is not primary and not (
                primary.kind == "cpu" and variable._device.kind == "cpu"):
            variable._direct_set(cross_device_ops.copy_to_device(variable._value, primary))
        is_state = not variable.trainable and is_float(np.dtype(variable._value.dtype))
        if is_state:
            self._state_variables.append(variable)
        if self._num_local > 1 and (primary.kind == "gpu" or is_state):
            variable._replicas = [variable._value] + [
                cross_device_ops.copy_to_device(variable._value, d) for d in self._devices[1:]]
            context = distribute_lib.replica_context()
            if context is not None and context.strategy is self:
                variable._direct_set(variable._replicas[context._local_index])

    def _on_optimizer_created(self, optimizer):
        """An optimizer was created in scope (only the parameter-server strategy cares)."""

    def _use_replica_arrays(self, index):
        """Points every mirrored variable at replica `index`'s copy."""
        if self._num_local == 1:
            return
        for variable in self._variables:
            replicas = variable._replicas
            if replicas is not None:
                variable._direct_set(replicas[index])

    def _refresh_replicas(self):
        """Copies the primary values into the other replicas' copies."""
        if self._num_local == 1:
            return
        mirrored = [v for v in self._variables if v._replicas is not None]
        if not mirrored:
            return
        if self._devices[0].kind == "cpu":
            for variable in mirrored:
                for copy in variable._replicas[1:]:
                    np.copyto(copy, variable._replicas[0])
            return
        self._broadcast_local(mirrored)

    def _broadcast_local(self, variables):
        """GPU replicas: primary values -> every GPU's copy (one pack per dtype)."""
        layout = cross_device_ops.Layout([(k, v.shape, v._value.dtype)
                                          for k, v in enumerate(variables)])
        buffer_sets = self._reducer.buffers(layout)
        for k, variable in enumerate(variables):
            layout.put(buffer_sets[0], k, variable._replicas[0])
        self._reducer.broadcast(buffer_sets)
        for index, buffers in enumerate(buffer_sets[1:], start=1):
            for k, variable in enumerate(variables):
                variable._replicas[index][...] = layout.view(buffers, k)

    def _sync_new_variables(self):
        """Multi-worker: broadcasts variables registered since the last call from rank 0.

        Returns:
            True when variables were broadcast.
        """
        new = self._variables[self._synced:]
        self._synced = len(self._variables)
        if self._world.size == 1 or not new:
            return False
        _check_same_weights(self._world, new)
        layout = cross_device_ops.Layout([(k, v.shape, v._value.dtype) for k, v in enumerate(new)])
        buffers = layout.zeros(self._devices[0])
        for k, variable in enumerate(new):
            layout.put(buffers, k, variable._value)
        self._world.bcast(buffers, root=0)
        for k, variable in enumerate(new):
            variable._value[...] = layout.view(buffers, k)
        self._refresh_replicas()
        return True

    def check_model(self, model):
        """Raises when a built model has weights created outside `scope()`.

        Args:
            model: the model about to be trained or evaluated.
        """
        outside = [v.path for v in model.weights if id(v) not in self._variable_ids]
        if outside and self.num_replicas_in_sync > 1:
            raise ValueError(
                f"{len(outside)} weight(s) of model '{model.name}' (e.g. {outside[:3]}) were "
                f"created outside `strategy.scope()` of {type(self).__name__}. Create and "
                "compile the model inside `with strategy.scope():`.")

    # Running ----------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Runs `fn` once per replica, each on its device with its piece of the input.

        `PerReplica` arguments (from a distributed dataset) give replica `i`
        their `i`-th component; other arguments go to every replica as they
        are. An `optimizer.apply_gradients` inside `fn` is applied once, with
        the gradients summed over all replicas, after every replica returned.
        Losses computed with `model.compute_loss` are scaled by
        1 / num_replicas_in_sync (Keras's rule); scale a hand-written mean
        loss yourself.

        Args:
            fn: the per-replica function.
            args: positional arguments (may contain `PerReplica` values).
            kwargs: keyword arguments (may contain `PerReplica` values).
            options: accepted for TensorFlow compatibility (unused).

        Returns:
            a `PerReplica` of the results when there are several replicas,
            else the single result.

        Example:
            >>> def step_fn(batch):
            ...     x, y = batch
            ...     with keras.GradientTape() as tape:
            ...         loss = loss_fn(y, model(x, training=True)) / strategy.num_replicas_in_sync
            ...     grads = tape.gradient(loss, model.trainable_variables)
            ...     optimizer.apply_gradients(zip(grads, model.trainable_variables))
            ...     return loss
            >>> per_replica = strategy.run(step_fn, args=(batch,))
            >>> total = strategy.reduce("SUM", per_replica, axis=None)
        """
        kwargs = kwargs or {}
        args = tuple(args)
        replica_args = [values.select_replica(i, args) for i in range(self._num_local)]
        replica_kwargs = [values.select_replica(i, kwargs) for i in range(self._num_local)]
        scales = [1.0 / self.num_replicas_in_sync] * self._num_local
        results = self._run_step(fn, replica_args, replica_kwargs, scales)
        if self.num_replicas_in_sync == 1:
            return results[0]
        return values.PerReplica(results)

    def _run_step(self, fn, replica_args, replica_kwargs, scales, model=None):
        """Runs one synchronous step; returns the per-replica results.

        Args:
            fn: the per-replica function.
            replica_args: one argument tuple per local replica (None: the
                replica has no data this step and does not run).
            replica_kwargs: one kwargs dict per local replica.
            scales: each replica's loss scale.
            model: the model of a fit/evaluate step (its metrics are summed
                across workers), or None.
        """
        if self.num_replicas_in_sync == 1:
            return [self._call_replica(0, fn, replica_args[0], replica_kwargs[0], 1.0, None)]
        self._sync_new_variables()
        self._refresh_replicas()
        metrics = _metric_variables(model) if model is not None and self._world.size > 1 else []
        before = {id(v): v._value.copy() for v in metrics}
        created = len(self._variables)
        step = replica_step.StepState(self._num_local)
        results = [None] * self._num_local
        try:
            for i in range(self._num_local):
                if replica_args[i] is None:
                    continue
                step.ran[i] = True
                results[i] = self._call_replica(i, fn, replica_args[i], replica_kwargs[i],
                                                scales[i], step)
        finally:
            self._use_replica_arrays(0)
        if model is not None and self._world.size > 1:
            metrics = _metric_variables(model)  # metrics built during the step included
        self._merge(step, model, before, built=len(self._variables) != created,
                    metrics=metrics)
        return results

    def _call_replica(self, index, fn, args, kwargs, scale, step):
        context = distribute_lib.ReplicaContext(
            self, self._world.rank * self._num_local + index, scale, step, local_index=index)
        previous = distribute_lib.enter_replica(context)
        distribute_lib.push(self)
        try:
            self._use_replica_arrays(index)
            with _devices.device(self._devices[index]):
                return fn(*args, **kwargs)
        finally:
            distribute_lib.pop(self)
            distribute_lib.exit_replica(previous)

    def _merge(self, step, model, before, built, metrics=()):
        """Sums the step's payload over replicas and workers; applies the update.

        Args:
            step: the `StepState` of the replicas.
            model: the model of a fit/evaluate step, or None.
            before: metric variable id -> value before the step (multi-worker).
            built: True when variables were created during the step.
            metrics: the metric variables to sum across workers.
        """
        fallback = self._last_target
        if fallback is None and model is not None and getattr(model, "optimizer", None):
            fallback = (model.optimizer, list(model.trainable_variables))
        target = replica_step.update_target(step, fallback)
        if step.applies:
            self._last_target = target
        metrics = list(metrics)
        state = self._state_variables
        direct = replica_step.direct_indices(target, host=self._devices[0].kind == "cpu")
        key = (None if target is None else (id(target[0]), tuple(id(v) for v in target[1])),
               tuple(id(v) for v in state), tuple(id(v) for v in metrics))
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = replica_step.build_layout(target, metrics, state,
                                                                    direct)
        buffer_sets = self._buffers(key, layout)
        metric_before = [before[id(v)] if id(v) in before else v._device.xp.zeros_like(v._value)
                         for v in metrics]
        deltas = [v._value - b for v, b in zip(metrics, metric_before)]
        for i, device in enumerate(self._devices):
            replica_step.contribute(layout, buffer_sets[i], device, i, step, target, state,
                                    deltas, direct)
        direct_sums = replica_step.sum_direct(step, target, direct, self._devices[0])
        self._reducer.reduce(buffer_sets)
        self._world.allreduce(buffer_sets[0])
        self._world.allreduce(direct_sums)
        skip = built and self._sync_new_variables()
        if skip:
            replica_step.warn_skipped_build()
        with self._devices[0].activate():
            return replica_step.finish(layout, buffer_sets[0], target, state, metrics,
                                       metric_before, skip, direct_sums)

    def _buffers(self, key, layout):
        """The reusable (zeroed) buffers of a layout, one set per local replica."""
        cache = self._buffer_sets
        if key not in cache:
            cache[key] = self._reducer.buffers(layout)
        buffer_sets = cache[key]
        seen = set()
        for buffers in buffer_sets:
            if id(buffers) not in seen:
                seen.add(id(buffers))
                cross_device_ops.zero(buffers)
        return buffer_sets

    # Cross-replica reductions --------------------------------------------------------
    def experimental_local_results(self, value):
        """The values of this process's replicas, as a tuple.

        Args:
            value: a `PerReplica` or any value.
        """
        if isinstance(value, values.PerReplica):
            return value.values
        return (value,)

    def reduce(self, reduce_op, value, axis=None):
        """Combines a per-replica value across all replicas (and workers).

        Args:
            reduce_op: `keras.distribute.ReduceOp.SUM` or `.MEAN` (or "SUM"/"MEAN").
            value: a `PerReplica` (from `run`), or a value that is the same on
                every replica.
            axis: None to combine whole values; an int to also reduce along
                that axis (MEAN then averages over every element along it).

        Returns:
            Tensor: the result, the same on every worker.

        Example:
            >>> strategy.reduce(keras.distribute.ReduceOp.MEAN, per_replica_loss, axis=None)
        """
        op = values.as_reduce_op(reduce_op)
        if not isinstance(value, values.PerReplica):
            if op is values.ReduceOp.SUM and self.num_replicas_in_sync > 1:
                raise ValueError(
                    "A value that is not per-replica cannot be summed over replicas; pass the "
                    "PerReplica result of `strategy.run`, or use ReduceOp.MEAN.")
            if axis is None:
                return core.convert_to_tensor(value)
            return core.convert_to_tensor(_local_reduce(core.convert_to_numpy(value), op, axis))
        total, count = 0, 0
        for part in value.values:
            array = core.convert_to_numpy(part)
            total = total + (array.sum(axis=axis) if axis is not None else array)
            count += array.shape[axis] if axis is not None else 1
        pieces = self._world.allgather_object((total, count))
        total = sum(p[0] for p in pieces)
        count = sum(p[1] for p in pieces)
        result = np.asarray(total)
        if op is values.ReduceOp.MEAN:
            dtype = result.dtype if is_float(result.dtype) else np.dtype("float32")
            result = (result / max(count, 1)).astype(dtype)
        return core.convert_to_tensor(result)

    def gather(self, value, axis):
        """Concatenates a per-replica value along `axis`, over all replicas in order.

        Args:
            value: a `PerReplica` or a single value.
            axis: the concatenation axis.

        Returns:
            Tensor: the concatenation, the same on every worker.
        """
        local = [core.convert_to_numpy(v) for v in self.experimental_local_results(value)]
        pieces = self._world.allgather_object(np.concatenate(local, axis=axis))
        return core.convert_to_tensor(np.concatenate(pieces, axis=axis))

    # Datasets ------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """Splits each global batch of `dataset` across the replicas.

        On several workers each keeps its rows of every global batch.

        Args:
            dataset: a batched `keras.data.Dataset` (or any re-iterable of batches).
            options: accepted for TensorFlow compatibility (unused).

        Returns:
            DistributedDataset: iterate it and pass its elements to `run`.

        Example:
            >>> dist = strategy.experimental_distribute_dataset(ds.batch(64))
            >>> for batch in dist:
            ...     strategy.run(step_fn, args=(batch,))
        """
        return input_lib.DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """Builds one input pipeline per worker with `dataset_fn(InputContext)`.

        The function's batches are this worker's (per-worker batch size);
        they are split across the worker's local replicas.

        Args:
            dataset_fn: callable taking an `InputContext`, returning a batched dataset.
            options: accepted for TensorFlow compatibility (unused).

        Returns:
            DistributedDataset.

        Example:
            >>> def dataset_fn(ctx):
            ...     ds = keras.data.Dataset.from_tensor_slices((x, y))
            ...     ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
            ...     return ds.batch(ctx.get_per_replica_batch_size(64))
            >>> dist = strategy.distribute_datasets_from_function(dataset_fn)
        """
        context = input_lib.InputContext(self._world.size, self._world.rank,
                                         self.num_replicas_in_sync)
        return input_lib.DistributedDataset(self, dataset_fn(context), per_worker=True)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def _split_local(self, step_batch):
        """Splits this worker's rows among its replicas.

        Returns:
            (pieces, sizes, scales): one slice, row count and loss scale per replica.
        """
        local = step_batch.data
        rows = values.num_rows(local)
        if step_batch.global_size is None:
            sizes = values.split_sizes(rows, self._num_local)
            scales = [1.0 / self.num_replicas_in_sync] * self._num_local
        else:
            _, _, sizes = input_lib.worker_bounds(step_batch.global_size,
                                                  self.num_replicas_in_sync,
                                                  self._num_local, self._world.rank)
            scales = [n / max(step_batch.global_size, 1) for n in sizes]
        starts = values.offsets(sizes)
        pieces = [values.slice_rows(local, starts[i], starts[i + 1])
                  for i in range(self._num_local)]
        return pieces, sizes, scales

    # fit / evaluate / predict ----------------------------------------------------------
    def _loop_setup(self, model, adapter, verbose, kind):
        """Distributed adapter, step function and verbosity for a Keras loop."""
        self.check_model(model)
        adapter = input_lib.distribute_adapter(adapter, self)
        return adapter, self._step_function(model, kind), verbose if self.is_chief else 0

    def _step_function(self, model, kind):
        """The function the loops call per global batch (see `_loop_setup`)."""
        fn = getattr(model, f"{kind}_step")

        def step(batch):
            if not isinstance(batch, input_lib.StepBatch):  # train_on_batch & co.
                rows = values.num_rows(batch) if self._world.size == 1 else None
                batch = input_lib.StepBatch(batch, rows)
            pieces, sizes, scales = self._split_local(batch)
            replica_args = [(p,) if n else None for p, n in zip(pieces, sizes)]
            results = self._run_step(fn, replica_args, [{}] * self._num_local, scales,
                                     model=None if kind == "predict" else model)
            if kind == "predict":
                return self._gather_outputs(results)
            return _step_logs(model, results)

        return step

    def _gather_outputs(self, results):
        """Predictions of every replica and worker, concatenated in sample order."""
        local = [tree.map_structure(core.convert_to_numpy, r) for r in results if r is not None]
        merged = _concat_structures(local)
        if self._world.size == 1:
            return merged
        pieces = [p for p in self._world.allgather_object(merged) if p is not None]
        return _concat_structures(pieces)


def _weight_signature(variables):
    return [(getattr(v, "path", None) or getattr(v, "name", "?"), tuple(v.shape),
             np.dtype(v._value.dtype).name) for v in variables]


def _check_same_weights(world, variables):
    """Raises on every rank when the ranks are about to broadcast different weights.

    Args:
        world: the `MpiWorld`.
        variables: this rank's variables to broadcast from rank 0.

    Raises:
        ValueError: naming the first weight (or the count) that differs
            between rank 0 and another rank.
    """
    signatures = world.allgather_object(_weight_signature(variables))
    chief = signatures[0]
    for rank, other in enumerate(signatures[1:], start=1):
        difference = _first_difference(chief, other, rank)
        if difference:
            raise ValueError(
                f"MultiWorkerMirroredStrategy: rank {rank} built different weights from rank 0, "
                f"so rank 0's weights cannot be broadcast to it: {difference}. Every worker must "
                "build the same model (same layers, shapes and dtypes) inside `strategy.scope()`.")


def _first_difference(chief, other, rank):
    for index, (mine, theirs) in enumerate(zip(chief, other)):
        if mine[1:] != theirs[1:]:
            return (f"weight #{index} is {mine[0]!r} {mine[1]} {mine[2]} on rank 0 but "
                    f"{theirs[0]!r} {theirs[1]} {theirs[2]} on rank {rank}")
    if len(chief) != len(other):
        return f"rank 0 has {len(chief)} weights, rank {rank} has {len(other)}"
    return None


def _concat_structures(structures):
    if not structures:
        return None
    if len(structures) == 1:
        return structures[0]
    flat = [tree.flatten(s) for s in structures]
    merged = [np.concatenate([f[i] for f in flat], axis=0) for i in range(len(flat[0]))]
    return tree.pack_sequence_as(structures[0], merged)


def _step_logs(model, results):
    """The first replica's logs, with metric values read after the merge (global)."""
    first = next((r for r in results if r is not None), None)
    current = model.get_metrics_result()
    if not isinstance(first, dict):
        return current
    logs = dict(first)
    for name in logs:
        if name in current:
            logs[name] = current[name]
    return logs


def _metric_variables(model):
    out = []
    for metric in model.metrics:
        out.extend(getattr(metric, "variables", []))
    return out


def _local_reduce(array, op, axis):
    return array.sum(axis=axis) if op is values.ReduceOp.SUM else array.mean(axis=axis)
