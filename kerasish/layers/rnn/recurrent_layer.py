"""RecurrentLayer: LSTM, GRU and SimpleRNN are an RNN around one built-in cell.

The layer takes the cell's constructor arguments plus the RNN ones, builds
the cell (named like Keras: "lstm_cell", "gru_cell", "simple_rnn_cell"),
forwards attribute reads to it, and flattens both configs into one.
"""
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.rnn import base_cell
from kerasish.layers.rnn.rnn import RNN

_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")
_LAYER_ARGS = ("name", "dtype", "trainable", "activity_regularizer", "input_shape",
               "batch_input_shape", "batch_size", "input_dim", "autocast")
_CELL_CONFIG_SKIP = {"name", "trainable", "dtype"}
_LAYER_KEYS = ("name", "trainable", "dtype") + _RNN_ARGS + ("units", "activation")


def layer_keys(*cell_keys):
    """A recurrent layer's config keys in Keras 3's order."""
    return _LAYER_KEYS + cell_keys


class RecurrentLayer(RNN):
    """Base of LSTM/GRU/SimpleRNN (not used directly)."""

    cell_class = None
    cell_name = None
    config_keys = None  # the layer's config keys in Keras's order
    input_ndim = None   # LSTM and GRU check for 3-D inputs, as Keras's InputSpec(ndim=3)

    def __init__(self, units, **kwargs):
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
        layer_kwargs = {k: kwargs.pop(k) for k in _LAYER_ARGS if k in kwargs}
        kwargs.pop("use_cudnn", None)
        kwargs.pop("implementation", None)
        cell = self.cell_class(units, name=self.cell_name, dtype=layer_kwargs.get("dtype"),
                               trainable=layer_kwargs.get("trainable", True), **kwargs)
        super().__init__(cell, **rnn_kwargs, **layer_kwargs)
        if self.input_ndim is not None:
            self.input_spec = InputSpec(ndim=self.input_ndim)

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
        config.setdefault("activity_regularizer", None)
        if self.config_keys is not None:  # Keras's key order (SimpleRNN has no `seed`)
            keys = self.config_keys
            if self.activity_regularizer is not None:  # set: Keras's base config puts it first
                keys = ("name", "trainable", "dtype", "activity_regularizer") + tuple(
                    k for k in keys if k not in ("name", "trainable", "dtype", "activity_regularizer"))
            config = base_cell.keras_order(config, keys)
            config = {k: v for k, v in config.items() if k in keys}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)
