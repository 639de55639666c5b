"""Merge: the base of layers that combine a list of same-shaped tensors."""
from kerasish import ops
from kerasish.layers.layer import Layer


class Merge(Layer):
    """Combines a list of tensors elementwise (with broadcasting); subclasses set `_merge`."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or not input_shape or \
                not isinstance(input_shape[0], (list, tuple)):
            raise ValueError(
                f"A merge layer should be called on a list of inputs. Received: "
                f"input_shape={input_shape} (not a list of shapes)"
            )
        if len(input_shape) < 1:
            raise ValueError("A merge layer should be called on a list of at least 1 input.")
        shapes = [tuple(s[1:]) for s in input_shape]
        for s in shapes[1:]:
            if not _broadcastable(shapes[0], s):
                raise ValueError(
                    f"Inputs have incompatible shapes. Received shapes {shapes[0]} and {s}"
                )

    def call(self, inputs):
        result = inputs[0]
        for x in inputs[1:]:
            result = self._merge(result, x)
        return result

    def _merge(self, a, b):
        raise NotImplementedError

    def compute_output_shape(self, input_shape):
        out = list(input_shape[0])
        for shape in input_shape[1:]:
            for i in range(1, len(out)):
                # as Keras: an unknown size stays unknown, even against 1
                if out[i] is None or shape[i] is None:
                    out[i] = None
                elif out[i] == 1:
                    out[i] = shape[i]
        return tuple(out)

    def compute_mask(self, inputs, previous_mask=None):
        # Keras 3.15.1: a step is kept when any input keeps it (an OR of the masks), and
        # an unmasked input gives no mask at all
        if previous_mask is None:
            return None
        check_mask_list(inputs, previous_mask)
        if any(m is None for m in previous_mask):
            return None
        output_mask = previous_mask[0]
        for m in previous_mask[1:]:
            output_mask = ops.logical_or(output_mask, m)
        return output_mask


def merge_or_masks(op, inputs):
    """Keras's `_apply_merge_op_and_or_mask` (Maximum, Minimum): `op` over the inputs
    where a masked step of one input takes the other's value, and the output is
    masked where every input is (the OR of the masks; none if an input has none).

    Args:
        op: binary elementwise op.
        inputs: the list of tensors (their `_keras_mask` read as Keras does).

    Returns:
        The merged tensor, its `_keras_mask` set when all inputs are masked.
    """
    output = output_mask = None
    for x in inputs:
        mask = getattr(x, "_keras_mask", None)
        if mask is not None:
            mask = ops.broadcast_to(ops.expand_dims(mask, -1), ops.shape(x))
        if output is None:
            output, output_mask = x, mask
            continue
        if mask is not None:
            x = ops.where(mask, x, output)
        if output_mask is not None:
            output = ops.where(output_mask, output, x)
        output_mask = ops.logical_or(output_mask, mask) \
            if mask is not None and output_mask is not None else None
        output = op(output, x)
    if output_mask is not None:
        output._keras_mask = ops.any(output_mask, axis=-1, keepdims=False)
    return output


def check_mask_list(inputs, mask):
    """Keras's checks of a merge layer's `compute_mask` arguments.

    Args:
        inputs: the layer's list of inputs.
        mask: the list of their masks (None where unmasked).
    """
    if not isinstance(mask, (tuple, list)):
        raise ValueError(f"`mask` should be a list. Received: mask={mask}")
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
        raise ValueError(
            "The lists `inputs` and `mask` should have the same length. "
            f"Received: inputs={inputs} of length {len(inputs)}, and "
            f"mask={mask} of length {len(mask)}")


def _broadcastable(a, b):
    for x, y in zip(a[::-1], b[::-1]):
        if x is not None and y is not None and x != y and 1 not in (x, y):
            return False
    return True
