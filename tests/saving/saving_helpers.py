"""Shared helpers of the saving tests: fixture files and model builders."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _load_fixture_models():
    spec = importlib.util.spec_from_file_location("fixture_models",
                                                  FIXTURES / "fixture_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fm = _load_fixture_models()


def missing_layers(name):
    """The layer classes model `name` needs that kerasish does not have yet."""
    return [cls for cls in fm.NEEDS[name] if not hasattr(keras.layers, cls)]


def build(name):
    """Builds fixture model `name` with kerasish (skips if a layer is missing)."""
    missing = missing_layers(name)
    if missing:
        pytest.skip(f"kerasish has no {missing} yet")
    return fm.BUILDERS[name](keras)


def expected(folder):
    """The `expected_outputs.npz` arrays of a fixture folder, as a dict."""
    with np.load(FIXTURES / folder / "expected_outputs.npz") as data:
        return {k: data[k] for k in data.files}


def entries(values, name, prefix):
    """`name/<prefix>0`, `name/<prefix>1`, ... from an expected-outputs dict."""
    out, i = [], 0
    while f"{name}/{prefix}{i}" in values:
        out.append(values[f"{name}/{prefix}{i}"])
        i += 1
    return out


def single(items):
    """One array, or the list for multi-input/output models."""
    return items[0] if len(items) == 1 else items


def assert_outputs(model, name, want, atol=1e-5):
    """Predictions on the fixed inputs of `name` match `want` (a list of arrays)."""
    got = fm.as_list(model.predict(fm.make_inputs(name), verbose=0))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=atol, rtol=0)
