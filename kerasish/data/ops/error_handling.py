"""`IgnoreErrorsDataset`."""
from kerasish.data.constants import UNKNOWN_CARDINALITY
from kerasish.data.iterator import IterationContext
from kerasish.data.ops.base import UnaryDataset


class IgnoreErrorsDataset(UnaryDataset):
    """Iterates its input with errors ignored (see `IterationContext`).

    Every op upstream that runs user code or reads records drops the element
    whose production raised an `Exception`. Unlike tf.data, a batch in
    between keeps its other elements (the failed one is simply missing).

    Args:
        input_dataset: the upstream dataset.
        log_warning: log each ignored error.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, log_warning=False):
        super().__init__(input_dataset)
        self._log_warning = bool(log_warning)

    def _iterator(self, ctx):
        return self._input._iterator(IterationContext(True, self._log_warning, ctx.seed_draws))

    def _cardinality(self):
        return UNKNOWN_CARDINALITY
