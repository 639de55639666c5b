"""Fixtures for the kerasish.data tests."""
import faulthandler
import threading
import time

import pytest

TEST_TIMEOUT_S = 60


@pytest.fixture(autouse=True)
def _hang_watchdog():
    """Kills the run, dumping every thread's stack, if a test hangs.

    The data tests start threads and processes; a deadlock must fail CI,
    never stall it.
    """
    faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def _live_threads():
    return {t for t in threading.enumerate() if t.is_alive()}


@pytest.fixture
def no_leaked_threads():
    """Fails the test if it leaves threads running (waits up to 5 s)."""
    before = _live_threads()
    yield
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        leaked = _live_threads() - before
        if not leaked:
            return
        time.sleep(0.01)
    pytest.fail(f"threads left running: {[t.name for t in leaked]}")
