"""StackedRNNCells: several cells that act as one, each feeding the next."""
from kerasish import ops
from kerasish.layers.layer import Layer
from kerasish.utils import registry


class StackedRNNCells(Layer):
    """Wraps a list of cells so `RNN` runs them as one deep cell.

    Args:
        cells: list of cells; the output of each is the input of the next.

    Example:
        >>> cells = [keras.layers.LSTMCell(8), keras.layers.LSTMCell(4)]
        >>> keras.layers.RNN(keras.layers.StackedRNNCells(cells))(np.ones((2, 5, 3))).shape
        (2, 4)
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
                raise ValueError(f"All cells must have `call` and `state_size`. Received: {cell}")
        self.cells = list(cells)

    @property
    def state_size(self):
        sizes = []
        for cell in self.cells:
            size = cell.state_size
            sizes.extend(size if isinstance(size, (list, tuple)) else [size])
        return sizes

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def _counts(self):
        return [len(c.state_size) if isinstance(c.state_size, (list, tuple)) else 1
                for c in self.cells]

    def build(self, input_shape):
        shape = input_shape
        for cell in self.cells:
            cell._maybe_build(shape)
            shape = (shape[0], _output_size(cell))

    def call(self, inputs, states, training=False):
        new_states, start = [], 0
        for cell, count in zip(self.cells, self._counts()):
            cell_states = list(states[start:start + count])
            start += count
            inputs, cell_new = cell(inputs, cell_states, training=training)
            new_states.extend(cell_new if isinstance(cell_new, (list, tuple)) else [cell_new])
        return inputs, new_states

    def reset_dropout_masks(self):
        for cell in self.cells:
            if hasattr(cell, "reset_dropout_masks"):
                cell.reset_dropout_masks()

    def get_initial_state(self, batch_size=None):
        states = []
        for cell in self.cells:
            if hasattr(cell, "get_initial_state"):
                states.extend(cell.get_initial_state(batch_size))
            else:  # as Keras: zeros of each state size (a minimal cell has only `call`)
                sizes = cell.state_size if isinstance(cell.state_size, (list, tuple)) \
                    else [cell.state_size]
                states.extend(ops.zeros((batch_size, n), dtype=self.compute_dtype)
                              for n in sizes)
        return states

    def get_config(self):
        config = super().get_config()
        config["cells"] = [registry.serialize_object_as_keras(c) for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["cells"] = [registry.deserialize_object_as_keras(c, custom_objects=custom_objects)
                           for c in config["cells"]]
        return cls(**config)


def _output_size(cell):
    """A cell's `output_size`; as Keras, its (first) state size when it has none."""
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    state = cell.state_size
    return state[0] if isinstance(state, (list, tuple)) else state
