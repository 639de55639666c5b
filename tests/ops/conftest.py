"""Per-test state for the ops tests.

Overrides the top-level `_fresh_state` fixture: the same fresh auto-names and
numpy seed, without `gc.collect()` (these tests build no layers, and a full
collection per test would dominate the run time of hundreds of small tests).
"""
import numpy as np
import pytest

from kerasish.utils import naming


@pytest.fixture(autouse=True)
def _fresh_state():
    naming.reset_uids()
    np.random.seed(0)
    yield
