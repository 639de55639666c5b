"""`keras.ops.rearrange`: einops-style axis reordering, splitting and merging.

The pattern is read as Keras 3.15.1 reads it (`keras/src/ops/einops.py`): the
input side names every axis, a parenthesised group on the input side splits
that axis (all but one inner length given as keyword arguments, the last
unknown one inferred), and a group on the output side merges axes. The
result is one reshape (when the input is split), one transpose and one
reshape, so it differentiates through those ops.
"""
import math
import re

from kerasish.ops import manipulation
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.symbolic import keras_op

_AXES = re.compile(r"\w+|\(.*?\)")
_GROUP = re.compile(r"\(([\w\s]*)\)")


def _groups(side):
    """'b (h w) c' -> [['b'], ['h', 'w'], ['c']]."""
    groups = []
    for token in _AXES.findall(side):
        grouped = _GROUP.fullmatch(token)
        groups.append(grouped.group(1).split() if grouped else [token])
    return groups


def _split_pattern(pattern):
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError("rearrange: `pattern` must be a string with one '->' "
                         f"(e.g. 'b h w c -> b c h w'), got {pattern!r}")
    left, right = re.split(r"\s*->\s*", pattern.strip())
    return _groups(left), _groups(right)


def _axis_lengths(groups, shape, axes_lengths, pattern):
    """{axis name: length} for every input axis, inferring one unknown per group."""
    if len(groups) != len(shape):
        raise ValueError(f"rearrange: pattern {pattern!r} names {len(groups)} input axes, "
                         f"but the tensor has rank {len(shape)} (shape {tuple(shape)})")
    lengths = {}
    for group, size in zip(groups, shape):
        if len(group) == 1 and group[0] not in axes_lengths:
            lengths[group[0]] = size
            continue
        unknown = [a for a in group if a not in axes_lengths]
        if len(unknown) > 1:
            raise ValueError(f"rearrange: in pattern {pattern!r}, the group {group} has more "
                             f"than one length not given ({unknown}); pass all but one of "
                             "them as keyword arguments")
        known = math.prod(int(axes_lengths[a]) for a in group if a in axes_lengths)
        for axis in group:
            inferred = None if size is None else size // known
            lengths[axis] = inferred if axis in unknown else int(axes_lengths[axis])
    return lengths


@keras_op
def rearrange(tensor, pattern, **axes_lengths):
    """Rearranges the axes of a tensor with an einops-style pattern.

    Args:
        tensor: the input tensor.
        pattern: `"input axes -> output axes"`; a parenthesised group splits an
            input axis or merges output axes, e.g. `"b (h h1) w c -> b h w (c h1)"`.
        **axes_lengths: lengths of the split axes (all but one per group).

    Returns:
        the rearranged tensor.

    Example:
        >>> images = ops.zeros((32, 30, 40, 3))
        >>> ops.rearrange(images, "b h w c -> b c h w").shape
        (32, 3, 30, 40)
        >>> ops.rearrange(images, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2).shape
        (32, 15, 20, 12)
    """
    tensor = convert_to_tensor(tensor)
    inputs, outputs = _split_pattern(pattern)
    lengths = _axis_lengths(inputs, tensor.shape, dict(axes_lengths), pattern)
    flat_in = [a for group in inputs for a in group]
    flat_out = [a for group in outputs for a in group]
    if sorted(flat_in) != sorted(flat_out):
        raise ValueError(f"rearrange: the two sides of {pattern!r} must name the same axes; "
                         f"input {flat_in}, output {flat_out}")
    split_shape = tuple(lengths[a] for a in flat_in)
    if split_shape != tuple(tensor.shape):
        tensor = manipulation.reshape(tensor, _newshape(split_shape, pattern))
    tensor = manipulation.transpose(tensor, [flat_in.index(a) for a in flat_out])
    return manipulation.reshape(
        tensor, _newshape([_product(lengths[a] for a in group) for group in outputs], pattern))


def _product(sizes):
    """Product of axis lengths; None (an unknown symbolic size) when one is None."""
    sizes = list(sizes)
    return None if None in sizes else math.prod(sizes)


def _newshape(shape, pattern):
    """A reshape target: one unknown (symbolic) size becomes -1."""
    if list(shape).count(None) > 1:
        raise ValueError(f"rearrange: pattern {pattern!r} leaves more than one output size "
                         f"unknown ({tuple(shape)}); give the input a known shape")
    return tuple(-1 if size is None else size for size in shape)
