"""Shared argument checks and noise shapes for the noise/dropout layers."""


def check_rate(value, name="rate"):
    """Raises Keras's ValueError (its text) unless 0 <= value <= 1."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"Invalid value received for argument `{name}`. Expected a float value "
                         f"between 0 and 1. Received: {name}={value}")

def concrete_noise_shape(shape, noise_shape):
    """`noise_shape` with None entries taken from `shape` (the input's)."""
    if noise_shape is None:
        return tuple(shape)
    return tuple(shape[i] if n is None else n for i, n in enumerate(noise_shape))
