"""AUTOTUNE rules."""
import pytest

from kerasish.data import AUTOTUNE
from kerasish.data import autotune


def test_resolve_parallelism():
    assert autotune.resolve_parallelism(None) == 1
    assert autotune.resolve_parallelism(3) == 3
    assert autotune.resolve_parallelism(AUTOTUNE) == autotune.cpu_count() >= 1
    with pytest.raises(ValueError):
        autotune.resolve_parallelism(0)


def test_buffer_size_grows_only_under_autotune():
    tuned = autotune.BufferSize(AUTOTUNE)
    assert tuned.limit == 1
    for _ in range(20):
        tuned.on_consumer_wait()
    assert tuned.limit == autotune.MAX_AUTOTUNE_BUFFER and tuned.stalls == 20
    fixed = autotune.BufferSize(4)
    fixed.on_consumer_wait()
    assert fixed.limit == 4
    with pytest.raises(ValueError):
        autotune.BufferSize(-3)
