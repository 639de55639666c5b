"""Control flow with Keras 3 signatures, run eagerly (Python loops and ifs).

`cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `map`,
`vectorized_map` and `associative_scan` call their functions directly, so
everything inside is recorded by an active GradientTape and differentiates
like ordinary code. `custom_gradient` replaces the recorded derivative.

On KerasTensors they give the output specs Keras gives: the functions are
traced once on KerasTensors (one slice for `map`/`scan`), and the loops'
outputs are shaped like their loop variables. They record no graph node
(their arguments are Python functions, which a functional config cannot hold).
"""
import functools

import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.keras_tensor import KerasTensor, in_trace, is_symbolic, tracing
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, manipulation as shape_ops, symbolic
from kerasish.utils import tree


def cond(pred, true_fn, false_fn):
    """Calls `true_fn()` if `pred` is true, else `false_fn()` (a Python if).

    Args:
        pred: a scalar (bool, number or size-1 tensor).
        true_fn, false_fn: functions without arguments.

    Returns:
        What the chosen function returns.

    Example:
        >>> ops.cond(ops.convert_to_tensor(True), lambda: 1.0, lambda: 0.0)
        1.0
    """
    if is_symbolic(pred):
        with tracing():
            a, b = true_fn(), false_fn()
        _check_same_structure("cond", a, b)
        return tree.map_structure(_merged_spec, a, b)
    return true_fn() if bool(pred) else false_fn()


def _spec(x):
    """A fresh KerasTensor like `x` (a KerasTensor or a tensor-like)."""
    x = x if hasattr(x, "shape") and hasattr(x, "dtype") else core.convert_to_tensor(x)
    return KerasTensor(tuple(x.shape), x.dtype)


def _merged_spec(a, b):
    """`true_fn`'s spec, once checked against `false_fn`'s (Keras's rule: same dtype and
    rank, and sizes that agree where both are known)."""
    a, b = _spec(a), _spec(b)
    if a.ndim != b.ndim or a.dtype != b.dtype or any(
            da is not None and db is not None and da != db for da, db in zip(a.shape, b.shape)):
        raise ValueError("ops.cond: `true_fn` and `false_fn` should return outputs of the same "
                         f"kind; got {a.shape} {a.dtype} and {b.shape} {b.dtype}.")
    return a


def _check_same_structure(name, a, b):
    if len(tree.flatten(a)) != len(tree.flatten(b)):
        raise ValueError(f"ops.{name}: the branches must return the same structure; got "
                         f"{a} and {b}.")


def _slice_spec(x):
    """The spec of one step of `x` along axis 0."""
    return KerasTensor(tuple(x.shape[1:]), x.dtype)


def _stacked_spec(y, n):
    y = _spec(y)
    return KerasTensor((n,) + tuple(y.shape), y.dtype)


def switch(index, branches, *operands):
    """Calls `branches[index](*operands)`; `index` is clamped to the valid range.

    Example:
        >>> ops.switch(1, [lambda x: x + 1, lambda x: x - 1], 5)
        4
    """
    if not branches:
        raise ValueError("ops.switch: `branches` must not be empty.")
    if is_symbolic(index) or is_symbolic(operands):
        with tracing():
            out = branches[0](*operands)
        return tree.map_structure(_spec, out)
    i = min(max(int(index), 0), len(branches) - 1)
    return branches[i](*operands)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Runs `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true.

    Args:
        cond: callable returning a scalar truth value.
        body: callable returning new loop variables (same structure).
        loop_vars: a tensor, or a tuple/list of them.
        maximum_iterations: optional cap on the number of iterations.

    Returns:
        The final loop variables: a tuple for tuple/list input, else one value.

    Example:
        >>> ops.while_loop(lambda i: i < 10, lambda i: i + 1, 0)   # 10
    """
    if is_symbolic(loop_vars):
        return tree.map_structure(_spec, loop_vars)
    is_seq = isinstance(loop_vars, (tuple, list))
    values = tuple(loop_vars) if is_seq else (loop_vars,)
    values = tree.map_structure(core.convert_to_tensor, values)
    step = 0
    while (maximum_iterations is None or step < maximum_iterations) and bool(cond(*values)):
        values = body(*values)
        values = tuple(values) if isinstance(values, (tuple, list)) else (values,)
        step += 1
    return values if is_seq else values[0]


def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for i in range(lower, upper).

    Example:
        >>> ops.fori_loop(0, 4, lambda i, acc: acc + i, 0)   # 6
    """
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def _stack_leaves(outputs):
    """Stacks a list of equally structured outputs leaf by leaf along axis 0."""
    if not outputs:
        return None
    flat = [tree.flatten(o) for o in outputs]
    stacked = [None if leaves[0] is None else shape_ops.stack(list(leaves), axis=0)
               for leaves in zip(*flat)]
    return tree.pack_sequence_as(outputs[0], stacked)


def _slices(xs, length, name):
    """Per-step slices of a nested structure of tensors (or None repeated)."""
    if xs is None:
        if length is None:
            raise ValueError(f"ops.{name}: give `xs` or `length`.")
        return [None] * int(length)
    flat = [core.convert_to_tensor(x) for x in tree.flatten(xs)]
    n = flat[0].shape[0]
    if any(x.shape[0] != n for x in flat) or (length is not None and length != n):
        raise ValueError(f"ops.{name}: all inputs need the same leading length "
                         f"({[x.shape for x in flat]}, length={length}).")
    return [tree.pack_sequence_as(xs, [x[i] for x in flat]) for i in range(n)]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loops `carry, y = f(carry, x)` over the leading axis of `xs` (jax.lax.scan).

    Args:
        f: callable (carry, x) -> (carry, y).
        init: the initial carry (any structure).
        xs: a tensor or structure of tensors to scan over, or None.
        length: number of steps when `xs` is None.
        reverse: scan from the end (outputs stay aligned with `xs`).
        unroll: accepted for Keras compatibility.

    Returns:
        (final carry, stacked ys).

    Example:
        >>> carry, ys = ops.scan(lambda c, x: (c + x, c + x), 0.0, ops.arange(4.0))
        >>> # carry 6.0, ys [0., 1., 3., 6.]
    """
    if not callable(f):
        raise TypeError(f"ops.scan: `f` should be a callable. Received: f={f!r}")
    if not isinstance(unroll, bool) and not (isinstance(unroll, int) and unroll >= 1):
        raise ValueError("ops.scan: `unroll` must be an positive integer or boolean. "
                         f"Received: unroll={unroll!r}")
    if xs is None and length is None:
        raise ValueError("ops.scan: got no `xs` to scan over and `length` not provided.")
    if is_symbolic(init) or is_symbolic(xs):
        return _symbolic_scan(f, init, xs, length)
    steps = _slices(xs, length, "scan")
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    carry, ys = init, [None] * len(steps)
    for i in order:
        carry, ys[i] = f(carry, steps[i])
    return carry, _stack_leaves(ys)


def _symbolic_scan(f, init, xs, length):
    if xs is None:
        n, step = length, None
    else:
        leaves = tree.flatten(xs)
        n = leaves[0].shape[0] if length is None else length
        step = tree.map_structure(_slice_spec, xs)
    with tracing():
        carry, y = f(tree.map_structure(_spec, init), step)
    return tree.map_structure(_spec, carry), tree.map_structure(
        lambda leaf: _stacked_spec(leaf, n), y)


def associative_scan(f, elems, reverse=False, axis=0):
    """Inclusive scan with an associative `f` (evaluated sequentially here).

    Example:
        >>> ops.associative_scan(ops.add, ops.arange(1.0, 5.0))   # [1., 3., 6., 10.]
    """
    sizes = {tuple(getattr(e, "shape", np.shape(e)))[axis] for e in tree.flatten(elems)}
    if len(sizes) > 1:
        raise ValueError("ops.associative_scan: array inputs to associative_scan must have "
                         f"the same first dimension along `axis` {axis}; got sizes {sizes}.")
    if is_symbolic(elems):
        return tree.map_structure(_spec, elems)
    flat = [shape_ops.moveaxis(core.convert_to_tensor(e), axis, 0) for e in tree.flatten(elems)]
    n = flat[0].shape[0]
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    outs, acc = [None] * n, None
    for i in order:
        x = tree.pack_sequence_as(elems, [e[i] for e in flat])
        acc = x if acc is None else f(acc, x)
        outs[i] = acc
    stacked = _stack_leaves(outs)
    moved = [shape_ops.moveaxis(s, 0, axis) for s in tree.flatten(stacked)]
    return tree.pack_sequence_as(elems, moved)


def map(f, xs):  # noqa: A001 - Keras exports ops.map
    """Applies `f` to each slice of `xs` along axis 0 and stacks the results.

    Example:
        >>> ops.map(lambda x: x * 2, ops.arange(3))   # [0, 2, 4]
    """
    if is_symbolic(xs):
        return _symbolic_map(f, xs)
    return _stack_leaves([f(x) for x in _slices(xs, None, "map")])


def _symbolic_map(f, xs):
    n = tree.flatten(xs)[0].shape[0]
    with tracing():
        y = f(tree.map_structure(_slice_spec, xs))
    return tree.map_structure(lambda leaf: _stacked_spec(leaf, n), y)


def vectorized_map(function, elements):
    """Like `map`; a tuple/list of tensors is sliced together (eager loop + stack).

    Example:
        >>> ops.vectorized_map(lambda ab: ab[0] * ab[1], (ops.ones((2, 3)), ops.ones((2, 3))))
    """
    if is_symbolic(elements):
        if in_trace():
            return _symbolic_map(function, elements)
        # a graph node as Keras's VectorizedMap: `function` in its config, `elements` its input
        return symbolic.symbolic_call(vectorized_map, "VectorizedMap", (elements,),
                                      {"function": function})
    if isinstance(elements, (tuple, list)):
        items = [core.convert_to_tensor(e) for e in elements]
        n = items[0].shape[0]
        outs = [function(type(elements)(e[i] for e in items)) for i in range(n)]
    else:
        outs = [function(x) for x in _slices(elements, None, "vectorized_map")]
    return _stack_leaves(outs)


def custom_gradient(f):
    """Decorator: `f` returns `(outputs, grad_fn)`; `grad_fn(upstream)` gives input grads.

    Ops inside `f` are not recorded; the tape records one node whose backward
    calls `grad_fn` (with one upstream gradient per output). `grad_fn` returns
    one gradient per tensor argument (a single value if there is one).

    Example:
        >>> @ops.custom_gradient
        ... def clip_grad(x):
        ...     return x * 1.0, lambda g: ops.clip(g, -1.0, 1.0)
    """
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        saved = _tape._active[:]
        _tape._active.clear()
        try:
            outputs, grad_fn = f(*args, **kwargs)
        finally:
            _tape._active[:] = saved
        inputs = tuple(a for a in tree.flatten(list(args)) if isinstance(a, Tensor))
        if not (_tape._active and inputs):
            return outputs
        flat = [o if not any(o is i for i in inputs) else Tensor(o._value, o._device)
                for o in (core.convert_to_tensor(o) for o in tree.flatten(outputs))]

        def backward(grads):
            grads = grads if len(flat) > 1 else [grads]
            result = grad_fn(*grads)
            result = list(result) if isinstance(result, (tuple, list)) else [result]
            if len(result) != len(inputs):
                raise ValueError(
                    f"custom_gradient({f.__name__}): grad_fn returned {len(result)} gradients "
                    f"for {len(inputs)} tensor inputs.")
            return [None if g is None else core.convert_to_tensor(g) for g in result]

        _tape.record(f"custom_gradient({f.__name__})", inputs, tuple(flat), backward)
        return tree.pack_sequence_as(outputs, flat)
    return wrapper
