"""Concatenate: joins a list of tensors along an axis."""
from kerasish import ops
from kerasish.layers.layer import Layer
from kerasish.layers.merging.base_merge import check_mask_list


class Concatenate(Layer):
    """Concatenates a list of inputs along `axis` (other axes must match).

    Args:
        axis: the concatenation axis (default -1).

    Example:
        >>> keras.layers.Concatenate()([np.zeros((2, 3)), np.zeros((2, 4))]).shape
        (2, 7)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 1 or \
                not isinstance(input_shape[0], (list, tuple)):
            raise ValueError(
                "A `Concatenate` layer should be called on a list of at least 1 input. "
                f"Received: input_shape={input_shape}"
            )
        ranks = {len(s) for s in input_shape}
        axis = self.axis % max(ranks)
        reduced = [tuple(d for i, d in enumerate(s) if i != axis) for s in input_shape]
        for s in reduced[1:]:
            if any(a is not None and b is not None and a != b for a, b in zip(reduced[0], s)) \
                    or len(ranks) > 1:
                raise ValueError(
                    "A `Concatenate` layer requires inputs with matching shapes except for the "
                    f"concatenation axis. Received: input_shape={[tuple(x) for x in input_shape]}"
                )

    def call(self, inputs):
        return ops.concatenate(list(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape):
        out = list(input_shape[0])
        axis = self.axis % len(out)
        sizes = [s[axis] for s in input_shape]
        out[axis] = None if any(d is None for d in sizes) else sum(sizes)
        return tuple(out)

    def compute_mask(self, inputs, previous_mask=None):
        # Keras 3.15.1: each mask broadcast to its input (an unmasked input: all True),
        # joined along `axis`, then kept where any entry of the last axis is kept
        if previous_mask is None:
            return None
        if not isinstance(previous_mask, (tuple, list)):
            raise ValueError(f"`mask` should be a list. Received mask={previous_mask}")
        check_mask_list(inputs, previous_mask)
        if all(m is None for m in previous_mask):
            return None
        masks = []
        for x, m in zip(inputs, previous_mask):
            if m is None:
                masks.append(ops.ones_like(x, dtype="bool"))
            elif len(m.shape) < len(x.shape):
                masks.append(ops.logical_or(ops.expand_dims(m, axis=-1),
                                            ops.zeros_like(x, dtype="bool")))
            else:
                masks.append(m)
        return ops.any(ops.concatenate(masks, axis=self.axis), axis=-1, keepdims=False)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


def concatenate(inputs, axis=-1, **kwargs):
    """Functional interface to `Concatenate`: joins a list of inputs along `axis`."""
    return Concatenate(axis=axis, **kwargs)(inputs)
