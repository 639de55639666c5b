"""Where kerasish's user-facing messages go: stdout, or `logging` when interactive logging
is disabled (`keras.config.disable_interactive_logging()`), as in Keras."""
import logging
import sys

from kerasish.backend import switches

logger = logging.getLogger("kerasish")


def print_msg(message, line_break=True):
    """Prints `message` to stdout, or logs it at INFO level when interactive logging is off.

    Args:
        message: the text.
        line_break: end with a newline (stdout only).

    Example:
        >>> print_msg("Epoch 1/3")
        Epoch 1/3
    """
    if switches.is_interactive_logging_enabled():
        sys.stdout.write(message + ("\n" if line_break else ""))
        sys.stdout.flush()
    else:
        logger.info(message)
