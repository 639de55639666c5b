"""`HDF5Dataset`: rows of HDF5 datasets, read in chunks, never all at once."""
import contextlib
import os

from kerasish.data import structure
from kerasish.data.dataset import Dataset
from kerasish.data.tensor_spec import TensorSpec

DEFAULT_READ_ROWS = 1024


class HDF5Dataset(Dataset):
    """Streams aligned rows of one or more datasets of an HDF5 file.

    Rows are read in slabs (a multiple of the HDF5 chunk size, about
    `DEFAULT_READ_ROWS` rows) so that arrays larger than memory can be
    iterated. The file is opened for each iteration and closed when it ends.

    Args:
        path: the .h5 file.
        keys: one dataset name (elements are arrays), a tuple of names
            (elements are tuples) or a dict output-name -> dataset name.
        batch_size: yield batches of this many rows instead of single rows.
        drop_remainder: drop a last, smaller batch.

    Example:
        >>> import h5py
        >>> with h5py.File("/tmp/demo.h5", "w") as f:
        ...     f["x"] = np.zeros((10, 3)); f["y"] = np.arange(10)
        >>> ds = HDF5Dataset("/tmp/demo.h5", ("x", "y"), batch_size=4)
        >>> [len(y) for x, y in ds]
        [4, 4, 2]
    """

    def __init__(self, path, keys, batch_size=None, drop_remainder=False):
        self._path = os.fspath(path)
        self._keys = tuple(keys) if isinstance(keys, list) else keys
        self._batch_size = None if batch_size is None else int(batch_size)
        self._drop_remainder = bool(drop_remainder)
        self._rows, self._specs = self._inspect()

    def _open(self):
        import h5py  # imported lazily: only HDF5 users need it
        with self._named_errors():
            return h5py.File(self._path, "r")

    @contextlib.contextmanager
    def _named_errors(self):
        """h5py's errors on a damaged file become a ValueError naming the file."""
        try:
            yield
        except (FileNotFoundError, PermissionError):
            raise
        except KeyError as error:
            if "doesn't exist" in str(error):
                raise KeyError(f"{self._path!r} has no dataset {self._keys!r}: {error}") from None
            raise ValueError(f"{self._path!r} is a damaged HDF5 file: {error}") from None
        except (OSError, RuntimeError) as error:
            raise ValueError(f"{self._path!r} is a damaged file or not an HDF5 file: "
                             f"{error}") from None

    def _inspect(self):
        with self._open() as file, self._named_errors():
            datasets = structure.map_structure(lambda k: file[k], self._keys)
            flat = structure.flatten(datasets)
            rows = {d.shape[0] if d.ndim else None for d in flat}
            if len(rows) != 1 or None in rows:
                raise ValueError(f"HDF5 datasets {structure.flatten(self._keys)} must "
                                 f"be arrays with the same number of rows, got "
                                 f"{[d.shape for d in flat]}.")
            specs = structure.map_structure(
                lambda d: TensorSpec(d.shape[1:], d.dtype), datasets)
        return rows.pop(), specs

    def _read_rows(self, flat):
        chunk = max((d.chunks[0] if d.chunks else 1) for d in flat)
        step = self._batch_size or max(chunk, DEFAULT_READ_ROWS // chunk * chunk)
        stop = self._rows
        if self._batch_size and self._drop_remainder:
            stop -= self._rows % self._batch_size
        for start in range(0, stop, step):
            yield [d[start:min(start + step, stop)] for d in flat]

    def _iterator(self, ctx):
        with self._open() as file, self._named_errors():
            flat = [file[k] for k in structure.flatten(self._keys)]
            for slab in self._read_rows(flat):
                if self._batch_size:
                    yield structure.pack_as(self._keys, slab)
                    continue
                for i in range(len(slab[0])):
                    yield structure.pack_as(self._keys, [a[i] for a in slab])

    def _cardinality(self):
        if not self._batch_size:
            return self._rows
        if self._drop_remainder:
            return self._rows // self._batch_size
        return -(-self._rows // self._batch_size)

    def _compute_element_spec(self):
        if not self._batch_size:
            return self._specs
        size = self._batch_size if self._drop_remainder else None
        return structure.map_structure(lambda s: s.with_batch_dim(size), self._specs)
