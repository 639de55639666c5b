"""Running independent pieces of CPU work on several threads.

numpy releases the GIL inside copies, ufuncs and BLAS calls, so Python
threads that each work on their own slice of an array run in parallel. A
kernel that splits its work into cache-sized pieces (the convolutions) gets
more from one thread per piece with single-threaded BLAS than from
multi-threaded BLAS on each piece: BLAS threads synchronise at every call,
and on a busy machine a descheduled BLAS thread stalls its partner (measured
on the MNIST convnet's second conv, 2 cores at load 3.8: 252 ms with 2 BLAS
threads per piece against 41-59 ms with 2 Python threads of 1 BLAS thread).

The number of threads is the BLAS library's own thread count (so
`OPENBLAS_NUM_THREADS=1`, or threadpoolctl's limits, make everything serial).
"""
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

try:
    from threadpoolctl import ThreadpoolController
except ImportError:  # a dependency of kerasish; without it work runs on one thread
    ThreadpoolController = None

_lock = threading.Lock()
_CPUS = os.cpu_count() or 1
_state = {"controller": None, "pool": None, "pool_size": 0, "inside": 0, "saved": None}


def _blas():
    """The threadpoolctl controller of the loaded BLAS libraries (made once)."""
    if _state["controller"] is None:
        _state["controller"] = ThreadpoolController().select(user_api="blas")
    return _state["controller"]


def worker_count():
    """How many threads CPU kernels split their work over.

    Returns:
        int: the BLAS thread count (1 without threadpoolctl), at most the CPU count.
    """
    if ThreadpoolController is None:
        return 1
    if _state["inside"]:  # already inside a parallel region: its threads are taken
        return 1
    counts = [lib.num_threads for lib in _blas().lib_controllers]
    return max(1, min(max(counts, default=1), _CPUS))


def _enter_single_blas():
    with _lock:
        if _state["inside"] == 0:
            _state["saved"] = [lib.num_threads for lib in _blas().lib_controllers]
            for lib in _blas().lib_controllers:  # until the last thread leaves
                lib.set_num_threads(1)
        _state["inside"] += 1


def _exit_single_blas():
    with _lock:
        _state["inside"] -= 1
        if _state["inside"] == 0:
            for lib, count in zip(_blas().lib_controllers, _state["saved"]):
                lib.set_num_threads(count)


def _pool(workers):
    """The shared thread pool, grown (replaced) when more workers are asked for."""
    if _state["pool_size"] < workers:
        _state["pool"] = ThreadPoolExecutor(workers, thread_name_prefix="kerasish-cpu")
        _state["pool_size"] = workers
    return _state["pool"]


def run_split(run, pieces):
    """Calls `run(*piece)` for every piece, spread over the CPU worker threads.

    Each thread starts with a piece of its own, then takes the next piece not
    yet taken (so a thread the OS deschedules on a busy machine holds up at
    most one piece, where a fixed split would leave its share undone).
    BLAS runs single-threaded meanwhile. Each piece must touch memory no
    other piece writes.

    Args:
        run: callable taking one piece's arguments.
        pieces: list of argument tuples.

    Returns:
        list: the results, in the order of `pieces`.

    Example:
        >>> run_split(lambda a, b: a + b, [(1, 2), (3, 4)])
        [3, 7]
    """
    workers = min(worker_count(), len(pieces))
    if workers <= 1:
        return [run(*piece) for piece in pieces]
    results = [None] * len(pieces)
    taken = itertools.count(workers)   # next() is atomic under the GIL

    def work(first):
        index = first
        while index < len(pieces):
            results[index] = run(*pieces[index])
            index = next(taken)

    _enter_single_blas()
    futures = []
    try:
        futures = [_pool(workers).submit(work, k) for k in range(1, workers)]
        work(0)
        for future in futures:
            future.result()
    finally:
        wait(futures)  # an exception leaves no thread running on the caller's arrays
        _exit_single_blas()
    return results
