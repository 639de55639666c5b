"""The non-weight training state that a bit-identical resume needs, as JSON.

`capture_random_state` records Python's `random`, numpy's global
generator (which shuffles `fit`'s batches), every instantiated kerasish
device generator (gamma/binomial/beta draws), the position of Keras's
global SeedGenerator (`seed=None` draws) and of every
`keras.random.SeedGenerator` held by a layer (Dropout). `capture_metrics` records the compiled metrics' variables. Both
return JSON-friendly values and have `restore_*` counterparts. Optimizer
state and the learning-rate schedule position (`optimizer.iterations`)
travel with the weights file instead.
"""
import random as _pyrandom
import warnings

import numpy as np

from kerasish.backend import devices
from kerasish.random import SeedGenerator
from kerasish.saving import saving_lib


def capture_random_state(model):
    """Every random generator's state that training draws from, as JSON-friendly dicts.

    Args:
        model: the model whose layers' SeedGenerators are included.

    Returns:
        dict with keys "python", "numpy", "devices", "global_generator",
        "seed_generators".

    Example:
        >>> state = capture_random_state(model)
        >>> restore_random_state(state, model)   # later, the same draws follow
    """
    return {"python": _python_state(), "numpy": numpy_global_state(),
            "devices": _device_states(), "global_generator": _global_generator_state(),
            "seed_generators": _seed_generator_states(model)}


def restore_random_state(state, model):
    """Sets every generator recorded by `capture_random_state` back to its state.

    Args:
        state: a dict from `capture_random_state` (e.g. read back from JSON).
        model: the same architecture (SeedGenerators are matched by layer path).
    """
    version, internal, gauss = state["python"]
    _pyrandom.setstate((version, tuple(internal), gauss))
    set_numpy_global_state(state["numpy"])
    for name, value in state["devices"].items():
        if value is not None:
            devices.get_device(name).rng.bit_generator.state = value
    if "global_generator" in state:
        value = state["global_generator"]
        devices.random_state["global_generator"] = None
        if value is not None:  # seeded explicitly: Python's restored `random` is not drawn
            generator = SeedGenerator(seed=int(value[0]))
            generator.set_state(value)
            devices.random_state["global_generator"] = generator
    generators = dict(_seed_generators(model))
    for key, value in state["seed_generators"].items():
        if key in generators:
            generators[key].set_state(value)


def numpy_global_state():
    """numpy's global `RandomState` state (`np.random.shuffle` etc.) as a dict."""
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return {"bit_generator": name, "keys": keys.tolist(), "pos": int(pos),
            "has_gauss": int(has_gauss), "cached_gaussian": float(cached)}


def set_numpy_global_state(state):
    """Restores numpy's global generator from `numpy_global_state()`'s dict."""
    np.random.set_state((state["bit_generator"], np.asarray(state["keys"], dtype=np.uint32),
                         state["pos"], state["has_gauss"], state["cached_gaussian"]))


def _python_state():
    version, internal, gauss = _pyrandom.getstate()
    return [version, list(internal), gauss]


def _device_states():
    states = {}
    for name, device in sorted(devices._devices.items()):
        if device._rng is None:
            continue
        try:
            states[name] = device._rng.bit_generator.state
        except AttributeError:
            warnings.warn(f"The random state of device {name} cannot be saved; a run resumed "
                          "from this backup will not repeat its random draws exactly.",
                          stacklevel=4)
            states[name] = None
    return states


def _global_generator_state():
    generator = devices.random_state["global_generator"]
    return None if generator is None else list(generator.get_state())


def _seed_generators(model):
    for path, obj in saving_lib.walk(model):
        for attr, value in sorted(vars(obj).items()):
            if isinstance(value, SeedGenerator):
                yield f"{path}/{attr}" if path else attr, value


def _seed_generator_states(model):
    return {key: list(generator.get_state()) for key, generator in _seed_generators(model)}


def capture_metrics(model):
    """[name, [values of each variable]] for every metric of the model."""
    out = []
    for metric in _metrics(model):
        out.append([metric.name, [np.asarray(v.numpy()).tolist() for v in metric.variables]])
    return out


def restore_metrics(model, saved):
    """Sets the model's metrics (matched by name and variable shapes) to saved values.

    Metrics that do not exist yet (compiled metrics are built on their first
    update) or whose variables differ are left as they are.

    Returns:
        The names of the metrics restored.
    """
    by_name = {name: values for name, values in saved}
    restored = []
    for metric in _metrics(model):
        values = by_name.get(metric.name)
        variables = list(metric.variables)
        if values is None or len(values) != len(variables):
            continue
        arrays = [np.asarray(v) for v in values]
        if any(a.shape != tuple(var.shape) for a, var in zip(arrays, variables)):
            continue
        for variable, array in zip(variables, arrays):
            variable.assign(array)
        restored.append(metric.name)
    return restored


def _metrics(model):
    seen, out = set(), []
    stack = list(getattr(model, "metrics", None) or [])
    while stack:
        metric = stack.pop(0)
        if id(metric) in seen:
            continue
        seen.add(id(metric))
        inner = getattr(metric, "metrics", None)
        if isinstance(inner, (list, tuple)):
            stack = list(inner) + stack
        if hasattr(metric, "variables") and hasattr(metric, "update_state"):
            out.append(metric)
    return out
