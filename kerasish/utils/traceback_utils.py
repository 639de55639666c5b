"""Shorter tracebacks for user errors: kerasish's own frames are left out (Keras's
traceback filtering), unless `keras.config.disable_traceback_filtering()` was called."""
import functools
import os
import types

from kerasish.backend import switches

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_internal(frame):
    return os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep)


def filtered(traceback):
    """`traceback` without kerasish's frames (the user's frames are all kept).

    Args:
        traceback: a traceback object.

    Returns:
        a new traceback chain (None when every frame is kerasish's: the error then shows
        only where the user called in).
    """
    frames = []
    node = traceback
    while node is not None:
        if not _is_internal(node.tb_frame):
            frames.append(node)
        node = node.tb_next
    rebuilt = None
    for node in reversed(frames):
        rebuilt = types.TracebackType(rebuilt, node.tb_frame, node.tb_lasti, node.tb_lineno)
    return rebuilt


def filter_traceback(fn):
    """Decorates a public entry point so errors raised below it show the user's frames.

    The error itself (type, message, cause) is unchanged; only kerasish's own frames are
    dropped from its traceback, and only when traceback filtering is enabled.

    Args:
        fn: the function to wrap.

    Returns:
        the wrapped function.
    """
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as error:
            if not switches.is_traceback_filtering_enabled():
                raise
            raise error.with_traceback(filtered(error.__traceback__)) from error.__cause__
    return wrapper
