"""`InterleaveDataset` and `FlatMapDataset`."""
from contextlib import closing

from kerasish.data.autotune import cpu_count, resolve_parallelism
from kerasish.data.background import BackgroundIterator
from kerasish.data.constants import AUTOTUNE, UNKNOWN_CARDINALITY
from kerasish.data.dataset import Dataset
from kerasish.data.ops.base import UnaryDataset, check_positive
from kerasish.data.structure import unpack_call


def _nested_dataset(map_func, element, ctx):
    try:
        dataset = unpack_call(map_func, element)
    except Exception as error:
        if ctx.skip(error):
            return None
        raise
    if not isinstance(dataset, Dataset):
        raise TypeError(f"The function must return a Dataset, got "
                        f"{type(dataset).__name__}.")
    return dataset


class FlatMapDataset(UnaryDataset):
    """Chains the datasets that `map_func` returns for each element.

    Args:
        input_dataset: the upstream dataset.
        map_func: element -> Dataset.
    """

    def __init__(self, input_dataset, map_func):
        super().__init__(input_dataset)
        self._fn = map_func

    def _iterator(self, ctx):
        with closing(self._input._iterator(ctx)) as upstream:
            for element in upstream:
                dataset = _nested_dataset(self._fn, element, ctx)
                if dataset is not None:
                    yield from dataset._iterator(ctx)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _compute_element_spec(self):
        return Dataset._compute_element_spec(self)  # traced on the first element


class InterleaveDataset(UnaryDataset):
    """tf.data's interleave: a cycle of open datasets read block by block.

    The slot whose dataset ends moves the cycle on; the next input element
    opens its dataset in the first empty slot the cycle reaches. With
    `num_parallel_calls`, each open dataset is produced on its own thread
    (buffered `block_length` elements ahead); the output order is the same.

    Args:
        input_dataset: the upstream dataset.
        map_func: element -> Dataset.
        cycle_length: open datasets (None or AUTOTUNE: CPU count).
        block_length: consecutive elements per visit.
        num_parallel_calls: None for sequential, or an int / AUTOTUNE.
    """

    def __init__(self, input_dataset, map_func, cycle_length=None, block_length=1,
                 num_parallel_calls=None):
        super().__init__(input_dataset)
        self._fn = map_func
        self._cycle_length = cpu_count() if cycle_length in (None, AUTOTUNE) \
            else check_positive(cycle_length, "cycle_length")
        self._block_length = check_positive(block_length, "block_length")
        self._parallel = resolve_parallelism(num_parallel_calls) > 1

    def _open(self, element, ctx):
        dataset = _nested_dataset(self._fn, element, ctx)
        if dataset is None:
            return None
        if self._parallel:
            return BackgroundIterator(lambda: dataset._iterator(ctx), self._block_length,
                                      name="kerasish-data-interleave")
        return dataset._iterator(ctx)

    def _iterator(self, ctx):
        slots = [None] * self._cycle_length
        with closing(self._input._iterator(ctx)) as upstream:
            try:
                yield from self._cycle(upstream, slots, ctx)
            finally:
                for slot in slots:
                    if slot is not None:
                        slot.close()

    def _cycle(self, upstream, slots, ctx):
        index = block = 0
        end_of_input, open_count = False, 0
        while not end_of_input or open_count:
            if slots[index] is None:
                if end_of_input:
                    index, block = (index + 1) % len(slots), 0
                    continue
                element = next(upstream, _END)
                if element is _END:
                    end_of_input = True
                    continue
                slots[index] = self._open(element, ctx)
                open_count += slots[index] is not None
                continue
            value = next(slots[index], _END)
            if value is _END:
                slots[index].close()
                slots[index] = None
                open_count -= 1
                index, block = (index + 1) % len(slots), 0
                continue
            yield value
            block += 1
            if block == self._block_length:
                index, block = (index + 1) % len(slots), 0

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _compute_element_spec(self):
        return Dataset._compute_element_spec(self)  # traced on the first element


_END = object()
