"""Atomic file writes: a crash or a full disk never leaves a half-written file.

Data goes to a temporary file in the destination folder, is fsync'ed, and
is renamed over the destination (rename is atomic within one file system).
Saved files behave like files written with `open(path, "w")`: a new file
gets the mode the umask gives (0666 & ~umask), a replaced file keeps its
mode. A save killed half-way (kill -9, power loss) leaves its temporary
file behind; the next save into the same folder removes such leftovers:
only files named by our temporary pattern, older than the current process
and not belonging to a process that is still running.
"""
import contextlib
import os
import re
import secrets
import stat
import time

_PROCESS_START = time.time()
_PREFIX = ".tmp-kerasish-"
# Ours: ".tmp-kerasish-<pid>-<hex>-<name>"; older kerasish versions used
# tempfile.mkstemp: ".tmp-<8 characters>-<name>".
_OURS = re.compile(r"^\.tmp-kerasish-(?P<pid>\d+)-[0-9a-f]{16}-.+$")
_LEGACY = re.compile(r"^\.tmp-[a-z0-9_]{8}-.+$")


def check_destination(filepath, overwrite=True):
    """Raises clear errors for a missing folder or a refused overwrite."""
    folder = os.path.dirname(os.path.abspath(filepath))
    if not os.path.isdir(folder):
        raise FileNotFoundError(
            f"Cannot save to {filepath!r}: the folder {folder!r} does not exist."
        )
    if os.path.exists(filepath) and not overwrite:
        raise FileExistsError(f"{filepath!r} exists and overwrite=False.")


@contextlib.contextmanager
def atomic_path(filepath, overwrite=True):
    """Yields a temporary path; on success it replaces `filepath` atomically.

    Args:
        filepath: the final destination.
        overwrite: refuse to replace an existing file when False.

    Example:
        >>> with atomic_path("model.weights.h5") as tmp:
        ...     write_file(tmp)
    """
    check_destination(filepath, overwrite)
    folder = os.path.dirname(os.path.abspath(filepath))
    remove_stray_temporaries(folder)
    tmp = _create_temporary(folder, os.path.basename(filepath))
    try:
        yield tmp
        _fsync(tmp)
        _keep_mode(filepath, tmp)
        os.replace(tmp, filepath)
        _fsync_dir(folder)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _create_temporary(folder, name):
    """An empty new file next to the destination, created with mode 0666 & ~umask."""
    while True:
        path = os.path.join(folder, f"{_PREFIX}{os.getpid()}-{secrets.token_hex(8)}-{name}")
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return path


def _keep_mode(filepath, tmp):
    """A replaced file keeps its permission bits."""
    try:
        mode = stat.S_IMODE(os.stat(filepath).st_mode)
    except FileNotFoundError:
        return
    os.chmod(tmp, mode)


def remove_stray_temporaries(folder):
    """Removes temporary files that killed saves left in `folder`.

    Only files matching our temporary-name pattern, last modified before
    this process started, whose writer process (named in the file name) is
    not running, are removed.

    Args:
        folder: the folder about to receive a save.

    Returns:
        The list of removed paths.
    """
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(".tmp-") or not _is_stray(folder, name):
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            os.remove(path)
            removed.append(path)
    return removed


def _is_stray(folder, name):
    ours = _OURS.match(name)
    if ours is None and not _LEGACY.match(name):
        return False
    try:
        if os.stat(os.path.join(folder, name)).st_mtime >= _PROCESS_START:
            return False
    except OSError:
        return False
    return ours is None or not _process_running(int(ours.group("pid")))


def _process_running(pid):
    if pid == os.getpid():  # an earlier process with our pid (the file predates us)
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _fsync(path):
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _fsync_dir(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # some platforms cannot open folders
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
