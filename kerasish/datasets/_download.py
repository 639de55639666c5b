"""Helpers shared by the dataset loaders: where a data file comes from, and
reading `.npz` / pickle files without letting them run code.

Keras reads its dataset files with `np.load(..., allow_pickle=True)`; here
numeric arrays are read with pickling off and the object arrays that ragged
data (IMDB) needs, like CIFAR's pickled batches, are rebuilt by an unpickler
that only knows the few functions an array needs, so a tampered file cannot
execute anything.
"""
import codecs
import io
import os
import pickle
import zipfile
import zlib

import numpy as np

from kerasish.utils.file_utils import get_file

try:
    from numpy._core.multiarray import _reconstruct
except ImportError:  # numpy < 2
    from numpy.core.multiarray import _reconstruct

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"

# Rebuilding a numpy array needs these three globals, in numpy >= 2 or < 2
# spelling; `_codecs.encode` (a pure function) is how Python 3 writes bytes in
# pickle protocol 2. Anything else (`os.system`, `builtins.eval`, ...) is refused.
_ALLOWED_GLOBALS = {
    ("_codecs", "encode"): codecs.encode,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
}


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that can rebuild numpy arrays and plain Python data only."""

    def find_class(self, module, name):
        """Returns an allowed numpy global, refuses every other one.

        Args:
            module: module name written in the pickle.
            name: attribute name written in the pickle.

        Returns:
            The allowed object.

        Example:
            >>> RestrictedUnpickler(f).find_class("os", "system")
            Traceback (most recent call last):
            pickle.UnpicklingError: Refusing to deserialize `os.system` ...
        """
        if (module, name) in _ALLOWED_GLOBALS:
            return _ALLOWED_GLOBALS[(module, name)]
        raise pickle.UnpicklingError(
            f"Refusing to deserialize `{module}.{name}` while loading a dataset: "
            "only numpy arrays are allowed. The file may be corrupted or malicious.")


def resolve_path(path, origin, file_hash, loader, **get_file_kwargs):
    """Returns a local file to read: `path` itself if it exists, else the cache.

    Args:
        path: an existing file (absolute, or relative to the working folder),
            which is read as is; or a bare cache name such as `"mnist.npz"`,
            fetched by `get_file` from `origin` into `~/.keras/datasets/`.
        origin: URL to download from when `path` is a cache name.
        file_hash: expected hash of the download.
        loader: name of the calling loader, for error messages.
        **get_file_kwargs: passed on to `get_file`.

    Returns:
        str: path of a local file.

    Example:
        >>> resolve_path("mnist.npz", ORIGIN_FOLDER + "mnist.npz", None, "mnist")
        '/home/me/.keras/datasets/mnist.npz'
    """
    path = os.fspath(path)
    local = os.path.expanduser(path)
    if os.path.isfile(local):
        return local
    if os.sep in path or "/" in path or os.path.isdir(local):
        raise FileNotFoundError(
            f"{loader}: `path` {path!r} is not an existing file. Pass the path of "
            "an existing data file, or a bare cache name (no folder) to download "
            "into the Keras cache.")
    return get_file(fname=path, origin=origin, file_hash=file_hash, **get_file_kwargs)


def load_npz(path):
    """Reads every array of an `.npz` file, object arrays included, safely.

    Args:
        path: path of the `.npz` file.

    Returns:
        dict mapping each array name to its numpy array.

    Example:
        >>> sorted(load_npz("mnist.npz"))
        ['x_test', 'x_train', 'y_test', 'y_train']
    """
    arrays = {}
    try:
        with np.load(path, allow_pickle=False) as f:
            for key in f.files:
                try:
                    arrays[key] = f[key]
                except ValueError:
                    arrays[key] = _load_object_member(path, key)
    except (EOFError, OSError, ValueError, NotImplementedError, zipfile.BadZipFile,
            zlib.error) as error:  # zipfile raises NotImplementedError on garbled headers
        if isinstance(error, (FileNotFoundError, PermissionError)):
            raise
        raise ValueError(f"{os.fspath(path)!r} is not a readable .npz file (damaged, truncated "
                         f"or another format): {type(error).__name__}: {error}") from None
    return arrays


def _load_object_member(path, key):
    with zipfile.ZipFile(path) as archive:
        with archive.open(key + ".npy") as raw:
            buffer = io.BytesIO(raw.read())
    version = np.lib.format.read_magic(buffer)
    if version == (1, 0):
        _, _, dtype = np.lib.format.read_array_header_1_0(buffer)
    else:
        _, _, dtype = np.lib.format.read_array_header_2_0(buffer)
    if not dtype.hasobject:
        raise ValueError(f"Could not read array {key!r} of {path!r}.")
    array = RestrictedUnpickler(buffer).load()
    if not isinstance(array, np.ndarray):
        raise ValueError(f"Array {key!r} of {path!r} does not hold a numpy array.")
    return array


def load_pickle(path):
    """Reads a pickle of Python data and numpy arrays (keys decoded from bytes).

    Args:
        path: path of the pickle file (e.g. a CIFAR batch).

    Returns:
        The unpickled object; a dict's bytes keys are decoded as utf-8.

    Example:
        >>> sorted(load_pickle("cifar-10-batches-py/test_batch"))
        ['batch_label', 'data', 'filenames', 'labels']
    """
    with open(path, "rb") as f:
        obj = RestrictedUnpickler(f, encoding="bytes").load()
    if isinstance(obj, dict):
        obj = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in obj.items()}
    return obj


def require_keys(arrays, keys, path, loader, layout):
    """Raises a clear error when a data file lacks some of `keys`.

    Args:
        arrays: dict of arrays read from the file.
        keys: the names the loader needs.
        path: the file, for the message.
        loader: name of the calling loader, for the message.
        layout: words describing the expected layout.

    Returns:
        None.

    Example:
        >>> require_keys({"x_train": x}, ["x_train", "y_train"], "a.npz",
        ...              "mnist.load_data", "Keras's mnist.npz layout")
        Traceback (most recent call last):
        KeyError: "mnist.load_data: 'a.npz' lacks ['y_train'] ..."
    """
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise KeyError(
            f"{loader}: {path!r} lacks {missing} (expected {layout}: "
            f"{list(keys)}); it has {sorted(arrays)}.")
