"""`ParameterServerStrategy`: asynchronous data parallelism with parameter servers (MPI).

    mpiexec -n 4 python train.py   # rank 0 chief, rank 1 parameter server, ranks 2-3 workers

Every rank runs the same script (as with `MultiWorkerMirroredStrategy`) and
builds the same model inside `strategy.scope()`. The variables live on the
parameter-server ranks (whole variables, placed by size); the chief drives:
`model.fit` (or a `ClusterCoordinator`) hands steps to idle workers; a worker
pulls the current variables from the servers, runs the step on a batch of its
own input pipeline and pushes the gradients; each server applies them with
the optimizer as they arrive, with no barrier (asynchronous SGD). Up to two
steps per worker are in flight (`max_staleness` bounds the total), and the
staleness of every update (the updates applied between its pull and its
push) is measured.

The chief, the servers and the workers meet at the *driving points* of the
script: `fit`, `ClusterCoordinator.join`, `fetch` and `done`. There the
other ranks serve the chief until it ends that point, then go on with the
script; after `fit` and `join` every rank holds the final values. Functions
and datasets are never sent between ranks: each rank registers its own in
the same order, and the chief names them by number.
"""
import collections
import pickle
import sys
import time
import traceback

import numpy as np

from kerasish.backend import devices as _devices
from kerasish.data import data_adapters
from kerasish.distribute import (cross_device_ops, distribute_lib, input_lib, job_guard,
                                 mpi_utils, ps_transport, replica_step)
from kerasish.distribute.multi_worker_mirrored_strategy import ClusterSpec, _worker_device
from kerasish.distribute.ps_transport import (TAG_CONTROL, TAG_REPLY, TAG_REQUEST, TAG_RESULT,
                                              PeerFailed)
from kerasish.distribute.strategy import Strategy, StrategyExtended, _metric_variables
from kerasish.ops import core
from kerasish.utils import tree

_SLOTS_PER_WORKER = 2  # steps in flight per worker: one running, one waiting in its queue


class PSClusterResolver:
    """Roles of the ranks of a parameter-server job (what TF_CONFIG gives TensorFlow).

    Args:
        roles: the role of every rank ("chief", "ps" or "worker").
        rank: this process's rank.
        hosts: the host name of every rank.

    Example:
        >>> resolver = strategy.cluster_resolver
        >>> resolver.task_type, resolver.task_id
        ('worker', 1)
    """

    def __init__(self, roles, rank, hosts):
        self._roles = list(roles)
        self._hosts = list(hosts)
        self.task_type = roles[rank]
        self.task_id = [r for r, role in enumerate(roles) if role == roles[rank]].index(rank)
        self.rpc_layer = "mpi"

    @property
    def num_workers(self):
        """The number of worker ranks."""
        return self._roles.count("worker")

    @property
    def num_ps(self):
        """The number of parameter-server ranks."""
        return self._roles.count("ps")

    def cluster_spec(self):
        """`ClusterSpec` of jobs "chief", "ps" and "worker" (host names, in rank order)."""
        return ClusterSpec({role: [h for h, r in zip(self._hosts, self._roles) if r == role]
                            for role in ("chief", "ps", "worker")})

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""


class ParameterServerExtended(StrategyExtended):
    """`strategy.extended` of `ParameterServerStrategy`: only the chief checkpoints and logs."""

    @property
    def should_checkpoint(self):
        return self._strategy.role == "chief"

    @property
    def should_save_summary(self):
        return self._strategy.role == "chief"

    @property
    def parameter_devices(self):
        return tuple(f"/job:ps/task:{i}" for i in range(len(self._strategy._ps)))

    def _in_multi_worker_mode(self):
        return True


class _Closure:
    """One scheduled unit of work: a fit step or a function given to `schedule`."""

    def __init__(self, seq, kind, index=None, remote=None):
        self.seq, self.kind, self.index, self.remote = seq, kind, index, remote
        self.worker = None


class _FitState:
    """A worker's side of one `fit`: its model and its own input pipeline."""

    def __init__(self, model, x, strategy):
        self.model = model
        self.x = x
        self.strategy = strategy
        self.iterator = None
        self.adapter = None
        self.sent_probe = False

    def next_batch(self):
        """The next batch of this worker's pipeline, starting it again when it ends."""
        if self.adapter is None:
            dataset = self.strategy._worker_dataset(self.x)
            self.adapter = data_adapters.get_adapter(dataset)
        for _ in range(2):
            if self.iterator is None:
                self.iterator = iter(self.adapter.batches())
            try:
                return next(self.iterator)
            except StopIteration:
                self.iterator = None
        raise ValueError(f"ParameterServerStrategy: the dataset of worker rank "
                         f"{self.strategy._rank} yields no batch.")


class ParameterServerStrategy(Strategy):
    """Asynchronous training: variables on parameter servers, steps on workers (MPI).

    Roles come from the MPI rank (rank 0 the chief, ranks 1..num_ps the
    parameter servers, the rest workers) or from `KERASISH_PS_ROLE` ("chief",
    "ps" or "worker", set on every rank). Every rank runs the same script and
    builds the same model in `scope()`; `fit` runs on the chief, the other
    ranks serve it until it ends. Give `fit` a function of an `InputContext`
    (or a `DatasetCreator`, or a dataset) and `steps_per_epoch`: each worker
    builds its own pipeline with it. See docs/distributed_training.md.

    Args:
        cluster_resolver: accepted for TensorFlow compatibility (roles come from MPI).
        variable_partitioner: must be None: whole variables are placed on servers.
        num_ps: the number of parameter servers (default 1, or as `KERASISH_PS_ROLE` says).
        max_staleness: a kerasish extension: at most `max_staleness + 1` steps
            in flight, so no update is computed from weights more than
            `max_staleness` updates old (0: one step at a time, the same
            updates as one process). Default None: two steps per worker.
        placement: "size" (each variable to the server with the fewest bytes)
            or "round_robin".

    Attributes:
        role: this rank's role, "chief", "ps" or "worker".
        fault_tolerant: True when the MPI reports a dead rank instead of
            ending the job (Open MPI 5 under `mpiexec --with-ft ulfm`): then
            the steps of a worker that dies are run again on the others.

    Example:
        >>> strategy = keras.distribute.ParameterServerStrategy(num_ps=1)  # mpiexec -n 3+
        >>> with strategy.scope():
        ...     model = make_model()
        ...     model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        >>> model.fit(dataset_fn, epochs=3, steps_per_epoch=100)
    """

    _drives_fit = True

    def __init__(self, cluster_resolver=None, variable_partitioner=None, num_ps=None,
                 max_staleness=None, placement="size"):
        if variable_partitioner is not None:
            raise NotImplementedError(
                "ParameterServerStrategy(variable_partitioner=...) is not supported: kerasish "
                "places whole variables on the servers (placement='size' or 'round_robin') "
                "and does not split one variable into shards.")
        if placement not in ("size", "round_robin"):
            raise ValueError(f"ParameterServerStrategy: placement must be 'size' or "
                             f"'round_robin'; got {placement!r}.")
        if max_staleness is not None and (isinstance(max_staleness, bool) or
                                          not isinstance(max_staleness, int) or max_staleness < 0):
            raise ValueError(f"ParameterServerStrategy: max_staleness must be None or an "
                             f"integer >= 0; got {max_staleness!r}.")
        if num_ps is not None and (isinstance(num_ps, bool) or not isinstance(num_ps, int)
                                   or num_ps < 1):
            raise ValueError(f"ParameterServerStrategy: num_ps must be a positive integer; "
                             f"got {num_ps!r}.")
        comm = mpi_utils.world()
        roles = ps_transport.resolve_roles(comm, num_ps)
        guard = job_guard.install(comm)
        device = _worker_device(comm)
        super().__init__([device], cross_device_ops.HostReducer([device]),
                         cross_device_ops.LocalWorld())
        self.extended = ParameterServerExtended(self)
        self._rank = comm.rank
        self.role = roles[comm.rank]
        self._chief = roles.index("chief")
        self._ps = [r for r, role in enumerate(roles) if role == "ps"]
        self._workers = [r for r, role in enumerate(roles) if role == "worker"]
        self._resolver = PSClusterResolver(roles, comm.rank, mpi_utils.host_names(comm))
        self._channel = ps_transport.Channel(comm, guard)
        self.fault_tolerant = ps_transport.fault_tolerant()
        self._max_staleness = max_staleness
        self._placement_policy = placement
        self._placement = []
        self._index = {}
        self._optimizers = []
        self._scheduled = []  # every rank: (fn, args, kwargs) of each `schedule`, in order
        self._phases = 0
        # The chief's dispatcher.
        self._queue = collections.deque()
        self._inflight = {w: [] for w in self._workers}
        self._closures = {}
        self._last_sent = {}
        self._seq = 0
        self._need_push = True
        self._pushed = 0
        self._fit_model = None
        self._epoch_results = 0
        self._stats = _Stats()
        # A server's store: its variables are this rank's own Variable objects.
        self._version = 0
        self._held = set()
        self._optimizer_start = None  # a server: its fit optimizer's state when last set
        self._optimizer_base = None   # the chief: the state it last pushed

    # Properties --------------------------------------------------------------------
    @property
    def num_replicas_in_sync(self):
        """1: each step runs on one worker (TensorFlow's value for CPU workers)."""
        return 1

    @property
    def cluster_resolver(self):
        """The `PSClusterResolver`: `task_type` ("chief", "ps", "worker") and `task_id`."""
        return self._resolver

    @property
    def is_chief(self):
        return self.role == "chief"

    def __repr__(self):
        return (f"<ParameterServerStrategy role={self.role} ps={len(self._ps)} "
                f"workers={len(self._workers)}>")

    def ps_stats(self):
        """What the chief measured so far (a kerasish extension).

        Returns:
            dict: `steps` (updates pushed), `staleness_mean`, `staleness_max`,
            `staleness_histogram` ({staleness: count}), `bytes_per_step`
            (pulled + pushed by the workers), `ps_update_seconds` (mean time a
            server spends applying one update), `rescheduled` (steps re-run
            after a worker died) and `dead_workers`. Empty counts off the chief.
        """
        return self._stats.summary(sorted(self._channel.dead))

    # Registration (every rank, in the same order) -------------------------------------
    def _on_optimizer_created(self, optimizer):
        self._optimizers.append(optimizer)

    def _place(self):
        if len(self._placement) != len(self._variables):
            self._placement = ps_transport.place(self._variables, len(self._ps),
                                                 self._placement_policy)
            self._index = {id(v): k for k, v in enumerate(self._variables)}
        return self._placement

    def _key(self, variable):
        self._place()
        key = self._index.get(id(variable))
        if key is None:
            raise ValueError(
                f"ParameterServerStrategy: variable '{getattr(variable, 'path', variable)}' was "
                "not created inside `strategy.scope()`, so no parameter server holds it. Create "
                "the model (and its optimizer) inside `with strategy.scope():`.")
        return key

    def _optimizer_key(self, optimizer):
        for k, known in enumerate(self._optimizers):
            if known is optimizer:
                return k
        if self._fit_model is not None and optimizer is self._fit_model.optimizer:
            return "fit"
        raise ValueError(
            f"ParameterServerStrategy: optimizer {getattr(optimizer, 'name', optimizer)!r} was "
            "created outside `strategy.scope()`; the parameter servers cannot apply its "
            "updates. Create (or compile with) the optimizer inside the scope.")

    # Running a function ------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Calls `fn` on this worker's single replica (inside a scheduled function).

        Raises:
            RuntimeError: called outside a function given to `ClusterCoordinator.schedule`.
        """
        context = distribute_lib.replica_context()
        if context is None or context.strategy is not self:
            raise RuntimeError(
                "ParameterServerStrategy.run must be called inside a function given to "
                "`ClusterCoordinator.schedule` (it runs on a worker); the chief only schedules.")
        return fn(*args, **(kwargs or {}))

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """`dataset_fn(InputContext)` for this worker: one pipeline per worker, not split.

        Args:
            dataset_fn: callable taking an `InputContext`.
            options: accepted for TensorFlow compatibility.

        Returns:
            the dataset `dataset_fn` returns (each batch feeds one step).
        """
        return dataset_fn(self._input_context())

    def experimental_distribute_dataset(self, dataset, options=None):
        """The dataset itself: under this strategy each worker reads its own copy."""
        return dataset

    def _input_context(self):
        worker = self._workers.index(self._rank) if self._rank in self._workers else 0
        return input_lib.InputContext(len(self._workers), worker, 1)

    def _worker_dataset(self, x):
        """The worker's dataset from what `fit` got: a dataset function, creator or dataset."""
        if data_adapters._is_dataset(x):
            return x
        return x(self._input_context())

    # fit / evaluate / predict --------------------------------------------------------------
    def _loop_setup(self, model, adapter, verbose, kind):
        if kind == "train":
            return adapter, self._chief_train_step(model), verbose
        return adapter, getattr(model, f"{kind}_step"), verbose if self.is_chief else 0

    def _step_function(self, model, kind):
        if kind == "train":
            raise NotImplementedError(
                "train_on_batch is not supported with ParameterServerStrategy: use `fit` with "
                "a dataset function and steps_per_epoch, or a ClusterCoordinator.")
        return getattr(model, f"{kind}_step")

    def _fit(self, model, x, y, options, run_loop):
        """`model.fit` under this strategy (called by `Trainer.fit`).

        Args:
            model: the compiled model.
            x, y: the training data as given to `fit`.
            options: the other arguments of `fit`, by name.
            run_loop: callable(source) running Keras's fit loop on the chief
                over `source` (one token per step); returns the `History`.

        Returns:
            the `History` on the chief; on the other ranks a tuple
            (history dict, epochs, params) from the chief.
        """
        _check_fit(model, x, y, options, self)
        if not self.is_chief:
            return self._serve("fit", _FitState(model, x, self))
        self._fit_model, self._epoch_results = model, 0
        history, error = None, None
        try:
            history = run_loop(_StepTokens())
        except BaseException as exc:
            error = exc
            raise
        finally:
            self._fit_model = None
            payload = None if history is None else (history.history, history.epoch,
                                                    history.params)
            self._end_phase("fit", payload, sync=True, error=error)
        return history

    def _chief_train_step(self, model):
        def step(_token):
            self._queue.append(self._new_closure("fit"))
            self._pump_until(lambda: not self._queue, "a free worker for the next step")
            self._raise_step_error()
            # the metrics of the steps finished so far in this epoch (none yet: no logs)
            return model.get_metrics_result() if self._epoch_results else {}

        def finish_epoch():
            """Waits for the epoch's steps; returns its logs (every step counted)."""
            self._pump_until(self._all_done, "the epoch's last steps")
            self._raise_step_error()
            self._pull()
            self._pull_optimizer(model.optimizer, model.trainable_variables)
            counted, self._epoch_results = self._epoch_results, 0
            return model.get_metrics_result() if counted else {}

        step.finish_epoch = finish_epoch
        return step

    def _raise_step_error(self):
        if self._stats.errors:
            error = self._stats.errors[0]
            self._stats.errors.clear()
            raise error

    # The chief: scheduling --------------------------------------------------------------
    def _new_closure(self, kind, index=None, remote=None):
        self._seq += 1
        closure = _Closure(self._seq, kind, index, remote)
        self._closures[closure.seq] = closure
        return closure

    def _schedule(self, fn, args, kwargs, remote):
        """Registers a function (every rank); the chief queues it and starts what it can."""
        self._scheduled.append((fn, tuple(args or ()), dict(kwargs or {})))
        if self.is_chief:
            self._queue.append(self._new_closure("fn", len(self._scheduled) - 1, remote))
            self._pump()

    def _all_done(self):
        return not self._queue and not any(self._inflight.values())

    def _live_workers(self):
        live = [w for w in self._workers if w not in self._channel.dead]
        if not live:
            self._channel.abort("every worker has died; no worker is left to run the steps")
        return live

    def _dispatch(self):
        limit = None if self._max_staleness is None else self._max_staleness + 1
        while self._queue:
            if limit is not None and sum(map(len, self._inflight.values())) >= limit:
                return
            worker = min(self._live_workers(),  # the least busy, then the longest idle
                         key=lambda w: (len(self._inflight[w]), self._last_sent.get(w, -1), w))
            if len(self._inflight[worker]) >= _SLOTS_PER_WORKER:
                return
            self._push_chief_values()
            closure = self._queue.popleft()
            closure.worker = worker
            self._inflight[worker].append(closure.seq)
            self._last_sent[worker] = closure.seq
            self._channel.send(("run", closure.seq, closure.kind, closure.index), worker,
                               TAG_CONTROL)

    def _collect(self):
        """Handles every result that has arrived; True when there was one."""
        progressed = False
        for worker, seqs in self._inflight.items():
            if seqs and worker in self._channel.dead:  # found dead while sending to it
                self._worker_died(worker)
                progressed = True
        while True:
            busy = [w for w, seqs in self._inflight.items() if seqs]
            try:
                found = self._channel.poll(busy, TAG_RESULT)
            except PeerFailed as failure:
                self._worker_died(failure.rank)
                progressed = True
                continue
            if found is None:
                return progressed
            self._on_result(*found)
            progressed = True

    def _pump(self):
        self._dispatch()
        progressed = self._collect()
        self._dispatch()
        return progressed

    def _pump_until(self, done, what):
        """Dispatches and collects until `done()`; aborts the job after the guard's timeout."""
        guard = self._channel.guard
        limit = guard.timeout if guard is not None else None
        last = time.monotonic()
        polls = 0
        while True:
            if self._pump():
                last, polls = time.monotonic(), 0
            if done():
                return
            polls += 1
            ps_transport._back_off(polls)
            if polls % 64 == 0:
                if guard is not None:
                    guard.check_peers(what)
                if limit is not None and time.monotonic() - last > limit:
                    self._channel.abort(f"no worker finished a step within {limit:g} s while "
                                        f"waiting for {what} (KERASISH_COLLECTIVE_TIMEOUT)")

    def _worker_died(self, rank):
        seqs = self._inflight.get(rank, [])
        again = [self._closures[s] for s in seqs if s in self._closures]
        self._inflight[rank] = []
        self._queue.extendleft(reversed(again))
        self._stats.rescheduled += len(again)
        sys.stderr.write(f"[kerasish] ParameterServerStrategy: worker rank {rank} died; "
                         f"re-running its {len(again)} unfinished step(s) on the other "
                         "workers.\n")
        sys.stderr.flush()

    def _on_result(self, worker, message):
        kind, seq, value, info = message
        if seq in self._inflight.get(worker, []):
            self._inflight[worker].remove(seq)
        closure = self._closures.pop(seq, None)
        if closure is None:
            return  # a step of a phase that ended with an error
        if kind == "error":
            _add_worker_note(value, worker)
            if closure.remote is not None:
                closure.remote._set_error(value)
            self._stats.errors.append(value)
            return
        self._stats.add(info)
        if closure.kind == "fit":
            self._on_fit_result(value)
        elif closure.remote is not None:
            closure.remote._set(value)

    def _on_fit_result(self, value):
        model = self._fit_model
        if model is None:
            return
        metrics = _metric_variables(model)
        if len(metrics) != len(value["deltas"]) and "probe" in value:
            model.test_step(value["probe"])  # builds the chief's metrics like the worker's
            model.reset_metrics()
            metrics = _metric_variables(model)
        if len(metrics) != len(value["deltas"]):
            raise RuntimeError(
                f"ParameterServerStrategy: a worker's model tracks {len(value['deltas'])} metric "
                f"variables, the chief's {len(metrics)}; every rank must compile the same model.")
        for variable, delta in zip(metrics, value["deltas"]):
            variable._value += variable._device.send(delta).astype(variable._value.dtype,
                                                                  copy=False)
        self._epoch_results += 1

    # The chief: phases ------------------------------------------------------------------------
    def _end_phase(self, kind, payload, sync, error=None):
        """Ends a driving point: tells every other rank, with the values when `sync`."""
        if error is not None:
            self._queue.clear()
            for seq in list(self._closures):
                if not any(seq in seqs for seqs in self._inflight.values()):
                    self._closures.pop(seq)
        try:
            self._pump_until(self._all_done, f"the steps scheduled before {kind}()")
        finally:
            values = None
            if sync and error is None:
                values = {k: _devices.to_host(v._value) for k, v in enumerate(self._variables)}
                self._need_push = True
            self._phases += 1
            message = ("end", self._phases, kind, payload, values, sorted(self._channel.dead),
                       _picklable(error))
            for rank in range(len(self._resolver._roles)):
                if rank != self._rank:
                    self._channel.send(message, rank, TAG_CONTROL)
            self._channel.flush()

    def _push_chief_values(self):
        """Before the first step of a phase: the chief's values become the servers' values."""
        count = len(self._variables)
        if not self._need_push and self._pushed == count:
            return
        first = 0 if self._need_push else self._pushed
        placement = self._place()
        parts = {ps: {} for ps in self._ps}
        for k in range(first, count):
            parts[self._ps[placement[k]]][k] = _devices.to_host(self._variables[k]._value)
        self._request_all(parts, "assign", "the servers taking the chief's values")
        self._need_push, self._pushed = False, count
        model = self._fit_model
        if model is not None and model.optimizer is not None and model.optimizer.built:
            values = [_devices.to_host(v._value) for v in model.optimizer.variables]
            self._request_all({ps: values for ps in self._ps}, "opt_assign",
                              "the servers taking the chief's optimizer state")
            self._optimizer_base = [np.array(v) for v in values]

    def _pull_optimizer(self, optimizer, variables):
        """The fit optimizer's state from the servers into the chief's optimizer.

        Every server builds the optimizer over all trainable variables but
        updates only the slots of its own, so each optimizer variable is the
        value last pushed (or built) plus the change on the server that owns
        it; a change every server made alike (`iterations`) counts once.
        """
        if optimizer is None:
            return
        if not optimizer.built:
            optimizer.build(variables)
        replies = self._request_all({ps: None for ps in self._ps}, "opt_pull",
                                    "the servers' optimizer state")
        changes = [reply[1] for reply in replies.values()]
        if any(len(c) != len(optimizer.variables) for c in changes):
            raise RuntimeError("ParameterServerStrategy: the servers' optimizer has "
                               f"{[len(c) for c in changes]} variables, the chief's "
                               f"{len(optimizer.variables)}; every rank must compile alike.")
        base = self._optimizer_base
        if base is None or len(base) != len(optimizer.variables):
            base = self._optimizer_base = [_devices.to_host(v._value).copy()
                                           for v in optimizer.variables]
        for j, variable in enumerate(optimizer.variables):
            parts = [c[j] for c in changes]
            alike = all(np.array_equal(parts[0], p) for p in parts[1:])
            total = parts[0] if alike else sum(parts[1:], parts[0])
            _set_value(variable, base[j] + total, f"optimizer {j}")

    def _request_all(self, parts, kind, what, extra=()):
        """Sends one request per server and returns their replies by server rank."""
        for ps, body in parts.items():
            self._channel.send((kind, *extra, body), ps, TAG_REQUEST)
        replies = {}
        while len(replies) < len(parts):
            source, reply = self._channel.receive(
                [ps for ps in parts if ps not in replies], TAG_REPLY, what)
            replies[source] = reply
        return replies

    # Pull and push (chief and workers) ----------------------------------------------------
    def _pull(self):
        """Copies every server's current values into this rank's variables.

        Returns:
            (versions by server rank, bytes received).
        """
        replies = self._request_all({ps: None for ps in self._ps}, "pull",
                                    "a parameter server's values")
        versions, received = {}, 0
        for ps, (_, version, values) in replies.items():
            versions[ps] = version
            received += ps_transport.nbytes(values)
            for k, array in values.items():
                _set_value(self._variables[k], array, k)
        return versions, received

    def _push(self, optimizer, grads, variables, before, versions):
        """Sends one update to every server: gradients and the change of other variables.

        Returns:
            (per-server acks, bytes sent).
        """
        opt_key = self._optimizer_key(optimizer) if optimizer is not None else None
        placement = self._place()
        parts = {ps: ({}, {}) for ps in self._ps}
        with_grad = set()
        for grad, variable in zip(grads, variables):
            if grad is None:
                continue
            k = self._key(variable)
            with_grad.add(k)
            parts[self._ps[placement[k]]][0][k] = _devices.to_host(_raw(grad))
        for k, old in before.items():
            if k in with_grad:
                continue
            delta = _devices.to_host(self._variables[k]._value) - old
            if np.any(delta):
                parts[self._ps[placement[k]]][1][k] = delta
        sent = sum(ps_transport.nbytes(g) + ps_transport.nbytes(d) for g, d in parts.values())
        for ps, (g, d) in parts.items():
            self._channel.send(("push", opt_key, versions[ps], g, d), ps, TAG_REQUEST)
        acks = {}
        while len(acks) < len(parts):
            source, reply = self._channel.receive([p for p in parts if p not in acks], TAG_REPLY,
                                                  "a parameter server's acknowledgement")
            acks[source] = reply
        return acks, sent

    # Workers -----------------------------------------------------------------------------------
    def _execute(self, fn, args, kwargs):
        """Pull, run `fn` on this worker (capturing its optimizer update), push.

        Returns:
            (fn's result, info for the chief's statistics).
        """
        versions, received = self._pull()
        known = len(self._variables)
        before = {k: _devices.to_host(v._value).copy() for k, v in enumerate(self._variables)
                  if not v.trainable}
        step = replica_step.StepState(1)
        context = distribute_lib.ReplicaContext(self, 0, 1.0, step, local_index=0)
        previous = distribute_lib.enter_replica(context)
        distribute_lib.push(self)
        try:
            with _devices.device(self._devices[0]):
                result = fn(*args, **kwargs)
        finally:
            distribute_lib.pop(self)
            distribute_lib.exit_replica(previous)
        if len(self._variables) != known:
            raise ValueError(
                "ParameterServerStrategy: variables were created inside a scheduled function "
                "(a model built lazily on a worker), so no parameter server holds them. Build "
                "the model before training (keras.Input or model.build) inside "
                "`strategy.scope()`.")
        optimizer, grads, variables = step.applies.get(0, (None, [], []))
        info = {"bytes": received, "staleness": None, "apply_s": []}
        if optimizer is not None or any(_changed(self._variables[k], old)
                                        for k, old in before.items()):
            acks, sent = self._push(optimizer, grads, variables, before, versions)
            info["bytes"] += sent
            if optimizer is not None:
                info["staleness"] = max(ack[2] for ack in acks.values())
                info["apply_s"] = [ack[3] for ack in acks.values()]
        return result, info

    def _fit_step(self, state):
        model = state.model
        batch = state.next_batch()
        before = {id(v): v._value.copy() for v in _metric_variables(model)}
        _, info = self._execute(model.train_step, (batch,), {})
        deltas = [_devices.to_host(v._value - before[id(v)] if id(v) in before else v._value)
                  for v in _metric_variables(model)]
        value = {"deltas": deltas}
        if not state.sent_probe:
            value["probe"] = tree.map_structure(
                lambda a: a[:1] if getattr(a, "ndim", 0) else a, batch)
            state.sent_probe = True
        return value, info

    def _run_closure(self, seq, kind, index, fit_state):
        try:
            if kind == "fit":
                value, info = self._fit_step(fit_state)
            else:
                fn, args, kwargs = self._scheduled[index]
                value, info = self._execute(fn, args, kwargs)
                value = tree.map_structure(_to_host_value, value)
            message = ("done", seq, value, info)
        except Exception as error:
            error = _picklable(error, traceback.format_exc())
            message = ("error", seq, error, None)
        self._channel.send(message, self._chief, TAG_RESULT)

    # Serving (every rank but the chief) --------------------------------------------------------
    def _serve(self, kind, fit_state=None):
        """Serves the chief until it ends this driving point; returns its payload."""
        if self.role == "ps":
            return self._serve_ps(kind, fit_state)
        while True:
            _, message = self._channel.receive([self._chief], TAG_CONTROL,
                                               f"the chief ({kind})", timeout=float("inf"))
            if message[0] == "end":
                return self._finish_phase(kind, message)
            _, seq, closure_kind, index = message
            if closure_kind == "fit" and fit_state is None:
                raise RuntimeError(f"ParameterServerStrategy: rank {self._rank} reached {kind}() "
                                   "while the chief runs fit(); every rank must run the same "
                                   "script.")
            self._run_closure(seq, closure_kind, index, fit_state)

    def _serve_ps(self, kind, fit_state):
        sources = [self._chief] + self._workers
        guard = self._channel.guard
        polls = 0
        while True:
            try:
                found = self._channel.poll(sources, TAG_REQUEST)
            except PeerFailed:
                continue
            if found is not None:
                self._answer(*found, fit_state)
                polls = 0
                continue
            if self._chief in self._channel.dead:
                self._channel.abort(f"the chief (rank {self._chief}) died while this server "
                                    f"served it ({kind})")
            control = self._channel.poll([self._chief], TAG_CONTROL)
            if control is not None:
                return self._finish_phase(kind, control[1])
            polls += 1
            ps_transport._back_off(polls)
            if polls % 64 == 0 and guard is not None:
                guard.check_peers(f"serving as parameter server ({kind})")

    def _answer(self, source, message, fit_state):
        kind = message[0]
        if kind == "pull":
            values = {k: _devices.to_host(self._variables[k]._value) for k in sorted(self._held)}
            reply = ("values", self._version, values)
        elif kind == "assign":
            for k, array in message[1].items():
                _set_value(self._variables[k], array, k)
                self._held.add(k)
            reply = ("ack", self._version, 0, 0.0)
        elif kind == "opt_assign":
            optimizer = self._fit_optimizer(fit_state)
            for variable, array in zip(optimizer.variables, message[1]):
                _set_value(variable, array, "optimizer")
            self._optimizer_start = [np.array(a) for a in message[1]]
            reply = ("ack", self._version, 0, 0.0)
        elif kind == "opt_pull":
            optimizer = self._fit_optimizer(fit_state)
            reply = ("opt", [_devices.to_host(v._value) - start for v, start in
                             zip(optimizer.variables, self._optimizer_start)])
        else:
            reply = self._apply_push(message, fit_state)
        self._channel.send(reply, source, TAG_REPLY)

    def _apply_push(self, message, fit_state):
        _, opt_key, pulled, grads, deltas = message
        staleness, seconds = self._version - pulled, 0.0
        if grads:
            optimizer = fit_state.model.optimizer if opt_key == "fit" else \
                self._optimizers[opt_key]
            if fit_state is not None and optimizer is fit_state.model.optimizer:
                optimizer = self._fit_optimizer(fit_state)
            keys = sorted(grads)
            variables = [self._variables[k] for k in keys]
            device = self._devices[0]
            start = time.perf_counter()
            optimizer.apply([device.send(grads[k]) for k in keys], variables)
            seconds = time.perf_counter() - start
        for k, delta in deltas.items():
            variable = self._variables[k]
            variable._value += variable._device.send(delta).astype(variable._value.dtype,
                                                                  copy=False)
        if grads:
            self._version += 1
        return ("ack", self._version, staleness, seconds)

    def _fit_optimizer(self, fit_state):
        """A server's optimizer of `fit`, built over every trainable variable (as the chief's)."""
        optimizer = fit_state.model.optimizer
        if not optimizer.built:
            optimizer.build(fit_state.model.trainable_variables)
        if self._optimizer_start is None or len(self._optimizer_start) != len(
                optimizer.variables):
            self._optimizer_start = [_devices.to_host(v._value).copy()
                                     for v in optimizer.variables]
        return optimizer

    def _finish_phase(self, kind, message):
        _, _, chief_kind, payload, values, dead, error = message
        self._phases += 1
        for rank in dead:
            self._channel.mark_dead(rank)
        if chief_kind != kind:
            raise RuntimeError(
                f"ParameterServerStrategy: rank {self._rank} ({self.role}) reached {kind}() while "
                f"the chief ended {chief_kind}(); every rank must run the same script (the chief "
                "drives, the others follow it to the same fit/join/fetch/done calls).")
        if values is not None:
            for k, array in values.items():
                _set_value(self._variables[k], array, k)
            self._need_push = True
        if error is not None:
            raise error
        return payload


class _StepTokens:
    """The chief's stand-in for the data: one token per step, forever."""

    def __iter__(self):
        step = 0
        while True:
            yield step
            step += 1


class _Stats:
    """The chief's running figures of a parameter-server job."""

    def __init__(self):
        self.steps = 0
        self.staleness = collections.Counter()
        self.bytes = 0
        self.apply_s = []
        self.rescheduled = 0
        self.errors = []

    def add(self, info):
        self.bytes += info["bytes"]
        if info["staleness"] is not None:
            self.steps += 1
            self.staleness[info["staleness"]] += 1
            self.apply_s.extend(info["apply_s"])

    def summary(self, dead):
        total = sum(self.staleness.values())
        mean = sum(s * n for s, n in self.staleness.items()) / total if total else 0.0
        return {"steps": self.steps, "staleness_mean": mean,
                "staleness_max": max(self.staleness, default=0),
                "staleness_histogram": dict(sorted(self.staleness.items())),
                "bytes_per_step": self.bytes / max(self.steps, 1),
                "ps_update_seconds": float(np.mean(self.apply_s)) if self.apply_s else 0.0,
                "rescheduled": self.rescheduled, "dead_workers": dead}


def _check_fit(model, x, y, options, strategy):
    if options.get("steps_per_epoch") is None:
        raise ValueError(
            "`fit()` with ParameterServerStrategy needs `steps_per_epoch`: every worker reads "
            "its own (repeated) pipeline, so an epoch has no natural end. Pass e.g. "
            "`model.fit(dataset_fn, epochs=3, steps_per_epoch=100)`.")
    if x is None or isinstance(x, (np.ndarray, list, tuple, dict)) or not (
            callable(x) or data_adapters._is_dataset(x)):
        raise ValueError(
            "`fit()` with ParameterServerStrategy takes a dataset function "
            "(`dataset_fn(input_context) -> dataset`), a `DatasetCreator` or a dataset, from "
            f"which every worker builds its own pipeline; got x of type {type(x).__name__}.")
    for name in ("y", "sample_weight", "class_weight"):
        value = y if name == "y" else options.get(name)
        if value is not None:
            raise ValueError(f"`fit()` with ParameterServerStrategy: `{name}` is not supported; "
                             "the dataset function's batches carry (x, y[, sample_weight]).")
    if options.get("validation_split"):
        raise ValueError("`fit()` with ParameterServerStrategy: `validation_split` is not "
                         "supported; pass `validation_data` (evaluated on the chief).")
    if not model.weights:
        raise ValueError("`fit()` with ParameterServerStrategy: build the model before "
                         "training (keras.Input or model.build), so that every rank creates "
                         "the same variables inside `strategy.scope()`.")
    outside = [v.path for v in model.weights if id(v) not in strategy._variable_ids]
    if outside:
        raise ValueError(
            f"{len(outside)} weight(s) of model '{model.name}' (e.g. {outside[:3]}) were created "
            "outside `strategy.scope()` of ParameterServerStrategy; no parameter server holds "
            "them. Create and compile the model inside `with strategy.scope():`.")


def _set_value(variable, array, key):
    if tuple(np.shape(array)) != tuple(variable._value.shape):
        raise ValueError(
            f"ParameterServerStrategy: variable #{key} '{variable.path}' has shape "
            f"{tuple(variable._value.shape)} on this rank but {tuple(np.shape(array))} on the "
            "parameter server; every rank must build the same model.")
    variable._value[...] = variable._device.send(np.asarray(array)).astype(
        variable._value.dtype, copy=False)


def _changed(variable, old):
    return not np.array_equal(_devices.to_host(variable._value), old)


def _raw(value):
    return value._value if hasattr(value, "_value") else value


def _to_host_value(value):
    if hasattr(value, "_value"):
        return np.asarray(core.convert_to_numpy(value))
    return value


def _picklable(error, text=None):
    """`error` if it survives pickling (to travel to other ranks), else a RuntimeError."""
    if error is None:
        return None
    try:
        pickle.loads(pickle.dumps(error))
        if text:
            error.add_note(text.rstrip())
        return error
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}\n{text or ''}".rstrip())


def _add_worker_note(error, worker):
    if isinstance(error, BaseException):
        error.add_note(f"(raised on worker rank {worker} by a scheduled step)")
