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


# Keras keeps the interactive-logging switches in `keras.src.utils.io_utils` too.
enable_interactive_logging = switches.enable_interactive_logging
disable_interactive_logging = switches.disable_interactive_logging
is_interactive_logging_enabled = switches.is_interactive_logging_enabled

_LEVELS = {"FATAL": logging.FATAL, "ERROR": logging.ERROR, "WARNING": logging.WARNING,
           "WARN": logging.WARNING, "INFO": logging.INFO, "DEBUG": logging.DEBUG}


def set_logging_verbosity(level):
    """Sets the level of the "kerasish" logger (where messages go when
    interactive logging is disabled).

    Args:
        level: "FATAL", "ERROR", "WARNING" (or "WARN"), "INFO" or "DEBUG".

    Example:
        >>> set_logging_verbosity("INFO")
    """
    verbosity = _LEVELS.get(level)
    if verbosity is None:
        raise ValueError("Please pass a valid level for logging verbosity. Expected one of: "
                         f"{set(_LEVELS)}. Received: {level}")
    logger.setLevel(verbosity)
