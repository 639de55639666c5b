"""Keras's auto-naming: `Dense` -> "dense", "dense_1", ... (process-global)."""
import collections
import re

_uids = collections.defaultdict(int)


def to_snake_case(name):
    """`MaxPooling2D` -> "max_pooling2d", `ReLU` -> "re_lu" (Keras's rule)."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name)
    return name.lower()


def uniquify(base):
    """Returns `base` the first time, then `base_1`, `base_2`, ..."""
    count = _uids[base]
    _uids[base] += 1
    return base if count == 0 else f"{base}_{count}"


def auto_name(class_name):
    """A fresh unique snake-case name for an object of class `class_name`."""
    return uniquify(to_snake_case(class_name))


def reset_uids():
    """Forgets every name handed out (used by `clear_session`)."""
    _uids.clear()


def get_uid(prefix=""):
    """A counter per `prefix` shared with layer auto-naming: 1, 2, ... (`keras.backend.get_uid`).

    Args:
        prefix: the name whose counter to advance.

    Returns:
        int: the counter after the increment.

    Example:
        >>> keras.backend.get_uid("block")
        1
    """
    _uids[prefix] += 1
    return _uids[prefix]
