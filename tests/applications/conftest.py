"""Shared fixtures of the applications tests."""
import types

import pytest

import kerasish as keras


def _zeros(shape, dtype=None, **kwargs):
    return keras.ops.zeros(shape, dtype=dtype)


@pytest.fixture
def zero_init(monkeypatch):
    """kerasish.random as the initializers see it, with zeros for the normal,
    truncated normal and uniform draws."""
    from kerasish.initializers import random_initializers
    stand_in = types.SimpleNamespace(**vars(random_initializers.random))
    stand_in.normal = stand_in.truncated_normal = stand_in.uniform = _zeros
    monkeypatch.setattr(random_initializers, "random", stand_in)
