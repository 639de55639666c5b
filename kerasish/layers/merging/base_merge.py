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
        if previous_mask is None or not any(m is not None for m in previous_mask):
            return None
        masks = [ops.expand_dims(m, 0) for m in previous_mask if m is not None]
        return ops.all(ops.concatenate(masks, axis=0), axis=0)


def _broadcastable(a, b):
    for x, y in zip(a[::-1], b[::-1]):
        if x is not None and y is not None and x != y and 1 not in (x, y):
            return False
    return True
