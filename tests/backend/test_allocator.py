"""glibc malloc tuning at import (kerasish/backend/allocator.py)."""
import sys

import pytest

from kerasish.backend import allocator


def test_opt_outs_leave_malloc_alone():
    assert allocator.tune_malloc({"KERASISH_MALLOC_TUNING": "0"}) is False
    assert allocator.tune_malloc({"MALLOC_TRIM_THRESHOLD_": "1"}) is False
    assert allocator.tune_malloc({"MALLOC_MMAP_THRESHOLD_": "1"}) is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_glibc_accepts_the_thresholds():
    import ctypes
    try:
        ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        pytest.skip("not glibc")
    assert allocator.tune_malloc({}) is True
