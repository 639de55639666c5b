"""Finite-difference gradient checks (float64) for ops, layers and models.

    check_gradients(lambda x, w: ops.sum(ops.matmul(x, w)), [x, w])

`fn` receives Tensors/Variables and returns a Tensor; the analytic
gradient of `sum(fn(...) * r)` (for a fixed random `r`, so every output
element matters) is compared with central differences.
"""
import numpy as np

from kerasish.backend.config import is_float
from kerasish.autodiff import GradientTape, Variable
from kerasish.ops import core, elementwise as ew, reduction


def _as_float64_tensors(inputs):
    out = []
    for x in inputs:
        if isinstance(x, Variable):
            out.append(x)
        else:
            array = np.asarray(core.convert_to_numpy(x))
            if is_float(array.dtype):
                array = array.astype(np.float64)
            out.append(core.convert_to_tensor(array))
    return out


def _scalar_objective(fn, weights):
    def objective(*args):
        y = fn(*args)
        if weights[0] is None:
            rng = np.random.default_rng(1234)
            weights[0] = core.convert_to_tensor(rng.uniform(0.5, 1.5, size=y.shape).astype(y.dtype))
        return reduction.sum(ew.multiply(y, weights[0]))
    return objective


def numerical_gradient(fn, inputs, index, eps=1e-6):
    """Central-difference gradient of scalar `fn(*inputs)` w.r.t. `inputs[index]`."""
    x = inputs[index]
    base = np.array(core.convert_to_numpy(x), dtype=np.float64, order="C")
    grad = np.zeros_like(base)
    flat = base.reshape(-1)
    for i in range(flat.size):
        values = []
        for delta in (eps, -eps):
            bumped = flat.copy()
            bumped[i] += delta
            args = list(inputs)
            args[index] = _replace(x, bumped.reshape(base.shape))
            values.append(float(core.convert_to_numpy(fn(*args))))
        grad.reshape(-1)[i] = (values[0] - values[1]) / (2 * eps)
    if isinstance(x, Variable):
        x.assign(base)
    return grad


def _replace(x, array):
    if isinstance(x, Variable):
        x.assign(array)
        return x
    return core.convert_to_tensor(array)


def check_gradients(fn, inputs, wrt=None, atol=1e-6, rtol=1e-5, eps=1e-6):
    """Asserts that tape gradients of `fn` match central differences.

    Args:
        fn: callable taking the inputs (Tensors) and returning a Tensor.
        inputs: list of arrays/Tensors/Variables; float arrays become float64.
        wrt: indices of inputs to check (default: every float input).
        atol, rtol: tolerances for `numpy.testing.assert_allclose`.
        eps: finite-difference step.

    Returns:
        list of (analytic, numeric) numpy pairs, one per checked input.
    """
    tensors = _as_float64_tensors(inputs)
    if wrt is None:
        wrt = [i for i, t in enumerate(tensors) if t.dtype.startswith("float")]
    weights = [None]
    objective = _scalar_objective(fn, weights)
    with GradientTape(persistent=True) as tape:
        for i in wrt:
            tape.watch(tensors[i])
        value = objective(*tensors)
    grads = tape.gradient(value, [tensors[i] for i in wrt], unconnected_gradients="zero")
    results = []
    for i, g in zip(wrt, grads):
        numeric = numerical_gradient(objective, tensors, i, eps=eps)
        analytic = core.convert_to_numpy(g)
        np.testing.assert_allclose(analytic, numeric, atol=atol, rtol=rtol,
                                   err_msg=f"gradient of input {i} differs from finite differences")
        results.append((analytic, numeric))
    return results


def check_second_order(fn, inputs, atol=1e-5, rtol=1e-4, eps=1e-6):
    """Checks the gradient of `sum(grad(fn) * r)` against finite differences.

    This differentiates the backward pass itself, so it verifies that an
    op's backward is written with differentiable ops.
    """
    tensors = _as_float64_tensors(inputs)
    weights = [None]
    inner = _scalar_objective(fn, weights)

    def first_grad(*args):
        with GradientTape() as tape:
            for a in args:
                tape.watch(a)
            value = inner(*args)
        grads = tape.gradient(value, list(args), unconnected_gradients="zero")
        total = None
        for g in grads:
            term = reduction.sum(ew.multiply(g, g))
            total = term if total is None else ew.add(total, term)
        return total

    with GradientTape() as outer:
        for t in tensors:
            outer.watch(t)
        value = first_grad(*tensors)
    grads = outer.gradient(value, tensors, unconnected_gradients="zero")
    for i, g in enumerate(grads):
        numeric = numerical_gradient(first_grad, tensors, i, eps=eps)
        np.testing.assert_allclose(core.convert_to_numpy(g), numeric, atol=atol, rtol=rtol,
                                   err_msg=f"second-order gradient of input {i} differs")
