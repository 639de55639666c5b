"""`keras.remat`: gradient checkpointing. The wrapped function's intermediate results are
not kept for the backward pass; it runs again when its gradient is needed."""
import functools

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tape import GradientTape
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.utils import tree


def _suspended_tapes():
    saved = _tape._active[:]
    _tape._active.clear()
    return saved


def remat(f):
    """Wraps `f` so that a backward pass recomputes its forward instead of storing it.

    Memory for the intermediates of `f` is traded for running `f` a second time during
    the backward pass. Gradients are exactly those of `f` itself, with respect to its
    tensor arguments and to every trainable Variable it reads (layer weights included).

    Args:
        f: a function of tensors (e.g. a layer's `call`, or a block of layers).

    Returns:
        the wrapped function.

    Example:
        >>> block = keras.remat(lambda x: dense2(dense1(x)))
        >>> with keras.GradientTape() as tape:
        ...     loss = keras.ops.sum(block(x))
    """
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if not _tape._active:
            return f(*args, **kwargs)
        saved = _suspended_tapes()
        try:
            with GradientTape(watch_accessed_variables=True) as probe:
                outputs = f(*args, **kwargs)  # learns which variables f reads
            variables = [v for v in probe.watched_variables() if isinstance(v, Variable)]
            del probe  # the intermediates are dropped here
        finally:
            _tape._active[:] = saved
        arguments = [a for a in tree.flatten([list(args), kwargs]) if isinstance(a, Tensor)
                     and not isinstance(a, Variable)]
        inputs = tuple(arguments + [v for v in variables
                                    if not any(v is a for a in arguments)])
        flat = [Tensor(o._value, o._device) for o in tree.flatten(outputs)]

        def backward(grads):
            grads = grads if len(flat) > 1 else [grads]
            with GradientTape(watch_accessed_variables=False) as again:
                for x in inputs:
                    again.watch(x)
                recomputed = tree.flatten(f(*args, **kwargs))
            result = again.gradient(recomputed, list(inputs), output_gradients=list(grads))
            return list(result)

        _tape.record(f"remat({getattr(f, '__name__', 'f')})", inputs, tuple(flat), backward)
        return tree.pack_sequence_as(outputs, flat)
    return wrapped
