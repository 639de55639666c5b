"""`keras.remat`: gradient checkpointing. The wrapped function's intermediate results are
not kept for the backward pass; it runs again when its gradient is needed."""
import collections
import functools
import threading

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


_MODES = ("full", "activations", "larger_than", "list_of_layers", None)
_scopes = threading.local()

RematMode = collections.namedtuple("RematMode", ["mode", "output_size_threshold",
                                                 "layer_names"])


class RematScope:
    """Makes the layers created inside it rematerialize their `call` (`keras.remat`).

    As in Keras 3.15.1, a layer takes the innermost scope active when it is
    constructed, and its calls then run through `keras.remat` according to
    `mode`: "full" (every call), "activations" (only the layer's `activation`),
    "larger_than" (calls whose outputs hold more than `output_size_threshold`
    values, unknown sizes counting 1), "list_of_layers" (layers named in
    `layer_names`) or None (no rematerialization). Results and gradients are
    unchanged; the forward pass runs again during the backward pass instead of
    keeping its intermediates.

    Args:
        mode: one of the modes above.
        output_size_threshold: size threshold of "larger_than".
        layer_names: names of the layers of "list_of_layers".

    Example:
        >>> with keras.RematScope(mode="full"):
        ...     dense = keras.layers.Dense(8)
        >>> dense._remat_mode.mode
        'full'
    """

    def __init__(self, mode="full", output_size_threshold=1024, layer_names=None):
        if mode not in _MODES:
            raise ValueError(f"Invalid mode '{mode}'. Supported modes are: 'full', "
                             "'activations', 'larger_than', 'list_of_layers', or  None.")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = layer_names or []
        self._pop_on_exit = False

    def __enter__(self):
        _stack().append(self)
        self._pop_on_exit = True
        return self

    def __exit__(self, *exc):
        if self._pop_on_exit:
            _stack().pop()


def _stack():
    if not hasattr(_scopes, "stack"):
        _scopes.stack = []
    return _scopes.stack


def get_current_remat_mode():
    """The innermost active `RematScope` as a `RematMode`, or None outside any scope."""
    stack = _stack()
    if not stack:
        return None
    scope = stack[-1]
    return RematMode(scope.mode, scope.output_size_threshold, scope.layer_names)
