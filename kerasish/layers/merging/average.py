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
        # The tensor's `/`, as Keras: on integer inputs TensorFlow's division gives
        # float64 for int32/int64 and float32 for smaller integers (ops.divide: float32).
        return total / len(inputs)


def average(inputs, **kwargs):
    """Functional interface to `Average`: Averages a list of inputs.

    Example:
        >>> keras.layers.average([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Average(**kwargs)(inputs)
