"""Shared timing helpers for the benchmarks: warm-up, median of repeats, 2 threads.

    from common import limit_threads, median_time, markdown_table

`limit_threads()` must run before numpy/torch are imported to pin BLAS
pools to two threads (the CI machines have two cores); it also calls
`torch.set_num_threads(2)` when torch is installed.
"""
import os
import statistics
import time

THREADS = 2


def limit_threads(n=THREADS):
    """Pins BLAS/OpenMP thread pools (and torch's, when installed) to `n` threads.

    Args:
        n: number of threads.

    Returns:
        the torch module, or None when torch is not installed.
    """
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(n))
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(n)
    return torch


def median_time(fn, number=100, repeats=7, warmup=1, setup=None):
    """Median seconds per call of `fn()` over `repeats` runs of `number` calls.

    Args:
        fn: the callable to time.
        number: calls per run.
        repeats: runs; the median run is reported.
        warmup: untimed runs first (caches, allocator, lazy imports).
        setup: optional callable run (untimed) before each run; its result is
            passed to `fn` when it is not None.

    Returns:
        float: seconds per call.

    Example:
        >>> median_time(lambda: sum(range(100)), number=1000)
    """
    def run():
        arg = setup() if setup is not None else None
        call = fn if arg is None else (lambda: fn(arg))
        start = time.perf_counter()
        for _ in range(number):
            call()
        return (time.perf_counter() - start) / number

    for _ in range(warmup):
        run()
    return statistics.median(run() for _ in range(repeats))


def markdown_table(headers, rows):
    """A markdown table from a header list and rows of cells (floats get 2 decimals).

    Example:
        >>> print(markdown_table(["case", "us"], [["add", 1.234]]))
    """
    def cell(v):
        return f"{v:.2f}" if isinstance(v, float) else str(v)
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
