"""The captured training step behind `model.compile(..., jit_compile=True)`.

Per input signature (the batch's structure, shapes, dtypes), the step goes
through four stages:

1. the first batch runs eagerly (it builds the model, the optimizer, lazy metrics);
2. the second runs eagerly under a `capture.Tracer`, which writes the forward,
   the loss, the loss tracker, the backward walk and the metric updates down as
   a flat plan of array operations (the optimizer update stays its own fused
   array code, called between the plan's segments);
3. the third is run both ways from the same state: the plan's replay, then
   (after restoring every variable and random generator) the eager step. Only
   if the two agree bit for bit (logs, every model / optimizer / metric
   variable, the random generators' states) is the plan trusted;
4. later batches replay the plan: no Tensors, no tape, no Python layer code.

A step that cannot be captured (see `capture.Tracer`: host reads of tensor
values, tensors made by non-Op code, Variables created in the step...) or
whose replay disagrees with eager runs eagerly from then on, with one warning.
"""
import warnings

import numpy as np

from kerasish.autodiff import capture, indexed_slices
from kerasish.autodiff.tape import GradientTape
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import devices
from kerasish.data import data_adapters
from kerasish.distribute import distribute_lib
from kerasish.random import SeedGenerator
from kerasish.trainers import training_arg
from kerasish.utils import tree

_EAGER = "eager"


class CapturedTrainStep:
    """`model.train_step` with capture (see the module docstring).

    Args:
        model: a compiled model whose `train_step` is the built-in one.

    Example:
        >>> step = CapturedTrainStep(model)
        >>> logs = step((x, y))   # eager, traced, verified, then replayed
    """

    def __init__(self, model, custom=False):
        self.model = model
        self.custom = custom  # the model overrides `train_step`: the whole step is traced
        self._entries = {}
        self.fallback_reason = None

    def __call__(self, data):
        key = _signature(data)
        entry = self._entries.get(key, 0) if key is not None else _EAGER
        if isinstance(entry, _Captured):
            if entry.verified:
                return entry.replay(data)
            return self._verify(key, entry, data)
        if entry == _EAGER:
            return self.model.train_step(data)
        if entry == 0:
            self._entries[key] = 1
            return self.model.train_step(data)
        return self._trace(key, data)

    @property
    def captured(self):
        """Whether at least one signature runs from a verified plan."""
        return any(isinstance(e, _Captured) and e.verified for e in self._entries.values())

    def _fall_back(self, key, reason):
        self._entries[key] = _EAGER
        if self.fallback_reason is None:
            self.fallback_reason = reason
            warnings.warn(
                f"jit_compile: the training step of model '{self.model.name}' cannot be "
                f"captured ({reason}); it runs eagerly (same results, no speed-up).",
                stacklevel=4)

    def _trace(self, key, data):
        model = self.model
        flat = [t for t in tree.flatten(data) if t is not None]
        with capture.Tracer() as tr:
            for t in flat:
                tr.bind_input(t)
            tr.bind_variables(_state_variables(model))
            if self.custom:
                logs = model.train_step(data)
            else:
                logs, loss, grads = _segmented_step(model, data, tr)
            spec = None
            if tr.problem is None:
                try:
                    if self.custom:
                        spec = (_output_spec(tr, logs),)
                    else:
                        spec = (tr.slot(loss), [_gradient_spec(tr, g) for g in grads],
                                tree.map_structure(tr.slot, logs))
                except capture.CaptureError as err:
                    tr.fail(str(err))
        if tr.problem is not None:
            self._fall_back(key, tr.problem)
        else:
            kind = _CapturedCustom if self.custom else _Captured
            self._entries[key] = kind(model, tr.plan(), *spec)
            self._entries[key].variables = list(model._cached_trainable_weights())
        return logs

    def _verify(self, key, entry, data):
        model = self.model
        before = _snapshot(model)
        try:
            replayed = _host_logs(entry.replay(data))
        except Exception as err:  # a replay that cannot run is a capture that failed
            replayed = err
        after_replay = _snapshot(model)
        capture.restore(before)
        logs = model.train_step(data)
        difference = (f"the replay raised {replayed!r}" if isinstance(replayed, Exception)
                      else capture.difference(replayed, _host_logs(logs), after_replay,
                                              _snapshot(model)))
        if difference is None:
            entry.verified = True
        else:
            self._fall_back(key, f"its replay differed from the eager step: {difference}")
        return logs


class _Captured:
    """A plan with the slots of the loss, the gradients and the logs."""

    def __init__(self, model, plan, loss_slot, grad_slots, logs_spec):
        self.model, self.plan = model, plan
        self.variables = []  # the trainable variables the plan was traced with
        self.loss_slot, self.grad_slots, self.logs_spec = loss_slot, grad_slots, logs_spec
        self.verified = False

    def replay(self, data):
        model, plan = self.model, self.plan
        variables = model._cached_trainable_weights()
        if not _same_variables(variables, self.variables):
            # another set than the plan's (a layer (un)frozen since: train_on_batch reads
            # them anew, as Keras's own trace): the eager step, which the optimizer checks
            return model.train_step(data)
        vals = plan.start(_input_arrays(data))
        plan.run(vals, None, "check")
        plan.run(vals, "check", "apply")
        grads = [_replayed_gradient(s, vals, v) for s, v in zip(self.grad_slots, variables)]
        model.optimizer.apply(grads, variables)
        plan.load_variables(vals)
        plan.run(vals, "apply", None)
        spec = self.logs_spec
        if type(spec) is dict:
            return {k: Tensor(vals[s]) for k, s in spec.items()}
        return tree.map_structure(lambda s: Tensor(vals[s]), spec)


def _same_variables(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _gradient_spec(tr, gradient):
    """The slot of a gradient; a lookup gradient's rows (indexed_slices.py) get slots too."""
    if gradient is None:
        return None
    rows = indexed_slices.slices_of(gradient)
    if rows is None:
        return tr.slot(gradient)
    return tr.slot(gradient), tr.slot(rows.raw_values), tr.slot(rows.ids), rows.dense_shape


def _replayed_gradient(spec, vals, variable):
    """The gradient Tensor of one replay from its `_gradient_spec`."""
    if spec is None:
        return None
    if type(spec) is not tuple:
        return Tensor(vals[spec], variable._device)
    slot, values, ids, dense_shape = spec
    gradient = Tensor(vals[slot], variable._device)
    gradient._indexed_slices = indexed_slices.IndexedSlices(vals[values], vals[ids], dense_shape)
    return gradient


class _CapturedCustom(_Captured):
    """A whole custom `train_step` as one plan (optimizer updates are call steps in it)."""

    def __init__(self, model, plan, logs_spec):
        super().__init__(model, plan, None, None, logs_spec)

    def replay(self, data):
        vals = self.plan.start(_input_arrays(data))
        self.plan.run(vals)
        return _fill_spec(self.logs_spec, vals)


def _output_spec(tr, logs):
    """Slots of the Tensors of a custom step's logs, nested dicts included (a
    `compile_metrics` result is a dict); other values are kept as they are."""
    if type(logs) is dict:
        return {k: _value_spec(tr, v) for k, v in logs.items()}
    raise capture.CaptureError(f"train_step returned {type(logs).__name__}, not a dict")


def _value_spec(tr, value):
    if isinstance(value, Tensor):
        return ("slot", tr.slot(value))
    if type(value) is dict:
        return ("dict", {k: _value_spec(tr, v) for k, v in value.items()})
    return ("value", value)


def _fill_spec(spec, vals):
    """The logs of one replay: `_output_spec`'s spec with the slots' new values."""
    def fill(entry):
        kind, content = entry
        if kind == "slot":
            return Tensor(vals[content])
        if kind == "dict":
            return {k: fill(v) for k, v in content.items()}
        return content
    return {k: fill(v) for k, v in spec.items()}


def _segmented_step(model, data, tr):
    """`Trainer.train_step`, call for call, with the tracer's marks and pauses."""
    x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data)
    with GradientTape() as tape:
        y_pred = model(x, **training_arg.training_kwargs(model, True))
        loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        scaled_loss = model.optimizer.scale_loss(loss)
    model._loss_tracker.update_state(distribute_lib.unscale_loss(loss),
                                     sample_weight=_batch_size(x))
    tr.mark("check")
    variables = model._cached_trainable_weights()
    grads = tape.gradient(scaled_loss, variables)
    tr.mark("apply")
    with tr.pause():
        model.optimizer.apply(grads, variables)
    return model.compute_metrics(x, y, y_pred, sample_weight), loss, grads


def _batch_size(x):
    first = tree.flatten(x)[0]
    return first.shape[0] if getattr(first, "ndim", 0) else 1


def _input_arrays(data):
    if type(data) is tuple:  # the common flat (x, y[, sample_weight]) batch
        arrays = []
        for t in data:
            if type(t) is Tensor:
                arrays.append(t._value)
            elif t is not None:
                break
        else:
            return arrays
    return [t._value for t in tree.flatten(data) if t is not None]


def _signature(data):
    """A hashable key of the batch's structure, shapes and dtypes; None if not all Tensors."""
    if type(data) is tuple:  # the common (x, y[, sample_weight]) batch, without tree walks
        key = []
        for t in data:
            if type(t) is not Tensor or t._device.xp is not np:
                break
            key.append((t._value.shape, t._value.dtype.str))
        else:
            return tuple(key)
    leaves = []
    for t in tree.flatten(data):
        if t is None:
            leaves.append(None)
        elif type(t) is Tensor and t._device.xp is np:
            leaves.append((t._value.shape, t._value.dtype.str))
        else:
            return None
    return repr(tree.map_structure(lambda _: 0, data)), tuple(leaves)


# Verification: state snapshots --------------------------------------------------
def _state_variables(model):
    found, seen = [], set()
    sources = [model.variables]
    sources += [m.variables for m in model.metrics]
    if model.optimizer is not None:
        sources.append(model.optimizer.variables)
    for group in sources:
        for v in group:
            if id(v) not in seen:
                seen.add(id(v))
                found.append(v)
    return found


def _seed_generators(model):
    gens = []
    for layer in model._flatten_layers(include_self=True):
        for value in vars(layer).values():
            if isinstance(value, SeedGenerator):
                gens.append(value)
    return gens


def _snapshot(model):
    return capture.snapshot(_state_variables(model), _seed_generators(model))


def _host_logs(logs):
    return [(k, devices.to_host(getattr(v, "_value", v))) for k, v in _items(logs)]


def _items(logs):
    if isinstance(logs, dict):
        return sorted(logs.items())
    return list(enumerate(tree.flatten(logs)))
