"""Muon: `keras.optimizers.Muon`."""
import re

from kerasish.autodiff.indexed_slices import slices_of
from kerasish.optimizers.optimizer import Optimizer


class Muon(Optimizer):
    """Muon (Jordan et al., 2024): momentum orthogonalised by Newton-Schulz for 2-D weights,
    AdamW for the rest.

    A 2-D variable (not an embedding when `exclude_embeddings`, not matching
    `exclude_layers`) keeps a momentum `m += g + (momentum - 1) m`; its update is
    `NS5(g + momentum m)` (Nesterov) or `NS5(m)`, five quintic Newton-Schulz iterations
    with coefficients `(muon_a, muon_b, muon_c)` that approximately orthogonalise the
    matrix, scaled by `sqrt(max(rows, cols)) * rms_rate`. Every other variable gets AdamW
    with `adam_beta_1`, `adam_beta_2`, `epsilon` and `learning_rate * adam_lr_ratio`.
    Weight decay is `weight_decay` for Muon variables and `adam_weight_decay` for the rest.

    Args:
        learning_rate: float, `LearningRateSchedule` or callable. Defaults to 0.001.
        adam_beta_1, adam_beta_2, epsilon, adam_weight_decay, adam_lr_ratio: the AdamW part.
        weight_decay: decay of the Muon variables. Defaults to 0.004.
        exclude_layers: regular expressions; matching variable paths use AdamW.
        exclude_embeddings: variables whose path contains "embedding" use AdamW.
        muon_a, muon_b, muon_c: the Newton-Schulz coefficients.
        momentum: Muon's momentum. Defaults to 0.95.
        ns_steps: Newton-Schulz iterations. Defaults to 5.
        nesterov: use the Nesterov form. Defaults to True.
        rms_rate: update RMS matching factor (None: no rescaling). Defaults to 0.2.
        **kwargs: the common optimizer arguments, see `Optimizer`.

    Example:
        >>> opt = keras.optimizers.Muon(learning_rate=0.02)
    """

    def __init__(self, learning_rate=0.001, adam_beta_1=0.9, adam_beta_2=0.999,
                 adam_weight_decay=0.004, epsilon=1e-7, weight_decay=0.004, exclude_layers=None,
                 exclude_embeddings=True, muon_a=3.4445, muon_b=-4.775, muon_c=2.0315,
                 adam_lr_ratio=1, momentum=0.95, ns_steps=5, nesterov=True, rms_rate=0.2,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay, **kwargs)
        self.adam_beta_1 = adam_beta_1
        self.adam_beta_2 = adam_beta_2
        self.epsilon = epsilon
        self.muon_a, self.muon_b, self.muon_c = muon_a, muon_b, muon_c
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum = momentum
        self.ns_steps = ns_steps
        self.nesterov = nesterov
        self.exclude_embeddings = exclude_embeddings
        self.exclude_layers = exclude_layers or []
        self.adam_weight_decay = adam_weight_decay
        self.rms_rate = rms_rate

    def _should_use_adamw(self, variable):
        if len(variable.shape) != 2:
            return True
        if self.exclude_embeddings and "embedding" in variable.path.lower():
            return True
        return any(re.search(keyword, variable.path) for keyword in self.exclude_layers)

    def build(self, var_list):
        """Creates a `momentum` slot per variable and a `velocity` slot for AdamW ones."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = [], []
        for v in var_list:  # interleaved per variable, as Keras
            skip = self._overwrite_variable_with_gradient(v)
            self._momentums.append(
                None if skip else self.add_variable_from_reference(v, name="momentum"))
            self._velocities.append(
                self.add_variable_from_reference(v, name="velocity")
                if not skip and self._should_use_adamw(v) else None)

    def update_step(self, gradient, variable, learning_rate):
        """Muon for eligible 2-D variables, AdamW otherwise, in place."""
        index = self._get_variable_index(variable)
        g = self._gradient_array(gradient, variable).astype(variable._value.dtype, copy=False)
        m = self._momentums[index]._value
        velocity = self._velocities[index]
        if velocity is not None:
            self._adamw_step(g, variable, learning_rate, m, velocity._value, slices_of(gradient))
        else:
            self._muon_step(g, variable, learning_rate, m)

    def _muon_step(self, g, variable, learning_rate, m):
        dtype = m.dtype.type
        m += g + m * dtype(self.momentum - 1)
        direction = g + dtype(self.momentum) * m if self.nesterov else m
        update = self._lr_scalar(learning_rate, variable) * self._newton_schulz(
            variable._device.xp, direction)
        if self.rms_rate is not None:
            update = update * dtype(max(update.shape[0], update.shape[1]) ** 0.5) \
                * dtype(self.rms_rate)
        variable._value -= update.astype(variable._value.dtype, copy=False)

    def _newton_schulz(self, xp, x):
        """Keras's quintic Newton-Schulz iteration on the last two axes."""
        if x.ndim < 2:
            raise ValueError("Expected gradient or momentum to have at least 2 dimensions. "
                             f"Received: shape={x.shape}")
        dtype = x.dtype.type
        a, b, c = dtype(self.muon_a), dtype(self.muon_b), dtype(self.muon_c)
        tall = x.shape[-2] > x.shape[-1]
        if tall:
            x = xp.swapaxes(x, -1, -2)
        norm = xp.sqrt(xp.sum(x * x, axis=(-2, -1), keepdims=True))
        x = x / (norm + dtype(1e-7))
        for _ in range(self.ns_steps):
            gram = x @ xp.swapaxes(x, -1, -2)
            x = a * x + (b * gram + c * gram @ gram) @ x
        return xp.swapaxes(x, -1, -2) if tall else x

    def _adamw_step(self, g, variable, learning_rate, m, v, rows=None):
        xp, dtype = variable._device.xp, m.dtype.type
        lr = self._lr_scalar(learning_rate, variable) * dtype(self.adam_lr_ratio)
        step = self._local_step(variable)
        alpha = lr * xp.sqrt(dtype(1) - self._step_power(xp, dtype(self.adam_beta_2), step)) / (
            dtype(1) - self._step_power(xp, dtype(self.adam_beta_1), step))
        m += (g - m) * dtype(1 - self.adam_beta_1)
        squared = g * g if rows is None else rows.dense(xp.square)  # a lookup: rows squared
        v += (squared - v) * dtype(1 - self.adam_beta_2)
        variable._value -= (m * alpha / (xp.sqrt(v) + dtype(self.epsilon))).astype(
            variable._value.dtype, copy=False)

    def _apply_weight_decay(self, variables, learning_rate):
        for variable in variables:
            if not self._use_weight_decay(variable):
                continue
            decay = self.adam_weight_decay if self._should_use_adamw(variable) \
                else self.weight_decay
            if decay is None:
                continue
            w = variable._value
            lr = self._lr_scalar(learning_rate, variable)
            w -= (w * w.dtype.type(decay) * lr).astype(w.dtype, copy=False)

    def get_config(self):
        config = super().get_config()
        config.update({
            "adam_beta_1": self.adam_beta_1, "adam_beta_2": self.adam_beta_2,
            "epsilon": self.epsilon, "exclude_layers": self.exclude_layers,
            "muon_a": self.muon_a, "muon_b": self.muon_b, "muon_c": self.muon_c,
            "adam_lr_ratio": self.adam_lr_ratio, "momentum": self.momentum,
            "ns_steps": self.ns_steps, "nesterov": self.nesterov,
            "exclude_embeddings": self.exclude_embeddings,
            "adam_weight_decay": self.adam_weight_decay, "rms_rate": self.rms_rate})
        return config
