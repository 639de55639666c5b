"""`ClusterCoordinator`: custom training loops on a `ParameterServerStrategy` (TF's API).

    coordinator = keras.distribute.coordinator.ClusterCoordinator(strategy)
    per_worker_dataset = coordinator.create_per_worker_dataset(per_worker_dataset_fn)
    per_worker_iterator = iter(per_worker_dataset)
    for _ in range(steps):
        loss = coordinator.schedule(step_fn, args=(per_worker_iterator,))
    coordinator.join()
    print(loss.fetch())

Every rank runs these lines. On the chief, `schedule` queues the function
and returns at once; idle workers run the queued functions. `join`, `fetch`
and `done` are the driving points where the other ranks (which only record
what is scheduled) serve the chief until it gets there too.
"""
from kerasish.distribute.parameter_server_strategy import ParameterServerStrategy
from kerasish.utils import tree


class DatasetCreator:
    """Wraps a dataset function for `fit`/`create_per_worker_dataset` (TF's `DatasetCreator`).

    Args:
        dataset_fn: callable taking an `InputContext` and returning a batched dataset.
        input_options: accepted for TensorFlow compatibility (unused).

    Example:
        >>> def dataset_fn(input_context):
        ...     ds = keras.data.Dataset.from_tensor_slices((x, y)).shuffle(256, seed=0)
        ...     ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        ...     return ds.batch(64).repeat()
        >>> model.fit(keras.distribute.DatasetCreator(dataset_fn), epochs=2, steps_per_epoch=50)
    """

    def __init__(self, dataset_fn, input_options=None):
        if not callable(dataset_fn):
            raise TypeError(f"DatasetCreator: dataset_fn must be callable; got "
                            f"{type(dataset_fn).__name__}.")
        self.dataset_fn = dataset_fn
        self.input_options = input_options

    def __call__(self, input_context):
        return self.dataset_fn(input_context)


class RemoteValue:
    """The future result of a function given to `ClusterCoordinator.schedule`.

    Args:
        coordinator: the coordinator that scheduled it.
    """

    def __init__(self, coordinator):
        self._coordinator = coordinator
        self._ready = False
        self._value = None
        self._error = None

    def _set(self, value):
        self._ready, self._value = True, value

    def _set_error(self, error):
        self._ready, self._error = True, error

    def fetch(self):
        """Waits for the result (a driving point on every rank) and returns it as numpy."""
        return self._coordinator.fetch(self)

    def get(self):
        """Same as `fetch`."""
        return self.fetch()


class PerWorkerValues:
    """One value per worker (TF's `PerWorkerValues`); on each worker, its own.

    Args:
        local: this rank's value (None on the chief and the servers).
    """

    def __init__(self, local):
        self._local = local


class PerWorkerDataset(PerWorkerValues):
    """A dataset built on every worker by `create_per_worker_dataset`."""

    def __iter__(self):
        return PerWorkerIterator(None if self._local is None else iter(self._local))


class PerWorkerIterator(PerWorkerValues):
    """An iterator of a `PerWorkerDataset`; pass it to a scheduled function."""

    def __iter__(self):
        return self

    def __next__(self):
        if self._local is None:
            raise RuntimeError(
                "A per-worker iterator is read only on the workers: pass it to a function "
                "given to `ClusterCoordinator.schedule` and call `next()` on it there.")
        try:
            return next(self._local)
        except StopIteration:
            raise RuntimeError(
                "The per-worker dataset ran out of data on this worker; repeat it "
                "(`dataset.repeat()`) in the dataset function, as with TensorFlow.") from None

    get_next = __next__


class ClusterCoordinator:
    """Schedules functions on the workers of a `ParameterServerStrategy`.

    Args:
        strategy: the `ParameterServerStrategy`.

    Example:
        >>> coordinator = keras.distribute.coordinator.ClusterCoordinator(strategy)
        >>> result = coordinator.schedule(step_fn, args=(iterator,))
        >>> coordinator.join()
        >>> result.fetch()
    """

    def __new__(cls, strategy):
        if not isinstance(strategy, ParameterServerStrategy):
            raise ValueError(f"ClusterCoordinator needs a ParameterServerStrategy; got "
                             f"{type(strategy).__name__}.")
        existing = getattr(strategy, "_coordinator", None)
        if existing is not None:
            return existing  # one coordinator per strategy, as in TensorFlow
        coordinator = super().__new__(cls)
        coordinator._strategy = strategy
        strategy._coordinator = coordinator
        return coordinator

    def __init__(self, strategy):
        """Everything is set in `__new__` (one coordinator per strategy)."""

    @property
    def strategy(self):
        """The `ParameterServerStrategy`."""
        return self._strategy

    def schedule(self, fn, args=None, kwargs=None):
        """Queues `fn(*args, **kwargs)` to run on some worker; returns at once.

        The function pulls the current variables, runs on the worker (an
        `optimizer.apply_gradients` inside it is pushed to the servers) and
        its return value comes back as numpy. Functions and their arguments
        are not sent: every rank runs the same `schedule` calls, and the
        chief names the function by its position.

        Args:
            fn: the function (typically calling `strategy.run`).
            args: positional arguments (`PerWorkerIterator`s become this worker's).
            kwargs: keyword arguments.

        Returns:
            RemoteValue.
        """
        remote = RemoteValue(self)
        self._strategy._schedule(fn, args, kwargs, remote)
        return remote

    def join(self):
        """Waits until every scheduled function has run (a driving point on every rank).

        After it, every rank holds the servers' current variable values.

        Raises:
            the first error raised by a scheduled function since the last `join`.
        """
        strategy = self._strategy
        if not strategy.is_chief:
            strategy._serve("join")
            return
        error = None
        try:
            strategy._pump_until(strategy._all_done, "the scheduled functions (join)")
            strategy._pull()
            error = self._take_error()
        except BaseException as exc:
            strategy._end_phase("join", None, sync=False, error=exc)
            raise
        strategy._end_phase("join", None, sync=error is None, error=error)
        if error is not None:
            raise error

    def done(self):
        """Whether every scheduled function has finished (a driving point on every rank)."""
        strategy = self._strategy
        if not strategy.is_chief:
            return strategy._serve("done")
        strategy._pump()
        result = strategy._all_done()
        strategy._end_phase("done", result, sync=False)
        return result

    def fetch(self, val):
        """The values of `RemoteValue`s (any nested structure), waiting for them.

        A driving point on every rank: each gets the same numpy values.

        Args:
            val: a `RemoteValue` or a structure of them (other leaves pass through).

        Raises:
            the error raised by the scheduled function.
        """
        strategy = self._strategy
        if not strategy.is_chief:
            return strategy._serve("fetch")
        remotes = [v for v in tree.flatten(val) if isinstance(v, RemoteValue)]
        error = None
        try:
            strategy._pump_until(lambda: all(r._ready for r in remotes), "fetch()")
            error = next((r._error for r in remotes if r._error is not None), None)
            result = None if error is not None else tree.map_structure(
                lambda v: v._value if isinstance(v, RemoteValue) else v, val)
        except BaseException as exc:
            strategy._end_phase("fetch", None, sync=False, error=exc)
            raise
        strategy._end_phase("fetch", result, sync=False, error=error)
        if error is not None:
            raise error
        return result

    def create_per_worker_dataset(self, dataset_fn):
        """Builds a dataset on every worker (each its own pipeline).

        Args:
            dataset_fn: a function of no argument returning a dataset (it may
                call `strategy.distribute_datasets_from_function`), a
                `DatasetCreator`, or a dataset (each worker reads a copy).

        Returns:
            PerWorkerDataset: iterate it and pass the iterator to `schedule`.
        """
        strategy = self._strategy
        if strategy.role != "worker":
            return PerWorkerDataset(None)
        if isinstance(dataset_fn, DatasetCreator):
            return PerWorkerDataset(dataset_fn(strategy._input_context()))
        if callable(dataset_fn) and not hasattr(dataset_fn, "cardinality"):
            return PerWorkerDataset(dataset_fn())
        return PerWorkerDataset(dataset_fn)

    def _take_error(self):
        errors = self._strategy._stats.errors
        error = errors[0] if errors else None
        errors.clear()
        return error
