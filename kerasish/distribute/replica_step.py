"""One synchronous step across replicas: run them, then merge once.

The replicas of a process run one after another in the calling thread, each
on its own device with its own copy of the replica-local arrays. An
`optimizer.apply` inside a replica is deferred (`distribute_lib.replica_apply`)
and recorded here. When every replica has returned, `merge` packs into one
flat buffer per dtype:

- each replica's gradients (zero-filled where a replica has none) and a
  per-variable count of the replicas that had a gradient,
- counters: replicas that ran and replicas that asked for an update,
- the replicas' state variables (BatchNormalization's moving statistics),
- on several workers, the change of every metric variable during the step,

sums the buffers of the local replicas and then of all workers (one
collective per dtype), and applies one identical optimizer update with the
summed gradients. State variables become the mean over the replicas, which
for moving averages equals averaging each replica's own moving average
(TensorFlow's ON_READ / MEAN variables); metrics become the global sum.
"""
import warnings

import numpy as np

from kerasish.backend.config import is_float
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import devices as _devices
from kerasish.distribute import cross_device_ops


class StepState:
    """What the replicas of one step asked for.

    Args:
        num_local: the number of local replicas.
    """

    def __init__(self, num_local):
        self.ran = [False] * num_local
        self.applies = {}

    def defer_apply(self, index, optimizer, grads, variables):
        """Records replica `index`'s `optimizer.apply(grads, variables)`.

        Raises:
            NotImplementedError: a second update in the same replica function.
            ValueError: `variables` omitted for an optimizer that is not built.
        """
        if index in self.applies:
            raise NotImplementedError(
                "Only one optimizer update per replica function is supported in a distributed "
                "step: kerasish applies it after every replica has returned, so a second update "
                "(e.g. a GAN's discriminator then generator) would see stale weights. Run each "
                "update in its own `strategy.run` call.")
        if variables is None:
            if not optimizer.built:
                raise ValueError(
                    "optimizer.apply(grads) without variables needs a built optimizer; call "
                    "`optimizer.build(model.trainable_variables)` first.")
            variables = optimizer._trainable_variables
        self.applies[index] = (optimizer, list(grads), list(variables))


def update_target(step, fallback):
    """The (optimizer, variables) the step updates, checked across replicas."""
    if not step.applies:
        return fallback
    items = list(step.applies.values())
    optimizer, _, variables = items[0]
    for other_optimizer, _, other_variables in items[1:]:
        same = other_optimizer is optimizer and len(other_variables) == len(variables) and all(
            a is b for a, b in zip(other_variables, variables))
        if not same:
            raise ValueError(
                "Every replica must update the same variables with the same optimizer in one "
                "step; the replica functions disagreed.")
    return optimizer, variables


def _is_float(variable):
    return is_float(np.dtype(variable._value.dtype))


DIRECT_ELEMENTS = 65536  # host gradients this large are reduced in place, not packed


def direct_indices(target, host):
    """Indices of the gradients reduced in place instead of packed.

    Packing costs one copy of every gradient. On a host (numpy) that copy
    takes about as long as sending the bytes to a local worker, so large
    host gradients are summed in their own arrays (one collective each) and
    only the small ones share the packed buffer. Device buffers (cupy)
    always pack: a device copy is cheap next to the collective.

    Args:
        target: (optimizer, variables) or None.
        host: True when the replicas' arrays are numpy arrays.

    Returns:
        tuple of variable indices (the same on every worker: shapes only).
    """
    if target is None or not host:
        return ()
    return tuple(k for k, v in enumerate(target[1]) if v._value.size >= DIRECT_ELEMENTS)


def build_layout(target, metric_vars, state_vars, direct=()):
    """The `Layout` of one step's payload (the same on every replica and worker)."""
    segments = [("count", (2,), "float32")]
    if target is not None:
        variables = target[1]
        segments.append(("flags", (len(variables),), "float32"))
        segments += [(("g", k), v.shape, v._value.dtype) for k, v in enumerate(variables)
                     if k not in direct]
    segments += [(("s", k), v.shape, v._value.dtype) for k, v in enumerate(state_vars)]
    segments += [(("m", k), v.shape, v._value.dtype) for k, v in enumerate(metric_vars)]
    return cross_device_ops.Layout(segments)


def _raw(value, device):
    """A gradient (Tensor or array) as a raw array on `device`."""
    array = value._value if isinstance(value, Tensor) else value
    return device.send(array)


def contribute(layout, buffers, device, index, step, target, state_vars, metric_deltas,
               direct=()):
    """Adds local replica `index`'s part of the payload into its buffers.

    Gradients listed in `direct` are not packed (see `sum_direct`).
    """
    ran = step.ran[index]
    applied = index in step.applies
    count = device.xp.asarray(np.array([ran, applied], dtype="float32"))
    layout.add(buffers, "count", count)
    if not ran:
        return
    if applied and target is not None:
        flags = np.zeros(len(target[1]), dtype="float32")
        for k, grad in enumerate(step.applies[index][1]):
            if grad is not None:
                if k not in direct:
                    layout.add(buffers, ("g", k), _raw(grad, device))
                flags[k] = 1.0
        layout.add(buffers, "flags", device.xp.asarray(flags))
    for k, variable in enumerate(state_vars):
        replicas = variable._replicas
        layout.add(buffers, ("s", k), replicas[index] if replicas else variable._value)
    if index == 0:
        for k, delta in enumerate(metric_deltas):
            layout.add(buffers, ("m", k), delta)


def sum_direct(step, target, direct, device):
    """Sums the local replicas' large host gradients in place, one array each.

    The first replica's gradient array becomes the accumulator when it owns
    its (contiguous, writable) data and no other variable shares it;
    otherwise it is copied. A worker without a gradient contributes zeros.

    Returns:
        dict index -> accumulated array (ready for the workers' all-reduce).
    """
    sums, seen = {}, set()
    for k in direct:
        variable = target[1][k]
        total = None
        for index in sorted(step.applies):
            grad = step.applies[index][1][k]
            if grad is None:
                continue
            array = _raw(grad, device).astype(variable._value.dtype, copy=False)
            if total is None:
                owned = (array.flags.owndata and array.flags.c_contiguous
                         and array.flags.writeable and id(array) not in seen)
                total = array if owned else np.array(array, copy=True)
                seen.add(id(array))
            else:
                total += array
        sums[k] = total if total is not None else np.zeros(variable.shape,
                                                            variable._value.dtype)
    return sums


def finish(layout, buffers, step_target, state_vars, metric_vars, metric_before, skip_update,
           direct_sums=None):
    """Applies the reduced payload on the primary replica.

    Returns:
        "updated", "skipped" (some replica produced no update, or the
        model was built in this step) or "none" (nobody asked for an update).
    """
    counts = _devices.to_host(layout.view(buffers, "count"))
    ran, applied = int(round(counts[0])), int(round(counts[1]))
    for k, variable in enumerate(state_vars):
        mean = layout.view(buffers, ("s", k)) / max(ran, 1)
        variable._value[...] = mean.astype(variable._value.dtype, copy=False)
    for k, variable in enumerate(metric_vars):
        total = metric_before[k] + layout.view(buffers, ("m", k))
        variable._value[...] = total.astype(variable._value.dtype, copy=False)
    if applied == 0 or step_target is None:
        return "none"
    if applied < ran or skip_update:
        return "skipped"
    optimizer, variables = step_target
    flags = _devices.to_host(layout.view(buffers, "flags"))
    direct_sums = direct_sums or {}
    grads = [None if flags[k] == 0 else direct_sums[k] if k in direct_sums
             else layout.view(buffers, ("g", k)) for k in range(len(variables))]
    optimizer.apply(grads, variables)
    return "updated"


def warn_skipped_build():
    """Warns once that a model built inside the first step had its update skipped."""
    warnings.warn(
        "Model variables were created inside the first distributed step; they were broadcast "
        "from the chief (rank 0) and this step's update was skipped so that every worker "
        "starts from the same weights. Build the model before training (keras.Input or "
        "model.build) to avoid this.", stacklevel=3)
