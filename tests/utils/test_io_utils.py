"""kerasish.utils.io_utils: the interactive-logging switches and the logger level, where
Keras keeps them (`keras.src.utils.io_utils`)."""
import logging

import pytest

from kerasish.utils import io_utils


def test_switches_and_verbosity_route_print_msg_to_logging(caplog, capsys):
    logger = logging.getLogger("kerasish")
    level = logger.level
    io_utils.disable_interactive_logging()
    try:
        assert not io_utils.is_interactive_logging_enabled()
        io_utils.set_logging_verbosity("INFO")
        assert logger.level == logging.INFO
        with caplog.at_level(logging.INFO):
            io_utils.print_msg("ReduceLROnPlateau reducing learning rate to 0.01.")
        assert capsys.readouterr().out == ""
        assert "ReduceLROnPlateau reducing learning rate to 0.01." in caplog.messages
        io_utils.set_logging_verbosity("ERROR")
        assert logger.level == logging.ERROR
    finally:
        io_utils.enable_interactive_logging()
        logger.setLevel(level)
    assert io_utils.is_interactive_logging_enabled()
    with pytest.raises(ValueError, match="valid level for logging verbosity.*Received: LOUD"):
        io_utils.set_logging_verbosity("LOUD")
