"""The `padding`/`cropping` arguments of the ZeroPadding and Cropping layers, parsed as
Keras 3.15.1 parses them (same accepted forms, same error texts)."""
from kerasish.layers.argument_validation import standardize_tuple

_ORDINALS = ("1st", "2nd", "3rd")

# Keras's "either an int, ..." sentences: by rank for 2D, by (argument, rank) for 3D
_SHAPES = {
    2: ("a tuple of 2 ints (symmetric_height_crop, symmetric_width_crop), or a tuple of 2 "
        "tuples of 2 ints ((top_crop, bottom_crop), (left_crop, right_crop))"),
    ("padding", 3): ("a tuple of 3 ints (symmetric_dim1_pad, symmetric_dim2_pad, "
                     "symmetric_dim3_pad), or a tuple of 3 tuples of 2 ints ((left_dim1_pad, "
                     "right_dim1_pad), (left_dim2_pad, right_dim2_pad), (left_dim3_pad, "
                     "right_dim2_pad))"),
    ("cropping", 3): ("a tuple of 3 ints (symmetric_dim1_crop, symmetric_dim2_crop, "
                      "symmetric_dim3_crop), or a tuple of 3 tuples of 2 ints ((left_dim1_crop, "
                      "right_dim1_crop), (left_dim2_crop, right_dim2_crop), (left_dim3_crop, "
                      "right_dim2_crop))"),
}


def int_pair(value, name):
    """An int or 2 non-negative ints as a pair (Keras's `standardize_tuple(value, 2, name,
    allow_zero=True)`).

    Example:
        >>> int_pair(3, "padding")
        (3, 3)
    """
    return standardize_tuple(value, 2, name, allow_zero=True)


def spatial_pairs(value, rank, name):
    """`padding`/`cropping` of a 2D or 3D layer as `rank` (before, after) pairs.

    Args:
        value: an int, or `rank` entries each an int or a pair of ints.
        rank: 2 or 3 spatial axes.
        name: "padding" or "cropping".

    Returns:
        tuple of `rank` pairs.

    Raises:
        ValueError: with Keras's texts (a negative int cropping, a wrong number of
            entries, a bad entry, neither an int nor a sequence).

    Example:
        >>> spatial_pairs(((1, 0), 2), 2, "padding")
        ((1, 0), (2, 2))
    """
    if isinstance(value, int):
        if name == "cropping" and value < 0:
            raise ValueError(f"`cropping` cannot be negative. Received: cropping={value}.")
        return ((value, value),) * rank
    if hasattr(value, "__len__"):
        if len(value) != rank:
            count = "two" if rank == 2 else "3"
            received = f"{name}={value}" if rank == 2 else f"{value}"
            raise ValueError(f"`{name}` should have {count} elements. Received: {received}.")
        return tuple(int_pair(value[i], f"{_ORDINALS[i]} entry of {name}")
                     for i in range(rank))
    shapes = _SHAPES[2] if rank == 2 else _SHAPES[(name, 3)]  # 2D: "crop" words for both
    received = f"{value}" if (name, rank) == ("cropping", 3) else f"{name}={value}"
    raise ValueError(f"`{name}` should be either an int, {shapes}. Received: {received}.")
