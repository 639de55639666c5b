"""Shared fixtures of the applications tests."""
import types

import numpy as np
import pytest


def _zeros(shape, dtype=None, **kwargs):
    # np.zeros is calloc'ed: ConvNeXtXLarge's 350M zeros take no memory until written
    return np.zeros(tuple(shape), dtype or "float32")


@pytest.fixture
def zero_init(monkeypatch):
    """kerasish.random as the initializers see it, with zeros for the normal,
    truncated normal and uniform draws."""
    from kerasish.initializers import random_initializers
    stand_in = types.SimpleNamespace(**vars(random_initializers.random))
    stand_in.normal = stand_in.truncated_normal = stand_in.uniform = _zeros
    monkeypatch.setattr(random_initializers, "random", stand_in)
