"""Capture: record the array work of a step once, replay it without Tensors or a tape.

A `Tracer` watches one eager run of a step and writes down every array
computation it sees as a flat list of steps over numbered slots:

- each `Op` call (its `forward` on raw arrays) and each fast elementwise op
  (`ops.add`, `ops.relu`...), including the ops the tape's backward walk runs;
- random draws (`kerasish.random`), as a step that draws again on replay from
  the generator the eager call would use (so masks are fresh and seeds advance);
- `Variable.assign` / `assign_add` / `assign_sub` (BN statistics, metric state).

Slots hold the step's inputs (bound per call), Variables (read live), constants
(Python numbers; tensors made by the creators marked `constant_creator`, which
depend only on shapes) and the outputs of earlier steps. Ops that keep arrays in
attributes (labels, forward statistics handed to a gradient Op) are handled by
rebinding those attributes from slots before the replayed `forward`, and by
reading back the arrays a `forward` leaves on its Op.

Anything the tracer cannot prove replayable stops the capture with a
`CaptureError` naming the cause: a host read of a tensor's value (Python control
flow on tensor values), a tensor made by code that is not an Op or a known
constant creator, a Variable created inside the step, an Op holding a random
generator or a tensor. The caller then runs the step eagerly.

Python code around the ops runs only while tracing, as with `tf.function`:
Python side effects (counters, prints, list appends) and checks that read array
values outside ops (e.g. label range checks) are not repeated on replay.
"""
import sys
import threading

import numpy as np

from kerasish.autodiff import op as _op_module
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend import devices as _devices

tracer = None  # the active Tracer (None: no capture in progress; checked by the fast ops)

_CONSTANT_CREATORS = set()


class CaptureError(Exception):
    """A step cannot be captured; the message says why."""


def constant_creator(fn):
    """Marks `fn` as making tensors that depend only on shapes/dtypes/Python values.

    Tensors such a function creates while a step is traced are baked into the
    plan as constants.

    Args:
        fn: a function.

    Returns:
        `fn`, unchanged.
    """
    _CONSTANT_CREATORS.add(fn.__code__)
    return fn


def _where(frame):
    code = frame.f_code
    return f"{code.co_name} ({code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno})"


def _user_frame(depth=2):
    """The innermost frame outside the kerasish engine (for messages)."""
    frame = sys._getframe(depth)
    first = frame
    while frame is not None and "/kerasish/" in frame.f_code.co_filename:
        frame = frame.f_back
    return frame or first


class Plan:
    """A traced step: steps over slots, replayed by `run`.

    Attributes:
        steps: list of callables `step(vals)`.
        size: the number of slots.
        constants: {slot: value}.
        inputs: the slots of the bound inputs, in binding order.
        variables: [(slot, Variable)], loaded before each segment.
        marks: {name: step index}.
    """

    def __init__(self, tracer):
        self.steps = tracer.steps
        self.size = tracer.size
        self.constants = tracer.constants
        self.inputs = tracer.inputs
        self.variables = tracer.variables
        self.marks = tracer.marks
        template = [None] * self.size
        for slot, value in self.constants.items():
            template[slot] = value
        self._template = template
        self._segments = {}

    def start(self, arrays):
        """The slot list of a new run, with `arrays` bound to the inputs."""
        vals = self._template[:]
        for slot, array in zip(self.inputs, arrays):
            vals[slot] = array
        self.load_variables(vals)
        return vals

    def load_variables(self, vals):
        """Reads every Variable's current array into its slot."""
        for slot, variable in self.variables:
            vals[slot] = variable._value

    def run(self, vals, start=None, stop=None):
        """Runs the steps between marks `start` and `stop` (names; None: the ends)."""
        segment = self._segments.get((start, stop))
        if segment is None:
            lo = 0 if start is None else self.marks[start]
            hi = len(self.steps) if stop is None else self.marks[stop]
            segment = self._segments[(start, stop)] = self.steps[lo:hi]
        for step in segment:
            step(vals)


class Tracer:
    """Records one eager run of a step into a `Plan` (see the module docstring).

    Use as a context manager; `bind_input` the step's input Tensors and
    `bind_variables` its state first, `mark(name)` between segments, `pause()`
    around code that must stay eager (the optimizer update), and `slot(t)` to
    find where a result lives.

    Example:
        >>> with Tracer() as tr:
        ...     tr.bind_input(x)
        ...     y = keras.ops.relu(x)
        >>> plan = tr.plan(); vals = plan.start([x_array]); plan.run(vals)
    """

    def __init__(self):
        self.steps = []
        self.size = 0
        self.constants = {}
        self.inputs = []
        self.variables = []
        self.marks = {}
        self.depth = 0
        self._slots = {}      # id(array) -> slot
        self._var_slots = {}  # id(Variable) -> slot
        self._keep = []       # keeps traced arrays alive, so their ids stay unique
        self._pending = {}    # id(array) -> (array, code, where): tensors made outside ops
        self._saved = None
        self._live = False
        self.seeds = []       # seed generators the random steps advance
        self.state = []       # Variables updated by eager calls
        self.problem = None   # why the step cannot be captured (None: it can)

    # Binding -----------------------------------------------------------------
    def _new_slot(self):
        self.size += 1
        return self.size - 1

    def bind_input(self, tensor):
        """Makes `tensor`'s array an input of the plan (bound per call)."""
        slot = self._new_slot()
        if id(tensor._value) in self._slots:  # one array bound twice: a replay may not alias
            self.fail("the same array is passed as two inputs")
        self._slots[id(tensor._value)] = slot
        self._keep.append(tensor._value)
        self.inputs.append(slot)
        return slot

    def bind_variables(self, variables):
        """Registers Variables (read live at replay) before the traced run."""
        for v in variables:
            self._variable_slot(v)

    def _variable_slot(self, v):
        slot = self._var_slots.get(id(v))
        if slot is None:
            slot = self._var_slots[id(v)] = self._new_slot()
            self.variables.append((slot, v))
            self._slots[id(v._value)] = slot
            self._keep.append(v._value)
        return slot

    def mark(self, name):
        """Names the current position (a segment boundary)."""
        self.marks[name] = len(self.steps)

    def plan(self):
        """The recorded `Plan`."""
        return Plan(self)

    # Resolving values ----------------------------------------------------------
    def slot(self, t):
        """The slot holding Tensor (or raw value) `t`; raises CaptureError if unknown."""
        if isinstance(t, Tensor):
            if type(t) is not Tensor and isinstance(t, Variable):
                return self._variable_slot(t)
            return self._array_slot(t._value)
        if _devices.is_array(t):
            return self._array_slot(t, tensor=False)
        return self._constant(t)

    def _constant(self, value):
        slot = self._new_slot()
        self.constants[slot] = value
        return slot

    def _array_slot(self, array, tensor=True):
        slot = self._slots.get(id(array))
        if slot is not None:
            return slot
        pending = self._pending.get(id(array))
        if pending is not None and pending[1] in _CONSTANT_CREATORS:
            slot = self._slots[id(array)] = self._constant(array)
            return slot
        if array.ndim == 0 and not tensor:
            return self._constant(array)
        if pending is not None:
            raise CaptureError(f"a tensor made by {pending[2]}, which is not an Op and "
                               "cannot be replayed")
        raise CaptureError("an array from outside the step (made before it, or by raw "
                           "array code), which a replay could not update")

    def _output(self, array):
        slot = self._new_slot()
        self._slots[id(array)] = slot
        self._keep.append(array)
        return slot

    def _spec(self, value):
        """A rebinding spec for an Op attribute: None (static), or a slot structure."""
        if isinstance(value, Tensor):
            raise CaptureError("an Op that keeps a tensor as a parameter")
        if isinstance(value, (np.random.Generator, np.random.RandomState)):
            raise CaptureError("an Op that keeps a random generator")
        if isinstance(value, dict) and any(_holds_arrays(v) or isinstance(v, Tensor)
                                           for v in value.values()):
            raise CaptureError("an Op that keeps arrays in a dict")
        if _devices.is_array(value) and not isinstance(value, np.generic):
            return ("a", self._array_slot(value, tensor=False))
        if isinstance(value, (tuple, list)) and any(
                _devices.is_array(v) and not isinstance(v, np.generic) or isinstance(v, Tensor)
                for v in value):
            return ("t", type(value), [self._spec(v) or ("c", v) for v in value])
        return None

    # Recording -------------------------------------------------------------------
    def record_op(self, op, inputs, result, before):
        """Records one Op call (inputs: Tensors; result: its forward's return)."""
        ins = [self.slot(x) for x in inputs]
        binds = []
        for name, value in before.items():
            spec = self._spec(value)
            if spec is not None:
                binds.append((name, spec))
        after = []
        for name, value in getattr(op, "__dict__", {}).items():
            if before.get(name, _MISSING) is not value and _holds_arrays(value):
                after.append(name)
        multi = type(result) is tuple
        outs = [self._output(r) for r in result] if multi else self._output(result)
        leftovers = []
        for name in after:
            value = op.__dict__[name]
            leftovers.append((name, self._leftover(value)))
        dev = inputs[0]._device
        self.steps.append(_op_step(op, dev, ins, outs, multi, binds, leftovers))

    def _leftover(self, value):
        if isinstance(value, (tuple, list)):
            return ("t", [self._leftover(v) for v in value])
        if _devices.is_array(value) and not isinstance(value, np.generic):
            return ("a", self._output(value))
        return ("c", value)

    def record_fn(self, fn, operands, out):
        """Records `out = fn(*operands)` (operands: Tensors or Python scalars)."""
        ins = [self.slot(x) for x in operands]
        o = self._output(out._value)
        if len(ins) == 1:
            (i0,) = ins

            def step(vals):
                vals[o] = fn(vals[i0])
        elif len(ins) == 2:
            i0, i1 = ins

            def step(vals):
                vals[o] = fn(vals[i0], vals[i1])
        else:
            def step(vals):
                vals[o] = fn(*[vals[i] for i in ins])
        self.steps.append(step)

    def record_random(self, draw, out):
        """Records a random draw: `draw()` is called again on each replay."""
        o = self._output(out._value)

        def step(vals):
            vals[o] = draw()
        self.steps.append(step)

    def record_call(self, fn, slots, state):
        """Records an eager call `fn(tensors)` of the tensors in `slots` (see `eager_call`)."""
        variables = self.variables
        for v in state:
            if all(v is not s for s in self.state):
                self.state.append(v)

        def step(vals):
            fn([None if s is None else Tensor(vals[s]) for s in slots])
            for slot, v in variables:
                vals[slot] = v._value
        self.steps.append(step)

    def record_assign(self, method, variable, value):
        """Records `variable.<method>(value)`."""
        self._variable_slot(variable)
        s = self.slot(value)
        dev = variable._device

        def step(vals):
            arr = vals[s]
            method(variable, Tensor(arr, dev) if _devices.is_array(arr) else arr)
        self.steps.append(step)

    def record_pair(self, compute, direct, dev, operands, computed, out, promote):
        """Records a fast elementwise op: `computed` are the operands it computed with
        (after promotion), `operands` the Tensors / Python scalars it was given."""
        raws = [x._value if isinstance(x, Tensor) else x for x in operands]
        xp = dev.xp
        if all(r is c for r, c in zip(raws, computed)):
            if direct is not None and xp is np:
                fn = direct
            elif len(raws) == 1:
                def fn(a):
                    return compute(xp, a)
            elif len(raws) == 2:
                def fn(a, b):
                    return compute(xp, a, b)
            else:
                def fn(*arrays):
                    return compute(xp, *arrays)
        else:
            def fn(a, b):
                return compute(xp, *promote(a, b))
        self.record_fn(fn, operands, out)

    def fail(self, reason):
        """Stops recording (the run goes on eagerly) and keeps the first reason."""
        global tracer
        if self.problem is None:
            self.problem = reason
        if self._live:
            self._uninstall()
            self._live = False
            tracer = None

    # Context ---------------------------------------------------------------------
    def __enter__(self):
        global tracer
        if tracer is not None:
            raise RuntimeError("a step is already being captured")
        tracer = self
        self.thread = threading.get_ident()
        self._install()
        self._live = True
        return self

    def __exit__(self, *exc):
        global tracer
        if self._live:
            self._uninstall()
            self._live = False
            tracer = None
        return False

    def pause(self):
        """Context manager: code inside runs eagerly and is not recorded."""
        return _Paused(self)

    def _install(self):
        self._saved = {}
        for cls, name, patched in _PATCHES:
            self._saved[(cls, name)] = cls.__dict__[name]
            setattr(cls, name, patched)

    def _uninstall(self):
        for (cls, name), original in self._saved.items():
            setattr(cls, name, original)


class _Paused:
    def __init__(self, tr):
        self.tr = tr
        self.was_live = False

    def __enter__(self):
        global tracer
        self.was_live = self.tr._live
        if self.was_live:
            self.tr._uninstall()
            tracer = None

    def __exit__(self, *exc):
        global tracer
        if self.was_live and self.tr.problem is None:
            tracer = self.tr
            self.tr._install()
        else:
            self.tr._live = False
        return False


_MISSING = object()


def _holds_arrays(value):
    if isinstance(value, (tuple, list)):
        return any(_holds_arrays(v) for v in value)
    return _devices.is_array(value) and not isinstance(value, np.generic)


def _build(spec, vals):
    kind = spec[0]
    if kind == "a":
        return vals[spec[1]]
    if kind == "c":
        return spec[1]
    return spec[1](_build(s, vals) for s in spec[2])


def _read_back(spec, value, vals):
    kind = spec[0]
    if kind == "a":
        vals[spec[1]] = value
    elif kind == "t":
        for s, v in zip(spec[1], value):
            _read_back(s, v, vals)


def _op_step(op, dev, ins, outs, multi, binds, leftovers):
    forward = op.forward
    if not binds and not leftovers and not multi:
        if len(ins) == 1:
            (i0,) = ins

            def step(vals):
                vals[outs] = forward(dev, vals[i0])
            return step
        if len(ins) == 2:
            i0, i1 = ins

            def step(vals):
                vals[outs] = forward(dev, vals[i0], vals[i1])
            return step
        if len(ins) == 3:
            i0, i1, i2 = ins

            def step(vals):
                vals[outs] = forward(dev, vals[i0], vals[i1], vals[i2])
            return step
    if all(spec[0] == "a" for _, spec in binds) and all(
            spec[0] == "t" and all(s[0] == "a" for s in spec[1]) for _, spec in leftovers):
        return _flat_op_step(op, dev, ins, outs, multi, binds, leftovers)

    def step(vals):
        for name, spec in binds:
            setattr(op, name, _build(spec, vals))
        result = forward(dev, *[vals[i] for i in ins])
        if multi:
            for o, r in zip(outs, result):
                vals[o] = r
        else:
            vals[outs] = result
        for name, spec in leftovers:
            _read_back(spec, op.__dict__[name], vals)
    return step


def _flat_op_step(op, dev, ins, outs, multi, binds, leftovers):
    """`_op_step` for an Op whose rebound attributes are arrays and whose leftovers
    are flat tuples of arrays (the softmax cross-entropies' labels and statistics):
    the same assignments, without walking the specs on every replay."""
    forward = op.forward
    binds = [(name, spec[1]) for name, spec in binds]
    leftovers = [(name, [s[1] for s in spec[1]]) for name, spec in leftovers]
    outs = list(outs) if multi else outs

    def step(vals):
        for name, slot in binds:
            setattr(op, name, vals[slot])
        result = forward(dev, *[vals[i] for i in ins])
        if multi:
            for o, r in zip(outs, result):
                vals[o] = r
        else:
            vals[outs] = result
        for name, slots in leftovers:
            for slot, value in zip(slots, op.__dict__[name]):
                vals[slot] = value
    return step


# The patches installed while tracing --------------------------------------------
_original_call = _op_module.Op.__call__
_original_init = Tensor.__init__


def _mine():
    """The active tracer if this thread is the one tracing (other threads run as usual)."""
    tr = tracer
    return tr if tr is not None and tr.thread == threading.get_ident() else None


def _traced_call(self, *inputs):
    tr = _mine()
    if tr is None or tr.depth:
        return _original_call(self, *inputs)
    before = dict(getattr(self, "__dict__", {}))
    dev = inputs[0]._device
    tr.depth += 1
    try:
        result = self.forward(dev, *[x._value for x in inputs])
    finally:
        tr.depth -= 1
    try:
        tr.record_op(self, inputs, result, before)
    except CaptureError as err:
        tr.fail(f"{err} (Op '{self.name}')")
    # the rest of Op.__call__: wrap and record on the tapes
    if type(result) is tuple:
        outputs = tuple([Tensor(r, dev) for r in result])
        if _op_module.recording._active and self.differentiable:
            _op_module.recording.record_op(self, inputs, outputs)
        return outputs
    out = Tensor(result, dev)
    if _op_module.recording._active and self.differentiable:
        _op_module.recording.record_op(self, inputs, (out,))
    return out


def _traced_init(self, value, device=None):
    _original_init(self, value, device)
    tr = _mine()
    if tr is None:
        return
    if type(self) is not Tensor and isinstance(self, Variable):
        if tr.depth == 0:
            tr.fail(f"a Variable created inside the step ({_where(_user_frame())})")
        return
    if id(value) not in tr._slots:
        frame = sys._getframe(1)
        tr._pending[id(value)] = (value, frame.f_code, _where(frame))
        tr._keep.append(value)


def _host_read(cls, name):
    original = cls.__dict__[name]

    def read(self, *args, **kwargs):
        tr = _mine()
        if tr is not None:
            tr.fail(f"a host read of a tensor's value (Tensor.{name} in "
                    f"{_where(sys._getframe(1))}): Python control flow or printing on "
                    "tensor values")
        return original(self, *args, **kwargs)
    read.__name__ = name
    return read


def _traced_assign(name):
    original = Variable.__dict__[name]

    def assign(self, value):
        tr = _mine()
        if tr is not None and tr.depth == 0:
            try:
                tr.record_assign(original, self, value)
            except CaptureError as err:
                tr.fail(f"{err} (Variable.{name} of '{self.path}')")
        return original(self, value)
    assign.__name__ = name
    return assign


def refuse(reason):
    """Stops the capture in progress (if this thread traces one): the step runs eagerly.

    Args:
        reason: why, for the warning.
    """
    tr = _mine()
    if tr is not None:
        tr.fail(reason)


def hook_pair(compute, direct, dev, operands, computed, out, promote=None):
    """Called by the fast elementwise ops while tracing (see `Tracer.record_pair`)."""
    tr = _mine()
    if tr is None or tr.depth:
        return
    try:
        tr.record_pair(compute, direct, dev, operands, computed, out, promote)
    except CaptureError as err:
        tr.fail(str(err))


def apply_raw(fn, *tensors):
    """`fn(xp, *arrays)` of Tensors on one device, as a Tensor (never differentiated).

    The way to write a non-differentiable op in raw array code so that a captured
    step can replay it.

    Args:
        fn: fn(xp, *arrays) -> array.
        *tensors: the input Tensors.

    Returns:
        Tensor.
    """
    dev = tensors[0]._device
    arrays = [t._value for t in tensors]
    out = Tensor(fn(dev.xp, *arrays), dev)
    if tracer is not None:
        hook_pair(fn, None, dev, tensors, arrays, out)
    return out


def derive(fn, *arrays):
    """`fn(*arrays)` on raw arrays (e.g. an index grid an Op takes as a parameter).

    A captured step computes it again on every replay from the arrays of that
    replay. The result is an array or a tuple of arrays.

    Args:
        fn: fn(*raw arrays) -> array or tuple of arrays.
        *arrays: raw arrays.

    Returns:
        what `fn` returns.
    """
    out = fn(*arrays)
    tr = _mine()
    if tr is None or tr.depth:
        return out
    try:
        ins = [tr.slot(a) for a in arrays]
    except CaptureError as err:
        tr.fail(str(err))
        return out
    spec = tr._leftover(out)

    def step(vals):
        _read_back(spec, fn(*[vals[i] for i in ins]), vals)
    tr.steps.append(step)
    return out


def host_check(check, *tensors):
    """Runs `check(*arrays)`, a validation that reads array values and may raise.

    A captured step runs it again on every replay, before the steps after it,
    so bad input raises the same error as in eager mode.

    Args:
        check: fn(*raw arrays); raises on bad values.
        *tensors: the Tensors it reads.
    """
    arrays = [t._value for t in tensors]
    check(*arrays)
    tr = _mine()
    if tr is None or tr.depth:
        return
    try:
        ins = [tr.slot(t) for t in tensors]
    except CaptureError as err:
        tr.fail(str(err))
        return
    tr.steps.append(lambda vals: check(*[vals[i] for i in ins]))


def hook_random(draw, out, seed=None):
    """Called by `kerasish.random` while tracing: `draw()` gives a fresh sample;
    `seed` is the generator object it advances (kept for verification), if any."""
    tr = _mine()
    if tr is None or tr.depth:
        return
    tr.record_random(draw, out)
    if hasattr(seed, "get_state") and all(s is not seed for s in tr.seeds):
        tr.seeds.append(seed)


def eager_call(fn, tensors, state=()):
    """Runs `fn(tensors)` eagerly (e.g. an optimizer update in fused array code).

    While a step is traced, the call becomes one step of the plan: a replay calls
    `fn` again with that replay's tensors, then re-reads the Variables.

    Args:
        fn: fn(list of Tensors or None).
        tensors: the list of Tensors (or None) to pass.
        state: callable returning the Variables `fn` updates (asked after the
            call; checked when the plan is verified).

    Returns:
        what `fn` returns.
    """
    tr = _mine()
    if tr is None or tr.depth:
        return fn(tensors)
    try:
        slots = [None if t is None else tr.slot(t) for t in tensors]
    except CaptureError as err:
        tr.fail(str(err))
        return fn(tensors)
    with tr.pause():
        result = fn(tensors)
    if tr.problem is None:
        tr.record_call(fn, slots, state())
    return result


# Verification ---------------------------------------------------------------
def snapshot(variables, seeds=()):
    """Copies of `variables`, the states of `seeds` and of the current device's generator."""
    dev = _devices.current_device()
    return {"variables": [(v, v._value.copy()) for v in variables],
            "seeds": [(g, g.get_state()) for g in seeds],
            "rng": (dev, dev.rng.bit_generator.state)}


def restore(snap):
    """Puts back what `snapshot` saved (variables in place)."""
    for v, array in snap["variables"]:
        v._value[...] = array
    for g, state in snap["seeds"]:
        g.set_state(state)
    dev, state = snap["rng"]
    dev.rng.bit_generator.state = state


def difference(outputs_a, outputs_b, snap_a, snap_b):
    """None if two runs agree bit for bit (outputs: lists of (name, host array)), else what differs."""
    if [k for k, _ in outputs_a] != [k for k, _ in outputs_b]:
        return "the outputs' structure"
    for (k, a), (_, b) in zip(outputs_a, outputs_b):
        if not _same(a, b):
            return f"output '{k}'"
    for (v, a), (_, b) in zip(snap_a["variables"], snap_b["variables"]):
        if not _same(a, b):
            return f"variable '{v.path}'"
    if [s for _, s in snap_a["seeds"]] != [s for _, s in snap_b["seeds"]]:
        return "a seed generator's state"
    if snap_a["rng"][1] != snap_b["rng"][1]:
        return "the global random generator's state"
    return None


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


_original_direct_set = Variable._direct_set


def _direct_set_patch(self, array):
    tr = _mine()
    if tr is not None:
        tr.fail(f"a Variable's array replaced inside the step ('{self.path}')")
    return _original_direct_set(self, array)


_PATCHES = [(_op_module.Op, "__call__", _traced_call), (Tensor, "__init__", _traced_init)]
_PATCHES += [(Tensor, n, _host_read(Tensor, n)) for n in
             ("numpy", "__array__", "item", "tolist", "__float__", "__int__", "__bool__",
              "__index__")]
_PATCHES += [(Variable, n, _host_read(Variable, n)) for n in ("numpy", "__array__")]
_PATCHES += [(Variable, n, _traced_assign(n)) for n in ("assign", "assign_add", "assign_sub")]
_PATCHES += [(Variable, "_direct_set", _direct_set_patch)]
