"""`MapDataset` (inline, thread or process workers) and `FilterDataset`."""
import functools
import pickle
from contextlib import closing

import numpy as np

from kerasish.data import workers
from kerasish.data.autotune import resolve_parallelism
from kerasish.data.constants import UNKNOWN_CARDINALITY
from kerasish.data.dataset import Dataset
from kerasish.data.ops.base import UnaryDataset
from kerasish.data.structure import unpack_call


class MapDataset(UnaryDataset):
    """Applies a function to every element.

    Args:
        input_dataset: the upstream dataset.
        map_func: the function (a tuple element is splatted).
        num_parallel_calls: None, a positive int, or AUTOTUNE.
        deterministic: None/True keeps input order.
        use_processes: use spawned processes instead of threads.
    """

    def __init__(self, input_dataset, map_func, num_parallel_calls=None,
                 deterministic=None, use_processes=False):
        super().__init__(input_dataset)
        if not callable(map_func):
            raise TypeError("map_func must be callable.")
        self._fn = map_func
        self._workers = resolve_parallelism(num_parallel_calls)
        self._deterministic = deterministic is None or bool(deterministic)
        self._use_processes = bool(use_processes)
        if self._use_processes:
            _check_picklable(map_func)

    def _iterator(self, ctx):
        if self._workers == 1 and not self._use_processes:
            return self._inline(ctx)
        return self._parallel(ctx)

    def _inline(self, ctx):
        with closing(self._input._iterator(ctx)) as upstream:
            for element in upstream:
                try:
                    result = workers.apply_user_fn(self._fn, element)
                except Exception as error:
                    if ctx.skip(error):
                        continue
                    raise
                yield result

    def _parallel(self, ctx):
        fn = functools.partial(workers.apply_user_fn, self._fn)
        with closing(self._input._iterator(ctx)) as upstream:
            outcomes = workers.parallel_map(upstream, fn, self._workers,
                                            self._use_processes, self._deterministic)
            with closing(outcomes):
                for ok, value in outcomes:
                    if ok:
                        yield value
                    elif not ctx.skip(value):
                        raise value

    def _compute_element_spec(self):
        return Dataset._compute_element_spec(self)  # traced on one element

    def _peek_element(self):
        return workers.apply_user_fn(self._fn, self._input._peek_element())


def _check_picklable(fn):
    try:
        pickle.dumps(fn)
    except Exception as error:
        raise TypeError(f"map(..., use_processes=True) sends map_func to worker "
                        f"processes, so it must be picklable (a module-level "
                        f"function, not a lambda or closure): {error}") from None


class FilterDataset(UnaryDataset):
    """Keeps elements whose predicate is True.

    Args:
        input_dataset: the upstream dataset.
        predicate: function returning a scalar bool.
    """

    _passes_elements_through = True

    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        if not callable(predicate):
            raise TypeError("predicate must be callable.")
        self._predicate = predicate

    def _iterator(self, ctx):
        with closing(self._input._iterator(ctx)) as upstream:
            for element in upstream:
                try:
                    keep = _as_bool(unpack_call(self._predicate, element))
                except Exception as error:
                    if ctx.skip(error):
                        continue
                    raise
                if keep:
                    yield element

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


def _as_bool(value):
    array = np.asarray(value)
    if array.shape != () or array.dtype != np.bool_:
        raise ValueError(f"filter predicate must return a scalar bool, got "
                         f"dtype {array.dtype} and shape {array.shape}.")
    return bool(array)

