"""GradientTape: records ops while active and differentiates them (TF semantics).

An op calls `record(...)` only when `_active` is non-empty, so code outside
any tape (predict, metrics) pays one list check per op and nothing more.
The node format lives in `recording.py`, the backward walk in `backprop.py`; their names
are re-exported here (`tape._active`, `tape.record`, ...), which is how ops
reach them.
"""
import contextlib

import numpy as np

from kerasish.autodiff.backprop import (_fill_missing, _refuse_higher_order,  # noqa: F401
                                        _relevant, backprop)
from kerasish.autodiff.recording import (_active, needs, record, record_node,  # noqa: F401
                                         record_pair, tracked)
from kerasish.autodiff import primitives
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend import config, devices as _device
from kerasish.utils import tree


class GradientTape:
    """Records operations for automatic differentiation, like `tf.GradientTape`.

    Args:
        persistent: allow several `gradient()` calls on one tape.
        watch_accessed_variables: watch trainable Variables used while active.

    Example:
        >>> x = keras.Variable(3.0)
        >>> with keras.GradientTape() as tape:
        ...     y = x * x
        >>> float(tape.gradient(y, x))
        6.0
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_vars = watch_accessed_variables
        self._watched = {}  # id -> tensor (keeps ids valid)
        self._nodes = []
        self._used = False
        self._recording = False
        self._differentiating = False  # recording its own backward pass (persistent)

    # Recording ------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        self._pop()
        return False

    def _push(self):
        if self._recording:
            raise ValueError("This GradientTape is already recording.")
        self._recording = True
        _active.append(self)

    def _pop(self):
        if self._recording:
            _active.remove(self)
            self._recording = False

    def _record(self, name, inputs, outputs, backward, needs, saved=None):
        watched = self._watched
        hit = False
        for x in inputs:
            if id(x) in watched:
                hit = True
            elif self._watch_vars and type(x) is not Tensor and isinstance(x, Variable) \
                    and x.trainable:
                watched[id(x)] = x
                hit = True
        if hit:
            for out in outputs:
                watched[id(out)] = out
            self._nodes.append((inputs, outputs, backward, name, needs, saved))

    def watch(self, tensor):
        """Watches a tensor (or nested structure of tensors) for gradients.

        Args:
            tensor: a Tensor/Variable or a nested structure of them.

        Example:
            >>> with keras.GradientTape() as tape:
            ...     tape.watch(x)
        """
        for t in tree.flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(
                    f"GradientTape.watch expects Tensors or Variables; got {type(t).__name__}. "
                    "Convert with keras.ops.convert_to_tensor first.")
            self._watched[id(t)] = t

    def watched_variables(self):
        """The Variables this tape has watched, in first-use order."""
        return tuple(t for t in self._watched.values() if isinstance(t, Variable))

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stops recording on this tape.

        Example:
            >>> with tape.stop_recording():
            ...     untracked = x * 2
        """
        if not self._recording:
            raise ValueError("stop_recording() needs a tape that is recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Clears everything recorded so far (the tape can be used again)."""
        self._watched.clear()
        self._nodes.clear()
        self._used = False

    # Differentiation ------------------------------------------------------
    def _check_usable(self, what):
        if self._used and not self._persistent:
            raise RuntimeError(
                f"GradientTape.{what}: a non-persistent GradientTape can only be used to "
                "compute one set of gradients (or jacobians). Use "
                "GradientTape(persistent=True) to call it several times.")

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients="none"):
        """Computes gradients of `target` w.r.t. `sources`.

        As in TensorFlow, a non-scalar target (or several targets) is
        differentiated as the sum of its elements unless `output_gradients`
        gives the upstream gradient.

        Args:
            target: a Tensor or nested structure of Tensors.
            sources: a Tensor/Variable or nested structure of them.
            output_gradients: upstream gradients, one per target (or None).
            unconnected_gradients: "none" (None for unconnected sources) or
                "zero" (zeros of the source's shape).

        Returns:
            Gradients with the structure of `sources`.

        Example:
            >>> grads = tape.gradient(loss, {"w": w, "b": b})
        """
        self._check_usable("gradient")
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(
                "GradientTape.gradient: unconnected_gradients must be 'none' or 'zero'. "
                f"Received: {unconnected_gradients!r}")
        flat_targets = tree.flatten(target)
        flat_sources = tree.flatten(sources)
        for s in flat_sources:
            if not isinstance(s, Tensor):
                raise ValueError(
                    "GradientTape.gradient: sources must be Tensors or Variables; got "
                    f"{type(s).__name__}.")
        seeds = _seeds(flat_targets, output_gradients)
        if self._persistent and self._recording:
            # As tf.GradientTape(persistent=True): inside its `with`, the tape records its
            # own backward pass, so a gradient of this gradient can be taken from it.
            self._differentiating = True
            try:
                grads = backprop(list(self._nodes), flat_targets, seeds, flat_sources)
            finally:
                self._differentiating = False
        else:
            was_recording = self._recording
            self._pop()
            try:
                grads = backprop(self._nodes, flat_targets, seeds, flat_sources)
            finally:
                if was_recording:
                    self._push()
        if not self._persistent:
            self._used = True
            self._nodes = []
            self._watched = {}
        result = []
        for s in flat_sources:
            g = grads.get(id(s))
            if g is None and unconnected_gradients == "zero":
                g = primitives.zeros_like(s)
            result.append(g)
        return tree.pack_sequence_as(sources, result)

    def jacobian(self, target, sources, unconnected_gradients="none"):
        """Jacobian of `target` w.r.t. each source: shape target.shape + source.shape.

        Computed one target element at a time, so it suits small targets.

        Args:
            target: a Tensor.
            sources: a Tensor/Variable or nested structure of them.
            unconnected_gradients: "none" or "zero".

        Returns:
            Jacobians with the structure of `sources` (None where unconnected
            and `unconnected_gradients="none"`).

        Example:
            >>> tape.jacobian(ops.square(x), x)   # diag(2 x) for a vector x
        """
        self._check_usable("jacobian")
        flat_sources = tree.flatten(sources)
        n = max(1, target.size)
        rows = [[] for _ in flat_sources]
        persistent, self._persistent = self._persistent, True
        try:
            for i in range(n):
                seed = _one_hot_seed(target, (n,), i)
                grads = self.gradient(target, flat_sources,
                                      output_gradients=primitives.reshape(seed, target.shape),
                                      unconnected_gradients=unconnected_gradients)
                for row, g in zip(rows, grads):
                    row.append(g)
        finally:
            self._persistent = persistent
        if not persistent:
            self._used, self._nodes, self._watched = True, [], {}
        result = []
        for s, row in zip(flat_sources, rows):
            if any(g is None for g in row):
                result.append(None)
                continue
            stacked = primitives.stack(row, axis=0)
            result.append(primitives.reshape(stacked, tuple(target.shape) + tuple(s.shape)))
        return tree.pack_sequence_as(sources, result)

    def batch_jacobian(self, target, source, unconnected_gradients="none"):
        """Per-example Jacobians: (batch, *target.shape[1:], *source.shape[1:]).

        Assumes example `i` of `target` depends only on example `i` of `source`
        (as `tf.GradientTape.batch_jacobian` does).

        Args:
            target: a Tensor (batch, ...).
            source: a Tensor (batch, ...).
            unconnected_gradients: "none" or "zero".

        Returns:
            Tensor, or None when unconnected and `unconnected_gradients="none"`.

        Example:
            >>> tape.batch_jacobian(ops.square(x), x).shape   # x: (4, 3) -> (4, 3, 3)
        """
        self._check_usable("batch_jacobian")
        if target.shape[0] != source.shape[0]:
            raise ValueError(f"GradientTape.batch_jacobian: target batch {target.shape[0]} "
                             f"differs from source batch {source.shape[0]}.")
        inner = int(max(1, target.size // max(1, target.shape[0])))
        persistent, self._persistent = self._persistent, True
        rows = []
        try:
            for j in range(inner):
                seed = _one_hot_seed(target, (target.shape[0], inner), (slice(None), j))
                rows.append(self.gradient(target, source,
                                          output_gradients=primitives.reshape(seed, target.shape),
                                          unconnected_gradients=unconnected_gradients))
        finally:
            self._persistent = persistent
        if not persistent:
            self._used, self._nodes, self._watched = True, [], {}
        if any(r is None for r in rows):
            return None
        stacked = primitives.stack(rows, axis=1)
        return primitives.reshape(stacked, tuple(target.shape) + tuple(source.shape[1:]))


def _one_hot_seed(target, shape, index):
    """Zeros of `shape` in `target`'s dtype and device with a 1 at `index`."""
    value = target._device.xp.zeros(shape, target._value.dtype)
    value[index] = 1
    return Tensor(value, target._device)


def _as_seed(g, t):
    """An upstream gradient given by the user, as a Tensor of `t`'s dtype on `t`'s device."""
    dtype = t._value.dtype
    if isinstance(g, Tensor):
        value = g._value if g._device is t._device else t._device.send(g._value)
        if value.dtype == dtype:
            return g if g._device is t._device else Tensor(value, t._device)
        return Tensor(value.astype(dtype), t._device)
    host = _device.to_host(g) if _device.is_array(g) else np.asarray(g)
    return Tensor(t._device.send(np.asarray(host, dtype=config.to_numpy_dtype(dtype))), t._device)


def _seeds(targets, output_gradients):
    if output_gradients is None:
        return [primitives.ones_like(t) for t in targets]
    flat = tree.flatten(output_gradients)
    if len(flat) != len(targets):
        raise ValueError(
            f"GradientTape.gradient: output_gradients has {len(flat)} entries but there "
            f"are {len(targets)} targets.")
    seeds = []
    for t, g in zip(targets, flat):
        if g is None:
            seeds.append(primitives.ones_like(t))
            continue
        g = _as_seed(g, t)
        if g.shape != t.shape:
            raise ValueError(
                f"GradientTape.gradient: output_gradients entry has shape {g.shape} but its "
                f"target has shape {t.shape}.")
        seeds.append(g)
    return seeds
