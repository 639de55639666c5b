"""Worker pools that apply a function to a stream of elements in parallel.

Threads suit functions that spend their time in numpy (which releases the
GIL); processes suit pure-Python functions that hold it. Results come back
in input order unless `deterministic=False`.

Elements are sent to workers in chunks whose size adapts to the measured
cost of the function: each task aims at `TARGET_TASK_SECONDS` of work, so
cheap functions are not drowned in per-task overhead (futures, locks,
pickling) while expensive ones still spread one element per worker.
"""
import collections
import concurrent.futures as cf
import multiprocessing
import time
import traceback

from kerasish.data import background, structure

TARGET_TASK_SECONDS = 0.002
MAX_CHUNK = 256


class RemoteTraceback(Exception):
    """Carries the formatted traceback of an error raised in a worker process."""

    def __str__(self):
        return self.args[0]


def apply_user_fn(fn, element):
    """Calls `fn` on an element as tf.data does and normalises the output.

    Args:
        fn: the user function.
        element: the input element (a tuple is splatted).

    Returns:
        The normalised output element.
    """
    return structure.normalize_output(structure.unpack_call(fn, element))


def run_chunk(fn, items, in_process=False):
    """Applies `fn` to each item, capturing errors per item.

    Module-level so that process pools can pickle it.

    Args:
        fn: one-argument function.
        items: a list of inputs.
        in_process: running in a worker process: errors carry their
            traceback as text (tracebacks do not pickle).

    Returns:
        (outcomes, seconds): a list of `(True, result)` or
        `(False, error, traceback_text)` and the time spent.
    """
    start, outcomes = time.perf_counter(), []
    for item in items:
        try:
            outcomes.append((True, fn(item)))
        except BaseException as error:  # delivered to the consumer
            text = "".join(traceback.format_exception(error)) if in_process else None
            outcomes.append((False, error, text))
    return outcomes, time.perf_counter() - start


def make_executor(num_workers, use_processes, name):
    """A thread pool, or a process pool using the 'spawn' start method.

    'spawn' is used because forking a process that runs threads (prefetch,
    other pools) can copy held locks and deadlock the child.

    Args:
        num_workers: pool size.
        use_processes: processes instead of threads.
        name: thread-name prefix.

    Returns:
        A `concurrent.futures.Executor`.
    """
    if use_processes:
        return cf.ProcessPoolExecutor(num_workers,
                                      mp_context=multiprocessing.get_context("spawn"))
    return cf.ThreadPoolExecutor(num_workers, thread_name_prefix=name)


class _ChunkSize:
    """Chunk length from the measured seconds per element."""

    def __init__(self):
        self.value = 1

    def update(self, count, seconds):
        per_item = seconds / max(count, 1)
        wanted = TARGET_TASK_SECONDS / per_item if per_item > 0 else MAX_CHUNK
        self.value = int(min(MAX_CHUNK, max(1, wanted)))


def parallel_map(iterator, fn, num_workers, use_processes=False,
                 deterministic=True, name="kerasish-data-map"):
    """Yields the outcome of `fn(item)` for each item, keeping workers busy.

    Up to `2 * num_workers` chunks are in flight. The input iterator is
    advanced on the calling thread. Closing the generator cancels pending
    work and joins the pool.

    Args:
        iterator: input items.
        fn: one-argument function (picklable when `use_processes`).
        num_workers: pool size.
        use_processes: use a process pool.
        deterministic: yield in input order; otherwise chunk by chunk as
            they complete.
        name: thread-name prefix.

    Yields:
        `(True, result)` or `(False, error)` per item; `error` keeps its
        traceback (from a process: chained as a `RemoteTraceback`).
    """
    executor = make_executor(num_workers, use_processes, name)
    pending, chunk = collections.deque(), _ChunkSize()
    try:
        exhausted, input_error = False, None
        while True:
            while not exhausted and len(pending) < 2 * num_workers:
                items, exhausted, input_error = _take(iterator, chunk.value)
                if items:
                    pending.append(executor.submit(run_chunk, fn, items, use_processes))
            if not pending:
                if input_error is not None:
                    raise input_error
                return
            future = pending.popleft() if deterministic else _pop_completed(pending)
            outcomes, seconds = future.result()
            chunk.update(len(outcomes), seconds)
            yield from map(_outcome, outcomes)
    finally:
        for future in pending:
            future.cancel()
        # never block inside a finalizer: a Ctrl-C raised there would be lost
        executor.shutdown(wait=background.may_wait(), cancel_futures=True)


def _take(iterator, count):
    """Up to `count` items; (items, exhausted, error raised by the input)."""
    items = []
    try:
        for _ in range(count):
            items.append(next(iterator))
    except StopIteration:
        return items, True, None
    except Exception as error:  # raised after the items before it
        return items, True, error
    return items, False, None


def _outcome(entry):
    if entry[0]:
        return entry
    _, error, text = entry
    if text is not None:
        error.__cause__ = RemoteTraceback(text)
    return False, error


def _pop_completed(pending):
    done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
    future = next(f for f in pending if f in done)
    pending.remove(future)
    return future
