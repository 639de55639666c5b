"""Shared data and drivers for the optimizer tests.

References in the tests are written independently, in plain float32 numpy,
straight from Keras 3's formulas; they never call kerasish kernels.
"""
import numpy as np

import kerasish as keras

F32 = np.float32
INIT = [np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.25]], F32), np.array([0.1, -0.2, 0.3], F32)]
GRADS = [  # three steps, two variables, gradients of mixed magnitudes and signs
    [np.array([[0.3, -0.2, 1.0], [-2.0, 0.05, 0.4]], F32), np.array([1e-3, -0.5, 2.0], F32)],
    [np.array([[-0.1, 0.4, 0.8], [1.0, -0.3, 0.0]], F32), np.array([0.2, 0.1, -1.5], F32)],
    [np.array([[0.25, 0.0, -0.6], [0.5, 0.7, -0.9]], F32), np.array([-0.3, 0.05, 0.6], F32)],
]


def make_variables(init=INIT):
    """Fresh float32 Variables named like a Dense layer's weights."""
    variables = []
    for array, name in zip(init, ["kernel", "bias"]):
        variable = keras.Variable(array.copy(), name=name)
        variable.path = f"dense/{name}"
        variables.append(variable)
    return variables


def run(optimizer, grads=GRADS, init=INIT):
    """Applies `grads` step by step; returns the variables' values after each step."""
    variables = make_variables(init)
    history = []
    for step_grads in grads:
        optimizer.apply_gradients(zip([keras.ops.convert_to_tensor(g) for g in step_grads],
                                      variables))
        history.append([v.numpy() for v in variables])
    return history


def reference(update, state_init, grads=GRADS, init=INIT):
    """Runs a numpy reference `update(w, g, state, t) -> (w, state)` with t = 1, 2, ..."""
    weights = [w.copy() for w in init]
    states = [state_init(w) for w in weights]
    history = []
    for t, step_grads in enumerate(grads, start=1):
        for i, g in enumerate(step_grads):
            weights[i], states[i] = update(weights[i], g, states[i], t)
        history.append([w.copy() for w in weights])
    return history


def assert_history_close(actual, expected, rtol=1e-6, atol=1e-7):
    for step, (got, want) in enumerate(zip(actual, expected), start=1):
        for got_w, want_w in zip(got, want):
            assert got_w.dtype == np.float32
            np.testing.assert_allclose(got_w, want_w, rtol=rtol, atol=atol,
                                       err_msg=f"step {step}")
