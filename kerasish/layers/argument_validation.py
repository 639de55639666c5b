"""Keras 3.15.1's `standardize_tuple`: the int-tuple arguments of layers (kernel sizes,
strides, paddings, croppings), with its accepted forms and its error texts."""


def standardize_tuple(value, n, name, allow_zero=False):
    """An int or `n` ints as a tuple of `n` values, checked as Keras checks them.

    Args:
        value: int (repeated `n` times) or sequence of `n` int-like values.
        n: the tuple's length.
        name: the argument's name in the error text.
        allow_zero: accept zeros (negatives are always refused).

    Returns:
        tuple of `n` values (a sequence's items kept as given, as Keras).

    Raises:
        ValueError: Keras's text, when `value` is not such a tuple.

    Example:
        >>> standardize_tuple(3, 2, "kernel_size")
        (3, 3)
    """
    message = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for item in values:
            try:
                int(item)
            except (ValueError, TypeError):
                raise ValueError(f"{message}including element {item} of type "
                                 f"{type(item)}") from None
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        raise ValueError(f"{message}, including values {bad} that do not satisfy "
                         f"`value {'>= 0' if allow_zero else '> 0'}`")
    return values
