"""`ZipDataset` and `ConcatenateDataset`."""
from kerasish.data import structure
from kerasish.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.dataset import Dataset


class ZipDataset(Dataset):
    """Elements are the nested structure of the zipped datasets' elements.

    Args:
        datasets: a (nested) tuple or dict of datasets.
    """

    def __init__(self, datasets):
        self._datasets = datasets
        flat = structure.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError("Dataset.zip expects datasets, or a tuple/dict of them.")
        self._flat = flat

    def _iterator(self, ctx):
        iterators = [d._iterator(ctx) for d in self._flat]
        try:
            while True:
                values = []
                for iterator in iterators:
                    value = next(iterator, _STOP)
                    if value is _STOP:
                        return
                    values.append(value)
                yield structure.pack_as(self._datasets, values)
        finally:
            for iterator in iterators:
                iterator.close()

    def _cardinality(self):
        sizes = [d.cardinality() for d in self._flat]
        if UNKNOWN_CARDINALITY in sizes:
            return UNKNOWN_CARDINALITY
        finite = [n for n in sizes if n != INFINITE_CARDINALITY]
        return min(finite) if finite else INFINITE_CARDINALITY

    def _compute_element_spec(self):
        return structure.map_structure(lambda d: d.element_spec, self._datasets)


_STOP = object()


class ConcatenateDataset(Dataset):
    """The elements of `first`, then those of `second`.

    Args:
        first: a `Dataset`.
        second: a `Dataset` with a compatible element structure.
    """

    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"concatenate expects a Dataset, got {type(second).__name__}.")
        self._first, self._second = first, second

    def _iterator(self, ctx):
        yield from self._first._iterator(ctx)
        yield from self._second._iterator(ctx)

    def _cardinality(self):
        a, b = self._first.cardinality(), self._second.cardinality()
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (a, b):
            return UNKNOWN_CARDINALITY
        return a + b

    def _compute_element_spec(self):
        first, second = self._first.element_spec, self._second.element_spec
        structure.assert_same_structure(first, second)
        return structure.map_structure(lambda a, b: a.most_specific_common(b),
                                       first, second)
