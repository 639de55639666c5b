"""Average: the elementwise mean of a list of tensors."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge


class Average(Merge):
    """Averages a list of inputs elementwise.

    Example:
        >>> keras.layers.Average()([np.zeros(2), np.ones(2)])   # [0.5, 0.5]
    """

    def call(self, inputs):
        total = inputs[0]
        for x in inputs[1:]:
            total = ops.add(total, x)
        return ops.divide(total, float(len(inputs)))


def average(inputs, **kwargs):
    """Functional interface to `Average`: Averages a list of inputs.

    Example:
        >>> keras.layers.average([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Average(**kwargs)(inputs)
