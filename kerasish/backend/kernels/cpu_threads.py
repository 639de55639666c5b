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


class Pipeline:
    """Pieces of work done in order on one CPU worker thread while the caller goes on.

    A sequential loop (a recurrent layer's steps) hands the work that does not
    lie on its critical path (projecting the next block of inputs, the input
    gradient of the steps already done) to a worker thread piece by piece,
    and waits for a piece only where it needs the result. A caller that waits
    for a piece the worker has not started yet runs it itself (and `close`
    runs the pieces still queued), so a worker descheduled on a busy machine
    never holds the loop up by more than the piece it is running. While the
    pipeline is open BLAS runs single-threaded in every thread (the loop's own
    small products included), so the two threads never wait on BLAS threads
    that another job has descheduled. Each piece must touch memory the caller
    does not touch until it has waited for that piece.

    Args:
        run: callable called as `run(*piece)` on the worker thread (or the
            caller's, for a piece it takes over).

    Example:
        >>> out = []
        >>> with Pipeline(out.append) as pipe:
        ...     pipe.put(1)
        ...     pipe.put(2)
        ...     pipe.wait(2)
        >>> sorted(out)
        [1, 2]
    """

    _END = object()

    def __init__(self, run):
        self._run, self._pieces, self._finished = run, [], []
        self._started = self._done = 0  # pieces taken by a thread; the done prefix
        self._error = None
        self._cond = threading.Condition()
        _enter_single_blas()
        try:
            self._future = _pool(max(2, _state["pool_size"])).submit(self._work)
        except BaseException:
            _exit_single_blas()
            raise

    def _take(self, limit):
        """The next piece not yet started (index, piece) if its index is below
        `limit`, else None; call with the condition held."""
        index = self._started
        if index >= min(limit, len(self._pieces)) or self._pieces[index] is self._END:
            return None
        self._started += 1
        return index, self._pieces[index]

    def _do(self, index, piece):
        if self._error is None:
            try:
                self._run(*piece)
            except BaseException as error:  # handed to the caller by wait / close
                self._error = error
        with self._cond:
            self._finished[index] = True
            while self._done < len(self._finished) and self._finished[self._done]:
                self._done += 1
            self._cond.notify_all()

    def _work(self):
        while True:
            with self._cond:
                while self._started >= len(self._pieces):
                    self._cond.wait()
                if self._pieces[self._started] is self._END:
                    return
                taken = self._take(len(self._pieces))
            self._do(*taken)

    def put(self, *piece):
        """Queues one piece (the arguments of one `run` call)."""
        with self._cond:
            self._pieces.append(piece)
            self._finished.append(False)
            self._cond.notify_all()

    def wait(self, count):
        """Blocks until the first `count` pieces are done, running those the worker
        has not started; raises a piece's error."""
        while True:
            with self._cond:
                if self._done >= count:
                    break
                taken = self._take(count)
                if taken is None:
                    self._cond.wait()
                    continue
            self._do(*taken)
        if self._error is not None:
            raise self._error

    def close(self):
        """Waits for every queued piece (running those not started) and the worker;
        restores BLAS's threads."""
        try:
            try:
                self.wait(len(self._pieces))
            finally:
                with self._cond:
                    self._pieces.append(self._END)
                    self._finished.append(True)
                    self._cond.notify_all()
                self._future.result()
        finally:
            _exit_single_blas()
        if self._error is not None:
            raise self._error

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
