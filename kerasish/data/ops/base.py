"""`UnaryDataset`: base of transformations with one input dataset."""
from kerasish.data.dataset import Dataset


class UnaryDataset(Dataset):
    """A dataset derived from `input_dataset`; by default it keeps the
    input's cardinality and element spec.

    Args:
        input_dataset: the upstream `Dataset`.
    """

    # True for ops whose output elements are input elements (shuffle, take,
    # prefetch, ...): spec inference then peeks upstream, which avoids, for
    # example, filling a shuffle buffer just to look at one element.
    _passes_elements_through = False

    def __init__(self, input_dataset):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a Dataset, got {type(input_dataset).__name__}.")
        self._input = input_dataset

    def _cardinality(self):
        return self._input.cardinality()

    def _compute_element_spec(self):
        return self._input.element_spec

    def _peek_element(self):
        if self._passes_elements_through:
            return self._input._peek_element()
        return super()._peek_element()


def check_positive(value, what):
    """Returns `int(value)`, raising ValueError unless it is positive."""
    if int(value) < 1:
        raise ValueError(f"{what} must be positive, got {value}.")
    return int(value)
