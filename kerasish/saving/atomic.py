"""Atomic file writes: a crash or a full disk never leaves a half-written file.

Data goes to a temporary file in the destination folder, is fsync'ed, and
is renamed over the destination (rename is atomic within one file system).
"""
import contextlib
import os
import tempfile


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
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix="-" + os.path.basename(filepath), dir=folder)
    os.close(fd)
    try:
        yield tmp
        _fsync(tmp)
        os.replace(tmp, filepath)
        _fsync_dir(folder)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


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
