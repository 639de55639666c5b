"""Plumbing of `ParameterServerStrategy`: roles, placement and MPI point-to-point messages.

Every message is a pickled Python tuple sent with mpi4py's `isend` on a
private duplicate of the world communicator, and received by polling
`Iprobe` source by source (so that a dead peer under ULFM shows up as an
error on that peer only). Polling backs off to short sleeps when idle,
which leaves the cores to the workers when several ranks share a machine.
"""
import os
import time

import numpy as np

from kerasish.distribute import mpi_utils

ROLE_VARIABLE = "KERASISH_PS_ROLE"
ROLES = ("chief", "ps", "worker")

TAG_REQUEST = 7401  # chief/worker -> parameter server: pull, push, assign
TAG_REPLY = 7402    # parameter server -> chief/worker
TAG_CONTROL = 7403  # chief -> every other rank: run a closure, end a phase
TAG_RESULT = 7404   # worker -> chief: a closure's result or error


class PeerFailed(Exception):
    """A peer rank died (reported by an MPI with fault tolerance, e.g. Open MPI ULFM).

    Args:
        rank: the dead rank.
    """

    def __init__(self, rank):
        super().__init__(f"rank {rank} failed")
        self.rank = rank


def resolve_roles(comm, num_ps):
    """The role of every rank: from `KERASISH_PS_ROLE`, else from the rank.

    Without the variable, rank 0 is the chief, ranks 1..num_ps the parameter
    servers and the others workers. With it, every rank must set it.

    Args:
        comm: the world communicator.
        num_ps: the number of parameter servers asked for (None: 1, or the
            number of ranks whose role is "ps").

    Returns:
        list of role names, one per rank.

    Raises:
        ValueError: a role name is unknown, only some ranks set the variable,
            there is not exactly one chief, or there is no server or worker.
    """
    mine = os.environ.get(ROLE_VARIABLE, "").strip().lower() or None
    given = comm.allgather(mine) if comm.size > 1 else [mine]
    for rank, role in enumerate(given):  # checked on every rank, so that every rank raises
        if role is not None and role not in ROLES:
            raise ValueError(f"ParameterServerStrategy: {ROLE_VARIABLE}={role!r} on rank "
                             f"{rank}; expected one of {list(ROLES)}.")
    if all(role is None for role in given):
        wanted = 1 if num_ps is None else num_ps
        if comm.size < wanted + 2:
            raise ValueError(
                f"ParameterServerStrategy(num_ps={wanted}) needs at least {wanted + 2} MPI "
                f"processes (1 chief, {wanted} parameter server(s), at least 1 worker); this "
                f"job has {comm.size}. Launch with `mpiexec -n {wanted + 2} python "
                "train.py` (or more processes for more workers).")
        return ["chief"] + ["ps"] * wanted + ["worker"] * (comm.size - wanted - 1)
    missing = [rank for rank, role in enumerate(given) if role is None]
    if missing:
        raise ValueError(f"ParameterServerStrategy: {ROLE_VARIABLE} is set on some ranks but "
                         f"not on rank(s) {missing}; set it on every rank or on none.")
    counts = {role: given.count(role) for role in ROLES}
    if counts["chief"] != 1 or not counts["ps"] or not counts["worker"]:
        raise ValueError(
            f"ParameterServerStrategy: {ROLE_VARIABLE} gives {counts['chief']} chief, "
            f"{counts['ps']} ps and {counts['worker']} worker rank(s) (roles by rank: {given}); "
            "expected exactly 1 chief, at least 1 ps and at least 1 worker.")
    if num_ps is not None and counts["ps"] != num_ps:
        raise ValueError(f"ParameterServerStrategy(num_ps={num_ps}), but {ROLE_VARIABLE} "
                         f"makes {counts['ps']} rank(s) parameter servers: {given}.")
    return given


def place(variables, num_ps, policy):
    """Which parameter server holds each variable (whole variables, in order).

    "size" gives each variable to the server holding the fewest bytes so far
    (ties: the lowest index); "round_robin" deals them out in turn. Either
    way a variable's place depends only on the variables before it, so all
    ranks agree and variables created later never move earlier ones.

    Args:
        variables: the variables in creation order.
        num_ps: the number of servers.
        policy: "size" or "round_robin".

    Returns:
        list of server indices.
    """
    if policy == "round_robin":
        return [k % num_ps for k in range(len(variables))]
    loads = [0] * num_ps
    out = []
    for variable in variables:
        target = min(range(num_ps), key=lambda j: (loads[j], j))
        loads[target] += int(np.dtype(variable._value.dtype).itemsize
                             * max(variable._value.size, 1))
        out.append(target)
    return out


def nbytes(arrays):
    """Bytes of the arrays of a dict or list."""
    items = arrays.values() if isinstance(arrays, dict) else arrays
    return int(sum(getattr(a, "nbytes", 0) for a in items))


class Channel:
    """Point-to-point messages on a private duplicate of the world communicator.

    Args:
        comm: the world communicator (duplicated here).
        guard: the process's `JobGuard` (or None): polls check that no rank left.
    """

    def __init__(self, comm, guard):
        self._MPI = mpi_utils.import_mpi()
        self.comm = comm.Dup()
        self.rank = comm.rank
        self.guard = guard
        self.dead = set()
        self._sends = []

    def send(self, message, dest, tag):
        """Sends without blocking; completed sends are collected on later calls."""
        if dest in self.dead:
            return
        try:
            self._sends.append((dest, self.comm.isend(message, dest=dest, tag=tag)))
        except self._MPI.Exception as error:
            self._failed(error, dest, raise_=False)  # a reply to a dead rank is dropped
        self._collect_sends()

    def _collect_sends(self):
        alive = []
        for dest, request in self._sends:
            try:
                if not request.Test():
                    alive.append((dest, request))
            except self._MPI.Exception as error:
                self._failed(error, dest, raise_=False)
        self._sends = alive

    def flush(self):
        """Waits until every message sent so far has left this process."""
        polls = 0
        while self._sends:
            self._collect_sends()
            polls += 1
            _back_off(polls)

    def poll(self, sources, tag):
        """One look for a message from any of `sources`.

        Returns:
            (source, message), or None when nothing has arrived.

        Raises:
            PeerFailed: a source died (MPI with fault tolerance only).
        """
        for source in sources:
            if source in self.dead:
                continue
            try:
                if self.comm.Iprobe(source=source, tag=tag):
                    return source, self.comm.recv(source=source, tag=tag)
            except self._MPI.Exception as error:
                self._failed(error, source)
        return None

    def receive(self, sources, tag, what, timeout=None):
        """Waits for a message from any of `sources` (see `poll`).

        Args:
            sources: ranks to listen to.
            tag: the message tag.
            what: what this rank waits for (for the job guard's messages).
            timeout: seconds before the job is aborted (None: the guard's
                collective timeout).
        """
        start = time.monotonic()
        limit = timeout if timeout is not None else (self.guard.timeout if self.guard else None)
        polls = 0
        while True:
            found = self.poll(sources, tag)
            if found is not None:
                return found
            polls += 1
            _back_off(polls)
            if polls % 64 == 0:
                self._collect_sends()
                if self.guard is not None:
                    self.guard.check_peers(what)
                if limit is not None and time.monotonic() - start > limit:
                    self.abort(f"{what} did not complete within {limit:g} s "
                               "(KERASISH_COLLECTIVE_TIMEOUT)")

    def abort(self, reason):
        """Ends the whole job with one line naming this rank (the job guard's format)."""
        if self.guard is not None:
            self.guard.abort(reason)
        raise RuntimeError(reason)

    def _failed(self, error, rank, raise_=True):
        if error.Get_error_class() not in _failure_classes(self._MPI):
            raise error
        self.mark_dead(rank)
        if raise_:
            raise PeerFailed(rank) from None

    def mark_dead(self, rank):
        """Stops talking to `rank`; the job guard no longer waits for it at exit."""
        self.dead.add(rank)
        if self.guard is not None:
            self.guard.forgive(rank)


def _failure_classes(MPI):
    return {getattr(MPI, name) for name in ("ERR_PROC_FAILED", "ERR_PROC_FAILED_PENDING",
                                            "ERR_REVOKED") if hasattr(MPI, name)}


def _back_off(polls):
    """Spins for the first polls, then sleeps up to 2 ms (cores are often shared)."""
    if polls > 50:
        time.sleep(min(0.002, 2e-5 * (polls - 50)))


def fault_tolerant():
    """True when the MPI library reports peer failures instead of ending the job.

    That is Open MPI 5 launched with `mpiexec --with-ft ulfm`; MPICH ends
    every rank when one dies.
    """
    MPI = mpi_utils.import_mpi()
    if not _failure_classes(MPI) or "Open MPI" not in MPI.Get_library_version():
        return False
    return os.environ.get("OMPI_MCA_mpi_ft_enable", "").strip().lower() in ("1", "true")
