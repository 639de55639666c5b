"""Multiply: merges a list of tensors elementwise."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge


class Multiply(Merge):
    """Multiplies a list of inputs elementwise (same shapes, broadcasting allowed).

    Example:
        >>> keras.layers.Multiply()([np.ones((2, 3)), np.ones((2, 3))]).shape
        (2, 3)
    """

    def call(self, inputs):
        # Keras's masked product: a masked step counts as 1, and where every input is
        # masked the output is 0 (and masked)
        masks = [getattr(x, "_keras_mask", None) for x in inputs]
        if all(m is None for m in masks):
            return super().call(inputs)
        has_output_mask = all(m is not None for m in masks)
        output = output_mask = None
        for x, mask in zip(inputs, masks):
            if mask is not None:
                mask = ops.broadcast_to(ops.expand_dims(mask, -1), ops.shape(x))
                x = ops.where(mask, x, ops.cast(1, x.dtype))
                if has_output_mask:
                    output_mask = mask if output_mask is None else \
                        ops.logical_or(output_mask, mask)
            output = x if output is None else ops.multiply(output, x)
        if has_output_mask:
            output = ops.where(output_mask, output, ops.cast(0, output.dtype))
            output._keras_mask = ops.any(output_mask, axis=-1, keepdims=False)
        return output

    def _merge(self, a, b):
        return ops.multiply(a, b)


def multiply(inputs, **kwargs):
    """Functional interface to `Multiply`: Multiplies a list of inputs.

    Example:
        >>> keras.layers.multiply([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Multiply(**kwargs)(inputs)
