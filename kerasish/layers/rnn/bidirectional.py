"""Bidirectional: runs a recurrent layer forwards and backwards and merges."""
from kerasish import ops
from kerasish.layers.layer import Layer
from kerasish.utils import registry

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _copy(layer, name, go_backwards):
    config = registry.serialize_object_as_keras(layer)
    config["config"]["name"] = name
    if go_backwards is not None:
        config["config"]["go_backwards"] = go_backwards
    return registry.deserialize_object_as_keras(config)


class Bidirectional(Layer):
    """Bidirectional wrapper for RNNs.

    The forward and backward layers are copies of `layer` named
    "forward_<name>" and "backward_<name>" (the backward one with
    `go_backwards` flipped), as in Keras.

    Args:
        layer: an RNN layer (LSTM, GRU, SimpleRNN, RNN).
        merge_mode: "concat" (default), "sum", "mul", "ave", or None (a list).
        backward_layer: optional explicit backward layer.

    Example:
        >>> layer = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True))
        >>> layer(np.ones((2, 5, 3))).shape
        (2, 5, 8)
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    _output_shape_known = True  # Keras implements compute_output_shape; kerasish traces `call`

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        base = layer.name.removeprefix("forward_")
        self.forward_layer = _copy(layer, "forward_" + base, None)
        if backward_layer is None:
            self.backward_layer = _copy(layer, "backward_" + base, not layer.go_backwards)
        else:
            if backward_layer.return_sequences != layer.return_sequences or \
                    backward_layer.return_state != layer.return_state:
                raise ValueError(
                    "Forward layer and backward layer should have the same `return_sequences` "
                    "and `return_state` settings."
                )
            self.backward_layer = backward_layer
        if hasattr(layer, "use_cudnn"):  # not serialized, so copied by hand (as Keras)
            self.forward_layer.use_cudnn = layer.use_cudnn
            self.backward_layer.use_cudnn = layer.use_cudnn
        # As Keras: with return_sequences, masked steps output zeros in both directions
        # (not the carried-over output), so the merged sequence is zero where masked.
        for sublayer in (self.forward_layer, self.backward_layer):
            if hasattr(sublayer, "zero_output_for_mask"):
                sublayer.zero_output_for_mask = sublayer.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self._initial_weights = weights

    def build(self, sequences_shape, initial_state_shape=None):
        self.forward_layer._maybe_build(sequences_shape)
        self.backward_layer._maybe_build(sequences_shape)

    def call(self, sequences, initial_state=None, mask=None, training=None):
        fw_state = bw_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fw_state, bw_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=fw_state, mask=mask, training=training)
        y_rev = self.backward_layer(sequences, initial_state=bw_state, mask=mask, training=training)
        states = []
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = ops.flip(y_rev, axis=1)
        # as Keras: both directions in this layer's compute dtype before merging (float16
        # under "mixed_float16" even when the wrapped layers compute in float32)
        y, y_rev = ops.cast(y, self.compute_dtype), ops.cast(y_rev, self.compute_dtype)
        output = self._merge(y, y_rev)
        if self.return_state:  # tuples, as Keras
            return (output if isinstance(output, tuple) else (output,)) + states
        return output

    def _merge(self, y, y_rev):
        if self.merge_mode == "concat":
            return ops.concatenate([y, y_rev], axis=-1)
        if self.merge_mode == "sum":
            return ops.add(y, y_rev)
        if self.merge_mode == "ave":
            return ops.multiply(ops.add(y, y_rev), 0.5)
        if self.merge_mode == "mul":
            return ops.multiply(y, y_rev)
        return (y, y_rev)

    def reset_states(self):
        """Resets both directions' states (stateful layers)."""
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    reset_state = reset_states

    def compute_mask(self, inputs, previous_mask=None):
        mask = previous_mask if self.return_sequences else None
        if self.merge_mode is None:
            mask = [mask, mask]
        if self.return_state:
            n = len(self.forward_layer._state_sizes) * 2
            return (mask if isinstance(mask, list) else [mask]) + [None] * n
        return mask

    def get_config(self):
        config = super().get_config()
        config["merge_mode"] = self.merge_mode
        config["layer"] = registry.serialize_object_as_keras(self.forward_layer)
        config["backward_layer"] = registry.serialize_object_as_keras(self.backward_layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = registry.deserialize_object_as_keras(config["layer"],
                                                                 custom_objects=custom_objects)
        if config.get("backward_layer") is not None:
            config["backward_layer"] = registry.deserialize_object_as_keras(
                config["backward_layer"], custom_objects=custom_objects)
        return cls(**config)
