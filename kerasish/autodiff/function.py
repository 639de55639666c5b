"""`kerasish.function`: capture a Python function of tensors (e.g. a GradientTape step).

The decorated function is traced once per input signature into a plan (see
`capture.py`) and replayed, like `tf.function`. The stages are those of
`compile(jit_compile=True)`: the first call per signature runs eagerly, the
second is traced, the third runs the replay and then (from the restored state)
the eager function and keeps the plan only if both agree bit for bit on the
outputs, on every Variable the function reads, assigns or updates through an
optimizer, and on the random generators. A function that cannot be captured
runs eagerly after one warning.
"""
import functools
import warnings

import numpy as np

from kerasish.autodiff import capture
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend import devices
from kerasish.utils import tree

_EAGER = "eager"


def function(fn=None, jit_compile=True):
    """Captures `fn` (a function of tensors) into a replayed plan of array operations.

    Tensor (and numpy array) arguments are inputs of the plan; other arguments
    (Python numbers, strings, objects) are part of the signature, so a new value
    traces again. As with `tf.function`, Python code in `fn` runs only while it
    is traced: side effects such as prints or counters happen on the traced calls.
    Optimizer updates (`optimizer.apply`, `apply_gradients`) are replayed as calls.

    Args:
        fn: the function; used as `@kerasish.function` or `@kerasish.function()`.
        jit_compile: False runs `fn` eagerly (the decorator changes nothing).

    Returns:
        the wrapped function; its `captured` attribute says whether a plan is in use.

    Example:
        >>> @keras.function
        ... def train_step(x, y):
        ...     with keras.GradientTape() as tape:
        ...         loss = keras.ops.mean(keras.ops.square(model(x) - y))
        ...     grads = tape.gradient(loss, model.trainable_weights)
        ...     optimizer.apply(grads, model.trainable_weights)
        ...     return loss
    """
    if fn is None:
        return lambda f: function(f, jit_compile=jit_compile)
    if not callable(fn):
        raise TypeError(f"kerasish.function: expected a callable; received {fn!r}.")
    return CapturedFunction(fn, jit_compile)


class CapturedFunction:
    """The callable `function` returns (see there)."""

    def __init__(self, fn, jit_compile=True, label=None):
        self.fn = fn
        self.jit_compile = bool(jit_compile)
        self.label = label or f"kerasish.function: '{getattr(fn, '__name__', 'function')}'"
        self._entries = {}
        self.fallback_reason = None
        functools.update_wrapper(self, fn)

    @property
    def captured(self):
        """Whether at least one signature runs from a verified plan."""
        return any(isinstance(e, _Plan) and e.verified for e in self._entries.values())

    def __get__(self, instance, owner):  # works on methods too
        if instance is None:
            return self
        return functools.partial(self.__call__, instance)

    def __call__(self, *args, **kwargs):
        if not self.jit_compile:
            return self.fn(*args, **kwargs)
        args, kwargs = tree.map_structure(_as_tensor, (args, kwargs))
        key = _signature(args, kwargs)
        entry = self._entries.get(key, 0) if key is not None else _EAGER
        if isinstance(entry, _Plan):
            if entry.verified:
                return entry.replay(args, kwargs)
            return self._verify(key, entry, args, kwargs)
        if entry == _EAGER or capture.tracer is not None:  # nested: the outer trace sees it
            return self.fn(*args, **kwargs)
        if entry == 0:
            self._entries[key] = 1
            return self.fn(*args, **kwargs)
        return self._trace(key, args, kwargs)

    def _fall_back(self, key, reason):
        self._entries[key] = _EAGER
        if self.fallback_reason is None:
            self.fallback_reason = reason
            warnings.warn(f"{self.label} cannot be captured ({reason}); it runs eagerly "
                          "(same results, no speed-up).", stacklevel=3)

    def _trace(self, key, args, kwargs):
        with capture.Tracer() as tr:
            for t in _tensors(args, kwargs):
                tr.bind_input(t)
            out = self.fn(*args, **kwargs)
            spec = None
            if tr.problem is None:
                try:
                    spec = tree.map_structure(
                        lambda o: _Out(tr.slot(o)) if isinstance(o, Tensor) else _Const(o), out)
                except capture.CaptureError as err:
                    tr.fail(str(err))
        if tr.problem is not None:
            self._fall_back(key, tr.problem)
        else:
            self._entries[key] = _Plan(tr, spec)
        return out

    def _verify(self, key, entry, args, kwargs):
        before = entry.snapshot()
        try:
            replayed = _host(entry.replay(args, kwargs))
        except Exception as err:  # a replay that cannot run is a capture that failed
            replayed = err
        after_replay = entry.snapshot()
        capture.restore(before)
        out = self.fn(*args, **kwargs)
        difference = (f"the replay raised {replayed!r}" if isinstance(replayed, Exception)
                      else capture.difference(replayed, _host(out), after_replay,
                                              entry.snapshot()))
        if difference is None:
            entry.verified = True
        else:
            self._fall_back(key, f"its replay differed from the eager call: {difference}")
        return out


class _Plan:
    def __init__(self, tr, spec):
        self.plan, self.spec = tr.plan(), spec
        seen, state = set(), []
        for v in [v for _, v in tr.variables] + tr.state:
            if id(v) not in seen:
                seen.add(id(v))
                state.append(v)
        self.state, self.seeds = state, list(tr.seeds)
        self.verified = False

    def snapshot(self):
        return capture.snapshot(self.state, self.seeds)

    def replay(self, args, kwargs):
        vals = self.plan.start([t._value for t in _tensors(args, kwargs)])
        self.plan.run(vals)
        return tree.map_structure(
            lambda s: Tensor(vals[s.slot]) if type(s) is _Out else s.value, self.spec)


class _Out:
    __slots__ = ("slot",)

    def __init__(self, slot):
        self.slot = slot


class _Const:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _as_tensor(x):
    if isinstance(x, np.ndarray) and x.dtype.kind in "biuf":
        dev = devices.current_device()
        return Tensor(dev.send(x), dev)
    return x


def _tensors(args, kwargs):
    """The Tensor arguments bound as plan inputs (Variables are read live instead)."""
    return [t for t in tree.flatten((args, kwargs))
            if isinstance(t, Tensor) and not isinstance(t, Variable)]


def _signature(args, kwargs):
    """Shapes/dtypes of tensors, values of the rest; None when a value is not hashable."""
    leaves = []
    for x in tree.flatten((args, kwargs)):
        if isinstance(x, Variable):
            leaves.append(("v", id(x)))
        elif isinstance(x, Tensor):
            if x._device.xp is not np:
                return None
            leaves.append((x._value.shape, x._value.dtype.str))
        else:
            try:
                hash(x)
            except TypeError:
                return None
            leaves.append(("py", type(x), x))
    return repr(tree.map_structure(lambda _: 0, (args, kwargs))), tuple(leaves)


def _host(out):
    return [(i, devices.to_host(o._value) if isinstance(o, Tensor) else o)
            for i, o in enumerate(tree.flatten(out))]
