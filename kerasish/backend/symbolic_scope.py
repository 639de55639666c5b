"""`keras.SymbolicScope`: marks code that runs on symbolic tensors (shape inference)."""
import threading

_local = threading.local()


class SymbolicScope:
    """Inside it, `in_symbolic_scope()` is True (Keras uses it while inferring shapes).

    Example:
        >>> with keras.SymbolicScope():
        ...     keras.backend.symbolic_scope.in_symbolic_scope()
        True
    """

    def __enter__(self):
        _local.depth = getattr(_local, "depth", 0) + 1
        return self

    def __exit__(self, *exc):
        _local.depth -= 1
        return False


def in_symbolic_scope():
    """True inside a `SymbolicScope`."""
    return getattr(_local, "depth", 0) > 0
