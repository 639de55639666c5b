"""Global switches of `keras.config` beyond the numeric settings: training caps, logging,
traceback filtering, flash attention. One dict holds them; `kerasish.config` exposes them."""
_state = {
    "max_epochs": None,
    "max_steps_per_epoch": None,
    "interactive_logging": True,
    "traceback_filtering": True,
    "flash_attention": None,  # None: each attention op decides
}


def _positive_or_none(name, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"keras.config.set_{name}: expected a positive int or None, "
                         f"received {name}={value!r}.")
    return value


def set_max_epochs(max_epochs):
    """Caps the number of epochs any `fit` runs (None removes the cap).

    Args:
        max_epochs: a positive int, or None.

    Example:
        >>> keras.config.set_max_epochs(1)   # a quick smoke run of a long script
    """
    _state["max_epochs"] = _positive_or_none("max_epochs", max_epochs)


def max_epochs():
    """The cap on `fit`'s epochs set by `set_max_epochs` (None: no cap)."""
    return _state["max_epochs"]


def set_max_steps_per_epoch(max_steps_per_epoch):
    """Caps the number of steps of every epoch of `fit` (None removes the cap).

    Args:
        max_steps_per_epoch: a positive int, or None.

    Example:
        >>> keras.config.set_max_steps_per_epoch(10)
    """
    _state["max_steps_per_epoch"] = _positive_or_none("max_steps_per_epoch",
                                                      max_steps_per_epoch)


def max_steps_per_epoch():
    """The cap on steps per epoch set by `set_max_steps_per_epoch` (None: no cap)."""
    return _state["max_steps_per_epoch"]


def enable_interactive_logging():
    """Progress bars and summaries print to stdout (the default)."""
    _state["interactive_logging"] = True


def disable_interactive_logging():
    """Progress bars and summaries go to Python's `logging` (logger "kerasish", INFO)."""
    _state["interactive_logging"] = False


def is_interactive_logging_enabled():
    """True when messages print to stdout; False when they go to `logging`."""
    return _state["interactive_logging"]


def enable_traceback_filtering():
    """Errors raised inside kerasish show the user's frames, not kerasish's (the default)."""
    _state["traceback_filtering"] = True


def disable_traceback_filtering():
    """Errors show every frame, kerasish's own included (for debugging kerasish)."""
    _state["traceback_filtering"] = False


def is_traceback_filtering_enabled():
    """True when kerasish's own frames are left out of tracebacks."""
    return _state["traceback_filtering"]


def enable_flash_attention():
    """Asks `ops.dot_product_attention` for its fused (flash) path where it can run."""
    _state["flash_attention"] = True


def disable_flash_attention():
    """Keeps `ops.dot_product_attention` on its plain path."""
    _state["flash_attention"] = False


def is_flash_attention_enabled():
    """True/False when set with enable/disable_flash_attention; None (the default) lets
    each call decide."""
    return _state["flash_attention"]
