"""RecurrentLayer: LSTM, GRU and SimpleRNN are an RNN around one built-in cell.

Each layer has Keras's explicit signature, builds its cell (named like Keras:
"lstm_cell", "gru_cell", "simple_rnn_cell") from the cell arguments, forwards
attribute reads to it, and flattens both configs into one in Keras's order.

`use_cudnn` (LSTM, GRU) and `implementation` (LSTM, GRU and their cells) are
accepted as in Keras. kerasish has no cuDNN kernel: with `use_cudnn="auto"`
or False the layer runs kerasish's own fused sequence op (on CPU and GPU
alike), and `use_cudnn=True` raises Keras's error when the layer is called,
as Keras does wherever cuDNN cannot be used. `implementation` (1 or 2) only
changed how Keras batched the gate matmuls; the numbers are the same, and
kerasish always computes all gates with one matmul.
"""
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.rnn import base_cell
from kerasish.layers.rnn.rnn import RNN

_CELL_CONFIG_SKIP = {"name", "trainable", "dtype"}
_LAYER_KEYS = ("name", "trainable", "dtype", "return_sequences", "return_state",
               "go_backwards", "stateful", "unroll", "zero_output_for_mask", "units",
               "activation")


def layer_keys(*cell_keys):
    """A recurrent layer's config keys in Keras 3's order."""
    return _LAYER_KEYS + cell_keys


def cell_kwargs(layer_kwargs):
    """The dtype/trainable a built-in cell inherits from its layer's keyword arguments."""
    return {"dtype": layer_kwargs.get("dtype"), "trainable": layer_kwargs.get("trainable", True)}


def check_use_cudnn(layer, use_cudnn):
    """Keras's validation of `use_cudnn` ("auto", True or False)."""
    if use_cudnn not in ("auto", True, False):
        raise ValueError(f"{type(layer).__name__} layer '{layer.name}': Invalid valid received for argument `use_cudnn`. "
                         "Expected one of {'auto', True, False}. "
                         f"Received: use_cudnn={use_cudnn}")
    return use_cudnn


class RecurrentLayer(RNN):
    """Base of LSTM/GRU/SimpleRNN (not used directly).

    Args:
        cell: the built-in cell the subclass made from its arguments.
        **kwargs: the `RNN` arguments and the base layer arguments.
    """

    config_keys = None  # the layer's config keys in Keras's order
    input_ndim = None   # LSTM and GRU check for 3-D inputs, as Keras's InputSpec(ndim=3)

    def __init__(self, cell, **kwargs):
        super().__init__(cell, **kwargs)
        if self.input_ndim is not None:
            self.input_spec = InputSpec(ndim=self.input_ndim)

    def __getattr__(self, name):
        # Keras exposes the cell's settings on the layer: lstm.units, lstm.dropout, ...
        if name.startswith("_") or "cell" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["cell"], name)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if self.__dict__.get("use_cudnn") is True:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': use_cudnn=True was specified, but "
                "cuDNN is not supported for this layer configuration with this backend "
                "(kerasish has no cuDNN kernel). Pass use_cudnn='auto' to fallback to a "
                "non-cuDNN implementation.")
        return super().call(sequences, initial_state=initial_state, mask=mask,
                            training=training)

    def get_config(self):
        config = RNN.get_config(self)
        config.pop("cell")
        cell_config = {k: v for k, v in self.cell.get_config().items()
                       if k not in _CELL_CONFIG_SKIP}
        config.update(cell_config)
        config.setdefault("activity_regularizer", None)
        keys = self.config_keys
        if self.activity_regularizer is not None:  # set: Keras's base config puts it first
            keys = ("name", "trainable", "dtype", "activity_regularizer") + tuple(
                k for k in keys if k not in ("name", "trainable", "dtype",
                                             "activity_regularizer"))
        config = base_cell.keras_order(config, keys)
        return {k: v for k, v in config.items() if k in keys}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)
