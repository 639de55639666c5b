"""The current distribution strategy and the hooks layers call into it.

The default strategy places everything on the current device and does
nothing when variables are created. Strategies entered with
`strategy.scope()` push themselves here.
"""
import threading

_local = threading.local()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def current_strategy():
    """The strategy of the innermost `scope()`, or None for the default."""
    stack = _stack()
    return stack[-1] if stack else None


def push(strategy):
    _stack().append(strategy)


def pop(strategy):
    stack = _stack()
    if not stack or stack[-1] is not strategy:
        raise RuntimeError("Strategy scopes must be exited in the order they were entered.")
    stack.pop()


def on_variable_created(variable):
    """Lets the active strategy (if any) mirror a freshly created variable."""
    strategy = current_strategy()
    if strategy is not None:
        strategy._on_variable_created(variable)
