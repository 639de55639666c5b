"""RecurrentLayer: LSTM, GRU and SimpleRNN are an RNN around one built-in cell.

The layer takes the cell's constructor arguments plus the RNN ones, builds
the cell (named like Keras: "lstm_cell", "gru_cell", "simple_rnn_cell"),
forwards attribute reads to it, and flattens both configs into one.
"""
from kerasish.layers.rnn.rnn import RNN

_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")
_LAYER_ARGS = ("name", "dtype", "trainable", "activity_regularizer", "input_shape",
               "batch_input_shape", "batch_size", "input_dim", "autocast")
_CELL_CONFIG_SKIP = {"name", "trainable", "dtype"}


class RecurrentLayer(RNN):
    """Base of LSTM/GRU/SimpleRNN (not used directly)."""

    cell_class = None
    cell_name = None

    def __init__(self, units, **kwargs):
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
        layer_kwargs = {k: kwargs.pop(k) for k in _LAYER_ARGS if k in kwargs}
        kwargs.pop("use_cudnn", None)
        kwargs.pop("implementation", None)
        cell = self.cell_class(units, name=self.cell_name, dtype=layer_kwargs.get("dtype"),
                               trainable=layer_kwargs.get("trainable", True), **kwargs)
        super().__init__(cell, **rnn_kwargs, **layer_kwargs)

    def __getattr__(self, name):
        # Keras exposes the cell's settings on the layer: lstm.units, lstm.dropout, ...
        if name.startswith("_") or "cell" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["cell"], name)

    def get_config(self):
        config = RNN.get_config(self)
        config.pop("cell")
        cell_config = {k: v for k, v in self.cell.get_config().items() if k not in _CELL_CONFIG_SKIP}
        config.update(cell_config)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)
