"""The current distribution strategy and the hooks the rest of kerasish calls.

Three hooks keep the single-device path free of distribution code:

- `on_variable_created(variable)`, called by `Layer.add_weight`, lets the
  active strategy register (and, on several GPUs, mirror) a new weight.
- `scale_loss(loss)` / `unscale_loss(loss)`, called by the trainer, apply
  Keras's loss-scaling rule inside a replica: each replica's loss is
  multiplied by its share of the global batch (1 / num_replicas for an even
  split), so that summing the replicas' gradients gives the gradient of the
  global-batch mean.
- `replica_apply(optimizer, grads, variables)`, called at the top of
  `BaseOptimizer.apply`: inside `strategy.run` the update is deferred to the
  strategy, which all-reduces the gradients of every replica (and worker) once
  and applies one identical update.

Outside a strategy every hook is a thread-local lookup and returns at once.
"""
import threading
import warnings

from kerasish.distribute import mpi_utils
from kerasish.ops import elementwise

_local = threading.local()
_warned = set()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def current_strategy():
    """The strategy of the innermost `scope()`, or None for the default."""
    stack = _stack()
    return stack[-1] if stack else None


def push(strategy):
    """Makes `strategy` current (`Strategy.scope()` calls it)."""
    stack = _stack()
    if stack and stack[-1] is not strategy and not getattr(_local, "replica", None):
        raise ValueError(
            f"Mixing different distribution strategies is not allowed: entering the scope of "
            f"{type(strategy).__name__} inside the scope of {type(stack[-1]).__name__}.")
    stack.append(strategy)


def pop(strategy):
    """Leaves the scope of `strategy` (must be the innermost)."""
    stack = _stack()
    if not stack or stack[-1] is not strategy:
        raise RuntimeError("Strategy scopes must be exited in the order they were entered.")
    stack.pop()


def on_variable_created(variable):
    """Lets the active strategy (if any) mirror a freshly created variable."""
    strategy = current_strategy()
    if strategy is not None:
        strategy._on_variable_created(variable)


def on_optimizer_created(optimizer):
    """Lets the active strategy (if any) number an optimizer created in its scope."""
    strategy = current_strategy()
    if strategy is not None:
        strategy._on_optimizer_created(optimizer)


# Replica context -------------------------------------------------------------
class ReplicaContext:
    """Where a function passed to `strategy.run` is running.

    Args:
        strategy: the strategy running the function.
        replica_id_in_sync_group: this replica's index among all replicas
            (across workers).
        loss_scale: the factor `scale_loss` applies (this replica's share of
            the global batch).
        step: the strategy's per-step state that collects deferred updates.
        local_index: the replica's index among this process's replicas.

    Example:
        >>> def step_fn(x):
        ...     ctx = keras.distribute.get_replica_context()
        ...     return ctx.replica_id_in_sync_group
    """

    def __init__(self, strategy, replica_id_in_sync_group, loss_scale, step, local_index=0):
        self.strategy = strategy
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.loss_scale = loss_scale
        self._step = step
        self._local_index = local_index

    @property
    def num_replicas_in_sync(self):
        """Replicas that take part in each step (all devices, all workers)."""
        return self.strategy.num_replicas_in_sync

    def all_reduce(self, reduce_op, value):
        """Not available: replicas run one after another in one thread.

        Raises:
            NotImplementedError: always; return the per-replica value from the
                function and call `strategy.reduce` on the result instead.
        """
        raise NotImplementedError(
            "ReplicaContext.all_reduce is not supported in kerasish: the replicas of a step run "
            "one after another, so a replica cannot wait for the others. Return the value from "
            "the function given to `strategy.run` and combine it with "
            "`strategy.reduce(keras.distribute.ReduceOp.SUM, per_replica_value, axis=None)`.")


class _DefaultReplicaContext(ReplicaContext):
    """The replica context of the default (no-distribution) strategy."""

    def __init__(self):
        super().__init__(None, 0, 1.0, None)

    @property
    def num_replicas_in_sync(self):
        return 1


def enter_replica(context):
    """Makes `context` the current replica context; returns the previous one."""
    previous = getattr(_local, "replica", None)
    _local.replica = context
    return previous


def exit_replica(previous):
    """Restores the replica context returned by `enter_replica`."""
    _local.replica = previous


def replica_context():
    """The `ReplicaContext` of the running `strategy.run` function, or None."""
    return getattr(_local, "replica", None)


def get_replica_context():
    """Like `tf.distribute.get_replica_context()`.

    Returns:
        the current `ReplicaContext` inside `strategy.run`; None in a
        strategy's cross-replica context (inside `scope()`, outside `run`);
        the default replica context when no strategy is active.
    """
    context = replica_context()
    if context is not None:
        return context
    if current_strategy() is not None:
        return None
    return _DefaultReplicaContext()


def in_cross_replica_context():
    """True inside a strategy's `scope()` but outside `strategy.run`."""
    return replica_context() is None and current_strategy() is not None


# Hooks called by the trainer and the optimizer ---------------------------------
def scale_loss(loss):
    """Scales a replica's loss by its share of the global batch (Keras's rule).

    Args:
        loss: a scalar Tensor.

    Returns:
        `loss` unchanged outside `strategy.run`, else `loss * share` where
        `share` is 1 / num_replicas_in_sync for an even split.
    """
    context = getattr(_local, "replica", None)
    if context is None or context.loss_scale == 1.0:
        return loss
    return elementwise.multiply(loss, context.loss_scale)


def unscale_loss(loss):
    """The inverse of `scale_loss`, for the loss tracker (the progress bar)."""
    context = getattr(_local, "replica", None)
    if context is None or context.loss_scale == 1.0:
        return loss
    return elementwise.divide(loss, context.loss_scale)


def replica_apply(optimizer, grads, trainable_variables):
    """Defers an optimizer update made inside `strategy.run` to the strategy.

    `BaseOptimizer.apply` calls this first and returns when it returns True.

    Args:
        optimizer: the optimizer whose `apply` was called.
        grads: the replica's gradients (list).
        trainable_variables: the variables (list or None).

    Returns:
        True when the update was taken over by the strategy (inside a replica
        of a multi-replica run), else False.
    """
    context = getattr(_local, "replica", None)
    if context is None or context._step is None:
        return False
    context._step.defer_apply(context._local_index, optimizer, grads, trainable_variables)
    return True


def model_strategy(model):
    """The strategy captured by a model (None for the default strategy)."""
    return getattr(model, "_distribute_strategy", None)


def step_function(model, kind):
    """The per-batch function of a loop: `model.<kind>_step`, distributed if needed.

    Args:
        model: the model.
        kind: "train", "test" or "predict".

    Returns:
        callable(batch) -> logs (or outputs for "predict").
    """
    strategy = getattr(model, "_distribute_strategy", None)
    if strategy is None:
        return _model_step(model, kind)
    return strategy._step_function(model, kind)


def _model_step(model, kind):
    """`model.<kind>_step`, or the model's captured training step (`jit_compile=True`)."""
    captured = (getattr(model, "_captured_train_step", None) if kind == "train"
                else getattr(model, "_captured_steps", {}).get(kind))
    if captured is not None:
        return captured
    return getattr(model, f"{kind}_step")


def loop_setup(model, adapter, verbose, kind):
    """What a fit/evaluate/predict loop needs under the model's strategy.

    Args:
        model: the model.
        adapter: the data adapter of global batches.
        verbose: the requested verbosity.
        kind: "train", "test" or "predict".

    Returns:
        (adapter, step_fn, verbose): unchanged without a strategy; else an
        adapter of this worker's rows, the distributed step, and verbose 0
        on every worker but the chief.
    """
    strategy = getattr(model, "_distribute_strategy", None)
    if strategy is None or (strategy._world.size == 1
                            and not getattr(strategy, "_drives_fit", False)):
        warn_single_process_in_mpi_job(strategy)
    if strategy is None:
        return adapter, _model_step(model, kind), verbose
    return strategy._loop_setup(model, adapter, verbose, kind)


def warn_single_process_in_mpi_job(strategy):
    """Warns once, on rank 0, when an MPI job of several ranks trains one model per rank.

    Under `mpiexec -n 2 python train.py` without MultiWorkerMirroredStrategy
    every process silently trains its own independent model.

    Args:
        strategy: the model's single-process strategy (None: the default one).
    """
    place = mpi_utils.launcher_world()
    if place is None or place[1] < 2 or place[0] != 0 or "mpi" in _warned:
        return
    _warned.add("mpi")
    name = type(strategy).__name__ if strategy is not None else "the default strategy"
    warnings.warn(
        f"kerasish runs in an MPI job of {place[1]} processes, but this model uses "
        f"{name}, which trains in one process: each of the {place[1]} processes trains its "
        "own independent model. To train one model across the processes, create and compile "
        "it inside `with keras.distribute.MultiWorkerMirroredStrategy().scope():`.",
        UserWarning, stacklevel=4)
