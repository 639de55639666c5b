"""`DatasetIterator` and the per-iteration context shared by all ops."""
import _thread
import logging

import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.backend import devices
from kerasish.data import background
from kerasish.utils import tree

_log = logging.getLogger("kerasish.data")


class IterationContext:
    """Settings that flow from a consumer to the ops upstream of it.

    `Dataset.ignore_errors()` iterates its input with `ignore_errors=True`;
    ops that run user code or read files (map, filter, generators, record
    readers, interleave) then drop the element whose production failed
    instead of raising.

    Args:
        ignore_errors: skip failing elements.
        log_warning: log each skipped error at WARNING level.
        seed_draws: iterations a reshuffling `shuffle` counts for this one.
            Keras's fit/evaluate/predict on TensorFlow iterate a dataset
            through a distributed iterator, which makes every shuffle draw
            its per-iteration seeds twice: they pass 2 (the first draw is used).
            0 draws nothing (the peek that infers `element_spec`, which
            tf.data knows without iterating).
    """

    def __init__(self, ignore_errors=False, log_warning=False, seed_draws=1):
        self.ignore_errors = ignore_errors
        self.log_warning = log_warning
        self.seed_draws = seed_draws

    def skip(self, error):
        """Whether `error` is to be swallowed (logging it if asked).

        Args:
            error: the exception raised while producing an element.

        Returns:
            True when errors are ignored and `error` is an `Exception`
            (KeyboardInterrupt and SystemExit always propagate).
        """
        if not (self.ignore_errors and isinstance(error, Exception)):
            return False
        if self.log_warning:
            _log.warning("Ignoring error while producing an element: %r", error)
        return True


def _as_tensor(value):
    """A numpy element as the eager tensor that iterating a tf.data dataset yields
    (bytes and object arrays of bytes as string tensors)."""
    if not isinstance(value, (np.ndarray, np.generic, bytes)):
        return value
    array = np.asarray(value)
    if array.dtype == object:
        kind = _text_kind(array.reshape(-1).tolist())
        if kind is not None:
            array = array.astype(kind)
    device = devices.current_device()
    return Tensor(device.send(array), device)


def _text_kind(items):
    """bytes or str when every item is one (a string tensor), else None. Text ending
    in a NUL stays an object array: numpy's fixed-width text arrays drop them."""
    for kind, nul in ((bytes, b"\0"), (str, "\0")):
        if all(isinstance(v, kind) and not v.endswith(nul) for v in items):
            return kind
    return None


class DatasetIterator:
    """The iterator `iter(dataset)` returns (nested eager tensors, as tf.data's) and
    `as_numpy_iterator()` returns (nested numpy elements).

    Breaking out of a loop is enough to stop it: when the iterator is
    garbage collected, or `close()` is called, or it is used as a context
    manager, every thread and process started for it is stopped and joined.

    Args:
        generator: the generator built by the dataset's ops.
        as_tensors: yield the elements as eager tensors (`iter(dataset)`).

    Example:
        >>> it = iter(Dataset.range(3))
        >>> next(it)
        <tf.Tensor: shape=(), dtype=int64, numpy=0>
        >>> it.close()
    """

    def __init__(self, generator, as_tensors=False):
        self._generator = generator
        self._as_tensors = as_tensors

    def __iter__(self):
        return self

    def __next__(self):
        if self._generator is None:
            raise StopIteration
        element = next(self._generator)
        return tree.map_structure(_as_tensor, element) if self._as_tensors else element

    def get_next(self):
        """Same as `next(iterator)` (tf.data's method name)."""
        return next(self)

    def close(self):
        """Stops the pipeline's threads and processes; safe to call twice."""
        generator, self._generator = self._generator, None
        if generator is not None:
            generator.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        # Python drops exceptions raised in __del__: close without waiting for
        # threads, and hand a Ctrl-C that still lands here back to the main
        # thread once this finalizer has returned.
        try:
            with background.closing_without_waiting():
                self.close()
        except KeyboardInterrupt:
            _redeliver_interrupt_after(self)


def _redeliver_interrupt_after(finalizing):
    """Raises KeyboardInterrupt in the main thread again, after the finalizer ends.

    Raising it from the finalizer itself would drop it again; a helper thread
    re-arms it once the finalizer released the lock (its last action).
    """
    done = _thread.allocate_lock()
    done.acquire()

    def rearm():
        with done:
            _thread.interrupt_main()

    _thread.start_new_thread(rearm, ())
    done.release()
