"""The recording machinery shared by all tapes: which tapes are active, how ops
record nodes, and the backward walk.

A recorded node is `(inputs, outputs, backward, name, needs, saved)`. For an
`Op` (see `op.py`), `backward` is `op.backward`, `needs` the tuple of bools
saying which inputs want a gradient and `saved` what `op.save` returned, so
the walk calls `op.backward(saved, needs, grads)`. `record` also accepts a
hand-written callable (then `needs` holds the `raw` flag and `saved` the
optional `ctx`), which is how `custom_gradient` records user functions.
Backwards written with ops are themselves recorded by outer tapes, which
gives higher-order gradients; `raw=True` marks a backward in array code that
an outer tape cannot see, which refuses (with NotImplementedError) to run
under a watching outer tape.

The backward walk lives in `backprop.py`.
"""
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend.config import _BFLOAT16, is_float_array

_BOTH, _FIRST, _SECOND = (True, True), (True, False), (False, True)  # pair `needs`, shared

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
        tape._record(name, inputs, outputs, backward, bool(raw), ctx)


def record_op(op, inputs, outputs):
    """Records an executed `Op` on every tape that tracks one of its float inputs.

    `needs[i]` is True when input `i` is a float that a tape tracks; nothing
    is recorded (and `op.save` is not called) when no input needs a gradient.
    The one-tape case is inlined: it is the common one and this runs per op.

    Args:
        op: the Op.
        inputs: its input Tensors.
        outputs: its output Tensors.
    """
    if len(_active) != 1:
        needs = tuple([is_float_array(x._value) and tracked(x) for x in inputs])
        if True in needs:
            record_node(op.name, tuple(inputs), tuple(outputs), op.backward, needs,
                        op.save(inputs, outputs))
        return
    tape = _active[0]
    watched, watch_vars = tape._watched, tape._watch_vars
    needs = []
    for x in inputs:  # `tracked` and `is_float_array`, inlined: this runs once per op
        if id(x) not in watched:
            if not (watch_vars and type(x) is not Tensor and isinstance(x, Variable)
                    and x.trainable):
                needs.append(False)
                continue
            watched[id(x)] = x
        dtype = x._value.dtype
        needs.append(dtype.kind == "f" or dtype == _BFLOAT16)
    if True not in needs:
        return
    for out in outputs:
        watched[id(out)] = out
    tape._nodes.append((inputs if type(inputs) is tuple else tuple(inputs),
                        outputs if type(outputs) is tuple else tuple(outputs),
                        op.backward, op.name, tuple(needs), op.save(inputs, outputs)))


def record_node(name, inputs, outputs, backward, needs, saved):
    """Offers an executed Op to every recording tape (the node format above).

    Args:
        name: the Op's name.
        inputs, outputs: tuples of Tensors.
        backward: `op.backward`.
        needs: tuple of bools, one per input.
        saved: what `op.save` returned.
    """
    for tape in _active:
        tape._record(name, inputs, outputs, backward, needs, saved)


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
    n1 = x1 is not None and is_float_array(x1._value)
    n2 = x2 is not None and is_float_array(x2._value)
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


def record_pair(name, vjp, t1, t2, out, a=None, b=None):
    """Fast recording of a one-output Op with operands `t1`, `t2` (either may be None).

    The hot path of the unary/binary op factories. Decides which operands
    need a gradient and records the node with `saved = (a, b, t1, t2, out)`
    (the pair ops' declared `save`) and `needs = (need1, need2)`; a None
    operand (a Python scalar) is left out of the node's inputs. Returns
    without recording when neither operand is tracked.

    Args:
        name: the Op's name.
        vjp: the Op's bound `backward` (bound once by the caller: binding it
            per call would cost more than the rest of this function).
        t1, t2: Tensor operands or None (Python scalars).
        out: the output Tensor.
        a, b: the raw operands the op computed with (saved for backward).
    """
    if len(_active) != 1:
        need1, need2 = needs(t1, t2)
        if need1 or need2:
            inputs = (t1,) if t2 is None else (t2,) if t1 is None else (t1, t2)
            record_node(name, inputs, (out,), vjp,
                        (_BOTH if need2 else _FIRST) if need1 else _SECOND, (a, b, t1, t2, out))
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
    if need1:  # is_float_array, inlined: this is the hottest path of the engine
        dtype = t1._value.dtype
        need1 = dtype.kind == "f" or dtype == _BFLOAT16
    if need2:
        dtype = t2._value.dtype
        need2 = dtype.kind == "f" or dtype == _BFLOAT16
    if need1 or need2:
        inputs = (t1,) if t2 is None else (t2,) if t1 is None else (t1, t2)
        watched[id(out)] = out
        tape._nodes.append((inputs, (out,), vjp, name,
                            (_BOTH if need2 else _FIRST) if need1 else _SECOND,
                            (a, b, t1, t2, out)))
