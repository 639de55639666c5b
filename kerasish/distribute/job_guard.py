"""Failure semantics of a multi-worker job: one rank ends, the whole job ends.

A synchronous job cannot go on once one worker is gone, and MPI alone does
not notice: the others wait in their next collective forever. The
`JobGuard` (one per process, installed by `MultiWorkerMirroredStrategy` in
a world of several ranks) turns every way a rank can end into a prompt,
non-zero end of the whole job with one line naming the rank and the cause:

- an uncaught exception (`sys.excepthook`) or a handled signal (SIGTERM,
  SIGHUP): the rank prints the line and calls `MPI_Abort`;
- `sys.exit(...)`, or the script returning on one rank only: an `atexit`
  handler sends a *leaving* notice to every other rank (on a private
  duplicate of the world communicator) and waits for theirs; a rank that
  is waiting in a collective, or enters one, when such a notice arrives
  aborts the job naming the rank that left;
- `os._exit(code)` (which skips `atexit`): wrapped while the guard is
  installed, in this process only (forked children are untouched): a
  non-zero code aborts the job, `os._exit(0)` leaves like `sys.exit(0)`;
- a rank that stalls (stopped, deadlocked, busy elsewhere): every
  collective is non-blocking and polled with a deadline of
  `KERASISH_COLLECTIVE_TIMEOUT` seconds (default 300; 0 disables), after
  which the waiting rank aborts the job;
- `kill -9`: nothing can run in the killed process; the MPI launcher
  (`mpiexec`) ends the other ranks and reports the rank and signal.
"""
import atexit
import os
import signal
import sys
import threading
import time
import traceback

from kerasish.distribute import mpi_utils

DEFAULT_TIMEOUT = 300.0
_LEAVING_TAG = 7301
_GRACE = 2.0  # seconds a collective may still finish after its peer left
# mpiexec forwards each rank's stderr through a pipe and stops reading it once
# MPI_Abort tears the job down: the line we print must reach it first.
_DRAIN = 0.5

_guard = []


def collective_timeout():
    """Seconds a rank may wait in one collective (`KERASISH_COLLECTIVE_TIMEOUT`).

    Returns:
        float, or None when the variable is 0 or "none" (wait forever).

    Raises:
        ValueError: the variable is not a number.
    """
    raw = os.environ.get("KERASISH_COLLECTIVE_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    if raw.lower() in ("none", "inf", "0"):
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"KERASISH_COLLECTIVE_TIMEOUT must be a number of seconds (0 or "
                         f"'none' to wait forever); got {raw!r}.") from None
    return value if value > 0 else None


def install(comm):
    """The process's `JobGuard` for `comm`, installed on first call.

    Args:
        comm: the world communicator (several ranks).

    Returns:
        JobGuard.
    """
    if not _guard:
        guard = JobGuard(comm)
        guard.install()
        _guard.append(guard)
    return _guard[0]


def current():
    """The installed `JobGuard`, or None."""
    return _guard[0] if _guard else None


class JobGuard:
    """Watches one rank's collectives and exit paths (see the module doc).

    Args:
        comm: the world communicator; a duplicate carries the leaving notices.
    """

    def __init__(self, comm):
        self.comm = comm
        self.rank, self.size = comm.rank, comm.size
        self.timeout = collective_timeout()
        self._MPI = mpi_utils.import_mpi()
        self._pid = os.getpid()
        self._left = {}
        self._gone = set()  # ranks that died under an MPI that survives it (ULFM)
        self._exit_code = None
        self._finished = False
        self._lock = threading.RLock()
        self.wait(comm.Ibarrier(), "start-up (every rank creating MultiWorkerMirroredStrategy)")
        self._control = comm.Dup()

    # Installing ---------------------------------------------------------------------
    def install(self):
        """Hooks uncaught exceptions, exit, `os._exit` and SIGTERM/SIGHUP."""
        sys.excepthook = self._excepthook
        atexit.register(self.leave, "exited (sys.exit or the end of its script)")
        real_exit = self._real_os_exit = os._exit
        real_sys_exit = sys.exit

        def guarded_exit(code=0):
            if os.getpid() == self._pid:
                self._os_exit(int(code))
            real_exit(code)

        def recording_sys_exit(code=None):
            self._exit_code = code  # for the survivors of a death (see `leave`)
            real_sys_exit(code)

        os._exit = guarded_exit
        sys.exit = recording_sys_exit
        for signum in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(signum) in (signal.SIG_DFL, None) and \
                    threading.current_thread() is threading.main_thread():
                signal.signal(signum, self._on_signal)

    def forgive(self, rank):
        """Stops waiting for `rank`, which died and was survived (Open MPI ULFM).

        Args:
            rank: the dead rank; it sends no leaving notice and is not waited for.
        """
        self._gone.add(rank)

    # Ending the job -------------------------------------------------------------------
    def abort(self, reason, code=1):
        """Prints one line naming this rank and `reason`, then ends every rank.

        Args:
            reason: why the job ends.
            code: the exit code asked of MPI_Abort (non-zero).
        """
        try:
            sys.stdout.flush()
            sys.stderr.write(f"[kerasish] rank {self.rank} of {self.size}: {reason}; "
                             "aborting all ranks (MPI_Abort).\n")
            sys.stderr.flush()
            time.sleep(_DRAIN)
        finally:
            self.comm.Abort(code or 1)

    def _excepthook(self, exc_type, exc, tb):
        traceback.print_exception(exc_type, exc, tb, file=sys.stderr)
        message = str(exc).splitlines()[0] if str(exc) else ""
        self.abort(f"uncaught {exc_type.__name__}" + (f": {message}" if message else ""))

    def _on_signal(self, signum, frame):
        self.abort(f"received {signal.Signals(signum).name}", code=128 + signum)

    def _os_exit(self, code):
        if self._finished:
            return
        if code != 0:
            self.abort(f"os._exit({code}) called")
        self.leave("called os._exit(0)")
        try:
            self._MPI.Finalize()
        except Exception:  # pragma: no cover - exiting anyway
            pass

    def leave(self, why):
        """Tells every other rank that this one ends; waits until all have said so.

        Args:
            why: how this rank ends (shown by a rank that was still waiting for it).
        """
        with self._lock:
            if self._finished or self._MPI.Is_finalized():
                return
            self._finished = True
        sends = [self._control.isend(why, dest=peer, tag=_LEAVING_TAG)
                 for peer in range(self.size) if peer != self.rank and peer not in self._gone]
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while len(set(self._left) | self._gone) < self.size - 1:
            self._receive_notices()
            if deadline is not None and time.monotonic() > deadline:
                waiting = [r for r in range(self.size) if r != self.rank and r not in self._left
                           and r not in self._gone]
                self.abort(f"ended, but rank(s) {waiting} did not end within "
                           f"{self.timeout:g} s (KERASISH_COLLECTIVE_TIMEOUT)")
            time.sleep(0.01)
        self._MPI.Request.Waitall(sends)
        if self._gone:
            self._end_without_finalize()

    def _end_without_finalize(self):
        """Ends a process that survived a dead rank, skipping `MPI_Finalize`.

        Open MPI 5's `MPI_Finalize` sometimes waits forever for a rank that
        died (about one run in four here), so the survivors flush their
        output and leave with the script's exit code instead.
        """
        code = getattr(self, "_exit_code", None)
        code = 0 if code is None else code if isinstance(code, int) else 1
        if "logging" in sys.modules:
            sys.modules["logging"].shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        self._real_os_exit(code)

    # Collectives ------------------------------------------------------------------------
    def check_peers(self, what):
        """Aborts when another rank already left: `what` (a collective) would never end."""
        self._receive_notices()
        if self._left:
            rank, why = next(iter(self._left.items()))
            self.abort(f"rank {rank} {why} while this rank still needs it for {what}")

    def wait(self, request, what):
        """Polls a non-blocking MPI request until it completes.

        Aborts the job when another rank leaves first or the deadline passes.

        Args:
            request: an mpi4py `Request` (from `Iallreduce`, `Ibcast`, `Ibarrier`).
            what: the collective's name, for the message.
        """
        start = time.monotonic()
        polls = 0
        while not request.Test():
            polls += 1
            if polls < 200:
                continue
            time.sleep(min(0.005, 1e-5 * polls))
            if polls % 16 == 0:
                self._peer_left_during(request, what)
            if self.timeout is not None and time.monotonic() - start > self.timeout:
                self.abort(f"{what} did not complete within {self.timeout:g} s "
                           "(KERASISH_COLLECTIVE_TIMEOUT): another rank stalled or never "
                           "reached it")

    def _peer_left_during(self, request, what):
        self._receive_notices()
        if not self._left:
            return
        grace = time.monotonic() + _GRACE
        while time.monotonic() < grace:
            if request.Test():
                return
            time.sleep(0.001)
        rank, why = next(iter(self._left.items()))
        self.abort(f"rank {rank} {why} while this rank waited for it in {what}")

    def _receive_notices(self):
        if not hasattr(self, "_control"):
            return
        if self._gone:  # ULFM: ask the live ranks one by one (ANY_SOURCE fails after a death)
            for source in range(self.size):
                if source != self.rank and source not in self._gone and source not in self._left \
                        and self._control.Iprobe(source=source, tag=_LEAVING_TAG):
                    self._left[source] = self._control.recv(source=source, tag=_LEAVING_TAG)
            return
        status = self._MPI.Status()
        try:
            while self._control.Iprobe(source=self._MPI.ANY_SOURCE, tag=_LEAVING_TAG,
                                       status=status):
                source = status.Get_source()
                self._left[source] = self._control.recv(source=source, tag=_LEAVING_TAG)
        except self._MPI.Exception as error:
            if not self._learn_failures(error):
                raise

    def _learn_failures(self, error):
        """ULFM: forgives the ranks MPI reports dead; False for any other error."""
        failure = {getattr(self._MPI, n, None) for n in ("ERR_PROC_FAILED",
                                                         "ERR_PROC_FAILED_PENDING")}
        if error.Get_error_class() not in failure:
            return False
        self._control.Ack_failed()
        failed = self._control.Get_failed()
        ranks = self._MPI.Group.Translate_ranks(failed, list(range(failed.size)),
                                                self._control.Get_group())
        self._gone.update(int(r) for r in ranks)
        return True
