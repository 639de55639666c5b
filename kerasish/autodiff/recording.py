"""The recording machinery shared by all tapes: which tapes are active, how ops
record nodes, and the backward walk.

A recorded node is `(inputs, outputs, backward, name, raw, ctx)`: `backward`
maps output gradients (Tensors) to one gradient per input (called as
`backward(*ctx, grads)` when `ctx` is given). Backwards written with ops are
themselves recorded by outer tapes, which gives higher-order gradients;
`raw=True` marks a fused backward in array code, which refuses (with
NotImplementedError) to run under a watching outer tape.

The backward walk iterates the recorded nodes in reverse order: recording
order is already a topological order, so no recursion is needed and chains
of any length work.
"""
import functools

from kerasish.autodiff.tensor import Tensor, Variable

_active = []  # tapes that are recording now, innermost last


def record(name, inputs, outputs, backward, raw=False, ctx=None):
    """Offers an executed op to every recording tape.

    Args:
        name: the op's name (for error messages).
        inputs: tuple of the op's Tensor inputs (non-tensors excluded).
        outputs: tuple of the op's output Tensors.
        backward: callable(grads) -> sequence with one gradient (or None) per
            input; `grads` is the output gradient for one-output ops, else a
            list with one gradient per output (zeros for unused outputs).
            With `ctx`, it is called as `backward(*ctx, grads)` instead (a
            static function plus a tuple is cheaper than a closure).
        raw: True if `backward` is array code that outer tapes cannot see.
        ctx: optional tuple of extra leading arguments for `backward`.
    """
    for tape in _active:
        tape._record(name, inputs, outputs, backward, raw, ctx)


def tracked(x):
    """True when a recording tape watches `x` or will auto-watch it (trainable Variable).

    Ops use it to skip gradients nobody can ask for (like torch's
    `requires_grad`): an input that no tape tracks when the op runs can
    never receive a gradient through that op.

    Args:
        x: a Tensor.

    Returns:
        bool.
    """
    key = id(x)
    for tape in _active:
        if key in tape._watched or (tape._watch_vars and type(x) is not Tensor
                                    and isinstance(x, Variable) and x.trainable):
            return True
    return False


def needs(x1, x2):
    """`(tracked(x1), tracked(x2))` for float Tensors; False for None or non-floats."""
    n1 = x1 is not None and x1._value.dtype.kind == "f"
    n2 = x2 is not None and x2._value.dtype.kind == "f"
    if len(_active) == 1:
        tape = _active[0]
        watched = tape._watched
        if n1 and id(x1) not in watched:
            n1 = tape._watch_vars and type(x1) is not Tensor and isinstance(x1, Variable) \
                and x1.trainable
        if n2 and id(x2) not in watched:
            n2 = tape._watch_vars and type(x2) is not Tensor and isinstance(x2, Variable) \
                and x2.trainable
        return n1, n2
    return n1 and tracked(x1), n2 and tracked(x2)


def record_pair(name, t1, t2, out, backward, a=None, b=None):
    """Fast `record` for an op with inputs `t1`, `t2` (either may be None) and one output.

    Decides which inputs need a gradient (`needs`), and records the node as
    `backward(a, b, t1, t2, need1, need2, out, grad)`. Returns without
    recording when neither input is tracked. `backward` should be created
    once per op kind (a module function or a partial), not per call.

    Args:
        name: the op's name.
        t1, t2: Tensor inputs or None (Python scalars).
        out: the output Tensor.
        backward: the gradient function (see above).
        a, b: two extra values for `backward` (e.g. the raw operands).
    """
    if len(_active) != 1:
        need1, need2 = needs(t1, t2)
        if need1 or need2:
            inputs = (t1,) if t2 is None else (t2,) if t1 is None else (t1, t2)
            record(name, inputs, (out,), backward, False, (a, b, t1, t2, need1, need2, out))
        return
    tape = _active[0]
    watched = tape._watched
    need1 = t1 is not None and id(t1) in watched
    need2 = t2 is not None and id(t2) in watched
    if not (need1 or need2) and not tape._watch_vars:
        return
    if t1 is not None and not need1 and type(t1) is not Tensor and tape._watch_vars \
            and isinstance(t1, Variable) and t1.trainable:
        watched[id(t1)] = t1
        need1 = True
    if t2 is not None and not need2 and type(t2) is not Tensor and tape._watch_vars \
            and isinstance(t2, Variable) and t2.trainable:
        watched[id(t2)] = t2
        need2 = True
    need1 = need1 and t1._value.dtype.kind == "f"
    need2 = need2 and t2._value.dtype.kind == "f"
    if need1 or need2:
        inputs = (t1,) if t2 is None else (t2,) if t1 is None else (t1, t2)
        watched[id(out)] = out
        tape._nodes.append((inputs, (out,), backward, name, False,
                            (a, b, t1, t2, need1, need2, out)))


def _relevant(nodes, sources):
    """The nodes downstream of `sources` (in order) and the ids they reach."""
    reach = {id(s) for s in sources}
    relevant = []
    for node in nodes:
        for x in node[0]:
            if id(x) in reach:
                relevant.append(node)
                for o in node[1]:
                    reach.add(id(o))
                break
    return relevant, reach


def backprop(nodes, targets, seeds, sources):
    """Walks `nodes` backwards from `targets` and returns {id(tensor): grad}.

    Only nodes downstream of a source are visited. Gradients of
    intermediates are dropped as soon as their producer has consumed them.

    Args:
        nodes: recorded nodes in recording order.
        targets: flat list of target Tensors.
        seeds: their upstream gradients.
        sources: flat list of source Tensors.

    Returns:
        dict mapping id(source) (and other reached ids) to gradient Tensors.
    """
    from kerasish.ops.elementwise import add
    relevant, reach = _relevant(nodes, sources)
    keep = {id(s) for s in sources}
    grads = {}
    for t, seed in zip(targets, seeds):
        key = id(t)
        if key in reach:
            prev = grads.get(key)
            grads[key] = seed if prev is None else add(prev, seed)
    get, pop = grads.get, grads.pop
    for inputs, outputs, backward, name, raw, ctx in reversed(relevant):
        if len(outputs) == 1:
            key = id(outputs[0])
            g = get(key) if key in keep else pop(key, None)
            if g is None:
                continue
            if raw and _active:
                _refuse_higher_order(name, inputs, (g,))
        else:
            out_grads = [get(id(o)) if id(o) in keep else pop(id(o), None) for o in outputs]
            if all(g is None for g in out_grads):
                continue
            if raw and _active:
                _refuse_higher_order(name, inputs, out_grads)
            g = _fill_missing(outputs, out_grads)
        in_grads = backward(g) if ctx is None else backward(*ctx, g)
        if raw and _active:
            _record_opaque_backward(name, inputs, in_grads)
        for x, g in zip(inputs, in_grads):
            if g is not None:
                key = id(x)
                if key in reach:
                    prev = get(key)
                    grads[key] = g if prev is None else add(prev, g)
    return grads


def _fill_missing(outputs, grads):
    from kerasish.ops import creation
    return [creation.zeros_like(o) if g is None else g for o, g in zip(outputs, grads)]


def _refuse_higher_order(name, inputs, grads):
    """Raises when an outer tape would need to see inside a fused backward."""
    for tape in _active:
        if tape._differentiating:
            continue  # its own backward: `_record_opaque_backward` covers it
        watched = tape._watched
        if any(id(x) in watched for x in inputs) or any(
                g is not None and id(g) in watched for g in grads):
            raise NotImplementedError(
                f"Op '{name}' has a fused backward written in raw array code, so a "
                "second-order gradient through it cannot be recorded. Compute this "
                "part with fine-grained kerasish.ops (e.g. matmul + add instead of "
                "the fused dense) when you need higher-order gradients.")


def _record_opaque_backward(name, inputs, in_grads):
    """On a persistent tape recording its own backward, a fused (raw) backward is
    recorded as a node that raises if a higher-order gradient ever flows through it,
    so first-order use inside the `with` works and second order never comes out wrong."""
    outputs = tuple(g for g in in_grads if isinstance(g, Tensor))
    for tape in _active:
        if tape._differentiating and outputs:
            tape._record(name, tuple(inputs), outputs, functools.partial(_opaque, name), False)


def _opaque(name, grads):
    raise NotImplementedError(
        f"Op '{name}' has a fused backward written in raw array code, so a second-order "
        "gradient through it cannot be recorded. Compute this part with fine-grained "
        "kerasish.ops (e.g. matmul + add instead of the fused dense) when you need "
        "higher-order gradients.")
