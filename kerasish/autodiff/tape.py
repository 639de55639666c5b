"""GradientTape: records ops while active and differentiates them (TF semantics).

An op calls `record(...)` only when `_active` is non-empty, so code outside
any tape (predict, metrics) pays one list check per op and nothing more.
A recorded node is `(inputs, outputs, backward, name, raw)`: `backward`
maps output gradients (Tensors) to one gradient per input. Backwards
written with ops are themselves recorded by outer tapes, which gives
higher-order gradients; `raw=True` marks a fused backward in array code.

The backward walk iterates the recorded nodes in reverse order: recording
order is already a topological order, so no recursion is needed.
"""
import contextlib

from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.utils import tree

_active = []  # tapes that are recording now, innermost last


def record(name, inputs, outputs, backward, raw=False):
    """Offers an executed op to every recording tape.

    Args:
        name: the op's name (for error messages).
        inputs: tuple of the op's Tensor inputs (non-tensors excluded).
        outputs: tuple of the op's output Tensors.
        backward: callable(grads) -> tuple with one gradient (or None) per
            input; `grads` is the output gradient for one-output ops, else a
            list with one gradient (or None) per output.
        raw: True if `backward` is array code that outer tapes cannot see.
    """
    for tape in _active:
        tape._record(name, inputs, outputs, backward, raw)


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

    def _record(self, name, inputs, outputs, backward, raw):
        watched = self._watched
        hit = False
        for x in inputs:
            key = id(x)
            if key in watched:
                hit = True
            elif self._watch_vars and isinstance(x, Variable) and x.trainable:
                watched[key] = x
                hit = True
        if hit:
            for out in outputs:
                watched[id(out)] = out
            self._nodes.append((inputs, outputs, backward, name, raw))

    def watch(self, tensor):
        """Watches a tensor (or nested structure of tensors) for gradients.

        Args:
            tensor: a Tensor/Variable or a nested structure of them.
        """
        for t in tree.flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(
                    f"GradientTape.watch expects Tensors or Variables; got {type(t).__name__}. "
                    "Convert with keras.ops.convert_to_tensor first."
                )
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
        """Clears everything recorded so far."""
        self._watched.clear()
        self._nodes.clear()
        self._used = False

    # Differentiation ------------------------------------------------------
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
        """
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set "
                "of gradients (or jacobians). Use GradientTape(persistent=True)."
            )
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(
                "unconnected_gradients must be 'none' or 'zero'. "
                f"Received: {unconnected_gradients!r}"
            )
        flat_targets = tree.flatten(target)
        flat_sources = tree.flatten(sources)
        for s in flat_sources:
            if not isinstance(s, Tensor):
                raise ValueError(
                    f"GradientTape.gradient: sources must be Tensors or Variables; got "
                    f"{type(s).__name__}."
                )
        seeds = _seeds(flat_targets, output_gradients)
        was_recording = self._recording
        self._pop()  # a tape never records its own backward pass
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
                from kerasish.ops import creation
                g = creation.zeros_like(s)
            result.append(g)
        return tree.pack_sequence_as(sources, result)

    def jacobian(self, target, sources, unconnected_gradients="none"):
        """Jacobian of `target` w.r.t. each source: shape target.shape + source.shape.

        Computed one target element at a time, so it suits small targets.

        Args:
            target: a Tensor.
            sources: a Tensor/Variable or nested structure of them.
            unconnected_gradients: "none" or "zero".
        """
        from kerasish.ops import creation, manipulation as shape
        flat_sources = tree.flatten(sources)
        persistent, self._persistent = self._persistent, True
        try:
            rows = [[] for _ in flat_sources]
            n = max(1, target.size)
            for i in range(n):
                seed = creation.zeros((n,), dtype=target.dtype)
                seed._value[i] = 1
                seed = shape.reshape(seed, target.shape)
                grads = self.gradient(target, flat_sources, output_gradients=seed,
                                      unconnected_gradients="zero")
                for row, g in zip(rows, grads):
                    row.append(g)
        finally:
            self._persistent = persistent
        if not persistent:
            self._used = True
        result = []
        for s, row in zip(flat_sources, rows):
            stacked = shape.stack(row, axis=0)
            result.append(shape.reshape(stacked, tuple(target.shape) + tuple(s.shape)))
        return tree.pack_sequence_as(sources, result)


def _seeds(targets, output_gradients):
    from kerasish.ops import core, creation
    if output_gradients is None:
        return [creation.ones_like(t) for t in targets]
    flat = tree.flatten(output_gradients)
    if len(flat) != len(targets):
        raise ValueError(
            f"output_gradients has {len(flat)} entries but there are {len(targets)} targets."
        )
    seeds = []
    for t, g in zip(targets, flat):
        if g is None:
            seeds.append(creation.ones_like(t))
            continue
        g = core.convert_to_tensor(g, dtype=t.dtype)
        if g.shape != t.shape:
            raise ValueError(
                f"output_gradients entry has shape {g.shape} but its target has shape {t.shape}."
            )
        seeds.append(g)
    return seeds


def backprop(nodes, targets, seeds, sources):
    """Walks `nodes` backwards from `targets` and returns {id(tensor): grad}.

    Only nodes downstream of a source are visited. Gradients of
    intermediates are dropped as soon as their producer has consumed them.
    """
    from kerasish.ops import elementwise
    reach = {id(s) for s in sources}
    source_ids = set(reach)
    relevant = []
    for node in nodes:
        for x in node[0]:
            if id(x) in reach:
                relevant.append(node)
                for o in node[1]:
                    reach.add(id(o))
                break
    grads = {}

    def accumulate(key, g):
        prev = grads.get(key)
        grads[key] = g if prev is None else elementwise.add(prev, g)

    for t, seed in zip(targets, seeds):
        if id(t) in reach:
            accumulate(id(t), seed)
    for inputs, outputs, backward, name, raw in reversed(relevant):
        if len(outputs) == 1:
            key = id(outputs[0])
            g = grads.get(key) if key in source_ids else grads.pop(key, None)
            if g is None:
                continue
            if raw and _active:
                _refuse_higher_order(name, inputs, [g])
            in_grads = backward(g)
        else:
            out_grads = [grads.get(id(o)) if id(o) in source_ids else grads.pop(id(o), None)
                         for o in outputs]
            if all(g is None for g in out_grads):
                continue
            if raw and _active:
                _refuse_higher_order(name, inputs, out_grads)
            in_grads = backward(_fill_missing(outputs, out_grads))
        for x, g in zip(inputs, in_grads):
            if g is not None:
                key = id(x)
                if key in reach:
                    accumulate(key, g)
    return grads


def _fill_missing(outputs, grads):
    from kerasish.ops import creation
    return [creation.zeros_like(o) if g is None else g for o, g in zip(outputs, grads)]


def _refuse_higher_order(name, inputs, grads):
    """Raises when an outer tape would need to see inside a fused backward."""
    for tape in _active:
        watched = tape._watched
        if any(id(x) in watched for x in inputs) or any(
                g is not None and id(g) in watched for g in grads):
            raise NotImplementedError(
                f"Op '{name}' has a fused backward written in raw array code, so a "
                "second-order gradient through it cannot be recorded. Compute this "
                "part with fine-grained kerasish.ops (e.g. matmul + add instead of "
                "the fused dense) when you need higher-order gradients."
            )
