"""Splitting CPU work over threads: results in order, BLAS threads restored."""
import threading

import numpy as np
import pytest

from kerasish.backend.kernels import cpu_threads

threadpoolctl = pytest.importorskip("threadpoolctl", reason="threadpoolctl is not installed")


@pytest.fixture
def two_blas_threads():
    controller = threadpoolctl.ThreadpoolController()
    with controller.limit(limits=2, user_api="blas"):
        yield


def _blas_threads():
    return [lib.num_threads for lib in cpu_threads._blas().lib_controllers]


def test_results_come_back_in_piece_order(two_blas_threads):
    pieces = [(i, i + 1) for i in range(7)]
    assert cpu_threads.run_split(lambda a, b: a * 10 + b, pieces) == [a * 10 + b for a, b in pieces]


def test_pieces_run_on_several_threads_with_single_threaded_blas(two_blas_threads):
    if cpu_threads.worker_count() < 2:
        pytest.skip("one CPU: nothing to split over")
    seen = []

    def run(i):
        seen.append((threading.get_ident(), tuple(_blas_threads())))
        return i

    cpu_threads.run_split(run, [(i,) for i in range(4)])
    assert len({ident for ident, _ in seen}) == 2
    assert all(set(counts) == {1} for _, counts in seen)
    assert set(_blas_threads()) == {2}            # restored afterwards


def test_an_exception_propagates_and_restores_blas(two_blas_threads):
    def run(i):
        if i == 3:
            raise ValueError("piece 3 failed")
        return i

    with pytest.raises(ValueError, match="piece 3 failed"):
        cpu_threads.run_split(run, [(i,) for i in range(4)])
    assert set(_blas_threads()) == {2}
    assert cpu_threads._state["inside"] == 0


def test_nested_calls_run_serially_inside_a_parallel_region(two_blas_threads):
    inner_counts = []

    def run(i):
        inner_counts.append(cpu_threads.worker_count())
        return cpu_threads.run_split(lambda j: i + j, [(0,), (1,)])

    assert cpu_threads.run_split(run, [(0,), (10,)]) == [[0, 1], [10, 11]]
    if cpu_threads.worker_count() > 1:
        assert inner_counts == [1, 1]


def test_threaded_work_gives_the_serial_numbers(two_blas_threads):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 40)), rng.standard_normal((40, 8))
    parts = cpu_threads.run_split(lambda s, e: a[s:e] @ b, [(i, i + 8) for i in range(0, 64, 8)])
    np.testing.assert_array_equal(np.concatenate(parts), np.concatenate(
        [a[i:i + 8] @ b for i in range(0, 64, 8)]))


def test_a_held_up_thread_leaves_the_other_pieces_to_the_others(two_blas_threads):
    """Pieces are handed out as threads come free: while piece 0 waits for every
    other piece to finish, the other thread runs them all (a fixed split would
    have given piece 1 to the waiting thread and never finished)."""
    if cpu_threads.worker_count() < 2:
        pytest.skip("one CPU: nothing to split over")
    others_done = threading.Event()
    done = []

    def run(i):
        if i == 0:
            assert others_done.wait(timeout=30), "the other pieces never ran"
        else:
            done.append(i)
            if len(done) == 5:
                others_done.set()
        return i

    assert cpu_threads.run_split(run, [(i,) for i in range(6)]) == list(range(6))


def test_pipeline_caller_runs_the_pieces_a_held_up_worker_has_not_started(two_blas_threads):
    """The worker is held up in piece 0: waiting for the first three pieces runs
    pieces 1 and 2 on the caller's thread; every piece runs exactly once."""
    release = threading.Event()
    ran = []

    def run(i):
        ran.append((i, threading.get_ident()))
        if i == 0:
            assert release.wait(timeout=30), "never released"

    pipe = cpu_threads.Pipeline(run)
    pipe.put(0)
    while not ran:          # the worker has taken piece 0
        threading.Event().wait(0.001)
    for i in range(1, 3):
        pipe.put(i)
    # wait(3) runs pieces 1 and 2 here, then waits for piece 0 (released by the timer)
    threading.Timer(0.2, release.set).start()
    pipe.wait(3)
    me = threading.get_ident()
    assert {i for i, ident in ran if ident == me} == {1, 2}
    pipe.put(4)
    pipe.close()
    assert sorted(i for i, _ in ran) == [0, 1, 2, 4]
    assert set(_blas_threads()) == {2} and cpu_threads._state["inside"] == 0


def test_pipeline_error_reaches_the_caller_and_restores_blas(two_blas_threads):
    def run(i):
        if i == 1:
            raise ValueError("piece 1 failed")

    pipe = cpu_threads.Pipeline(run)
    for i in range(4):
        pipe.put(i)
    with pytest.raises(ValueError, match="piece 1 failed"):
        pipe.close()
    assert set(_blas_threads()) == {2} and cpu_threads._state["inside"] == 0
