"""How `AUTOTUNE` picks parallelism and buffer sizes.

The rules are deliberately simple:

* Parallelism (`num_parallel_calls=AUTOTUNE`, `cycle_length=None`) is the
  number of CPUs this process may run on. Worker threads only help when the
  function releases the GIL (numpy does for most array work); for pure
  Python functions use `map(..., use_processes=True)`.
* Buffers (`prefetch(AUTOTUNE)`) start at one element and double, up to
  `MAX_AUTOTUNE_BUFFER`, each time the consumer finds the buffer empty and
  has to wait: a measured stall means the producer needs more slack.
"""
import os

from kerasish.data.constants import AUTOTUNE

MAX_AUTOTUNE_BUFFER = 64


def cpu_count():
    """CPUs available to this process (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_parallelism(num_parallel_calls):
    """Turns a `num_parallel_calls` argument into a worker count.

    Args:
        num_parallel_calls: None (sequential), a positive int, or AUTOTUNE.

    Returns:
        The number of workers; 1 means run inline with no threads.

    Example:
        >>> resolve_parallelism(None)
        1
    """
    if num_parallel_calls is None:
        return 1
    if num_parallel_calls == AUTOTUNE:
        return cpu_count()
    if int(num_parallel_calls) < 1:
        raise ValueError(f"num_parallel_calls must be positive or AUTOTUNE, "
                         f"got {num_parallel_calls}.")
    return int(num_parallel_calls)


class BufferSize:
    """A buffer limit, fixed or grown on consumer stalls under AUTOTUNE.

    Args:
        requested: a positive int, 0 (no buffering is rounded up to 1), or
            AUTOTUNE.

    Example:
        >>> size = BufferSize(AUTOTUNE)
        >>> size.limit, (size.on_consumer_wait(), size.limit)[1]
        (1, 2)
    """

    def __init__(self, requested):
        if requested != AUTOTUNE and int(requested) < 0:
            raise ValueError(f"buffer_size must be >= 0 or AUTOTUNE, got {requested}.")
        self.autotune = requested == AUTOTUNE
        self.limit = 1 if self.autotune else max(1, int(requested))
        self.stalls = 0

    def on_consumer_wait(self):
        """Records a stall; under AUTOTUNE doubles the limit (capped)."""
        self.stalls += 1
        if self.autotune:
            self.limit = min(MAX_AUTOTUNE_BUFFER, self.limit * 2)
