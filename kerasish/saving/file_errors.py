"""Errors that name the file: unreadable, not HDF5, or damaged.

A load says "permission denied" when the file cannot be opened for that
reason, "not an HDF5 file" when the HDF5 signature is missing, and
"damaged" only when a file with a valid signature fails inside h5py (or
holds text that is not valid UTF-8/JSON).
"""
import contextlib
import io
import json
import os
import traceback

import h5py

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def check_readable(filepath):
    """Raises `PermissionError` naming the file when it cannot be opened for reading."""
    try:
        fd = os.open(filepath, os.O_RDONLY)
    except PermissionError:
        raise PermissionError(
            f"Cannot read {filepath!r}: permission denied (check the file's mode and owner, "
            "and the folders above it).") from None
    os.close(fd)


def has_hdf5_signature(head):
    """True when `head` (the file's first bytes) holds the HDF5 signature.

    HDF5 looks for it at offset 0 and after a user block of 512, 1024, ... bytes.
    """
    offset = 0
    while offset + len(HDF5_SIGNATURE) <= len(head):
        if head[offset:offset + len(HDF5_SIGNATURE)] == HDF5_SIGNATURE:
            return True
        offset = 512 if offset == 0 else offset * 2
    return False


def open_h5(filepath, data=None):
    """Opens an HDF5 file (or the bytes of an archive member) for reading.

    Args:
        filepath: the file (named in errors).
        data: the bytes of `model.weights.h5` inside a `.keras` archive, or None.

    Raises:
        ValueError: not an HDF5 file, or a damaged one (naming `filepath`).
    """
    head = data[:1 << 16] if data is not None else _head(filepath)
    what = "its model.weights.h5 member" if data is not None else "it"
    if not has_hdf5_signature(head):
        raise ValueError(
            f"{filepath!r} is not an HDF5 file ({what} starts with {bytes(head[:8])!r}, not the "
            "HDF5 signature): expected a `.weights.h5`/`.h5` file written by Keras or kerasish.")
    try:
        return h5py.File(io.BytesIO(data) if data is not None else filepath, "r")
    except OSError as e:
        raise ValueError(f"{filepath!r} is a damaged HDF5 file (truncated or corrupted): "
                         f"{e}. Nothing was loaded.") from None


def _head(filepath):
    with open(filepath, "rb") as f:
        return f.read(1 << 16)


@contextlib.contextmanager
def damage_is_named(filepath):
    """Turns errors of h5py on a damaged file into a ValueError naming the file.

    Only errors raised inside h5py (and undecodable text) are converted;
    kerasish's own errors (shape mismatches...) pass unchanged.
    """
    try:
        yield
    except (UnicodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{os.fspath(filepath)!r} is a damaged file: its stored text is not "
                         f"valid ({type(e).__name__}: {e}). Nothing was loaded.") from None
    except (OSError, RuntimeError, KeyError) as e:
        if not _raised_in_h5py(e):
            raise
        raise ValueError(f"{os.fspath(filepath)!r} is a damaged HDF5 file (truncated or "
                         f"corrupted): {type(e).__name__}: {e}. Nothing was loaded.") from None


def _raised_in_h5py(error):
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    parts = frames[-1].filename.replace("\\", "/").split("/")
    return "h5py" in parts[:-1]   # h5py/_hl/group.py, or Cython's h5py/h5g.pyx
