"""The stateful-layer states shared by RNN and ConvLSTM."""
from kerasish import ops
from kerasish.autodiff.tensor import Variable


class StateVariables:
    """Mixin: `states` of a stateful recurrent layer, as Keras keeps them.

    They are non-trainable Variables of the layer's variable dtype (float32
    under a mixed policy), held in `_state_variables`, which the attribute
    scan skips, so they are not among the layer's weights.
    """

    @property
    def states(self):
        """A stateful layer's states: Variables, or None."""
        return self._state_variables

    @states.setter
    def states(self, value):
        self._state_variables = value

    def _state_variable(self, value):
        variable = Variable(value, trainable=False, dtype=self.variable_dtype, name="rnn_state")
        variable.path = f"{self.name}/rnn_state"
        return variable

    def reset_states(self, states=None):
        """Resets a stateful layer's states to zeros (or to `states`), keeping their shapes.

        Args:
            states: optional values, one per state (they create the states when the
                layer has none yet).
        """
        if self.states is None:
            if states is not None:
                self.states = [self._state_variable(ops.convert_to_tensor(s)) for s in states]
            return
        for i, variable in enumerate(self.states):
            variable.assign(ops.zeros_like(variable) if states is None else states[i])

    reset_state = reset_states
