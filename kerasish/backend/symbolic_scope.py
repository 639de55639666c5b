"""`keras.SymbolicScope`: marks code that runs on symbolic tensors (shape inference).

kerasish enters it wherever Keras does: while a layer's or op's output spec is
found by running it on KerasTensors (Keras's `compute_output_spec`), e.g.
when a functional model is built. Model and layer code can ask
`in_symbolic_scope()` to tell that stage from a real call.
"""
import threading

_local = threading.local()


class SymbolicScope:
    """Inside it, `in_symbolic_scope()` is True (Keras uses it while inferring shapes).

    Scopes nest; `get_symbolic_scope()` is the innermost one.

    Example:
        >>> with keras.SymbolicScope():
        ...     keras.backend.in_symbolic_scope()
        True
    """

    def __enter__(self):
        self.original_scope = get_symbolic_scope()
        _local.scope = self
        return self

    def __exit__(self, *exc):
        _local.scope = self.original_scope
        return False


def in_symbolic_scope():
    """True inside a `SymbolicScope`.

    Example:
        >>> keras.backend.in_symbolic_scope()
        False
    """
    return getattr(_local, "scope", None) is not None


def get_symbolic_scope():
    """The innermost active `SymbolicScope`, or None."""
    return getattr(_local, "scope", None)
