"""Whether a step of Keras's compiled functions is running.

Keras on TensorFlow traces `fit`, `evaluate`, `predict` and the `*_on_batch`
methods into graphs (unless `run_eagerly`), and TensorFlow's graph rewrites
then change a few kernels: a Dense layer's bias and activation fuse into its
product, whose sigmoid/tanh/elu/silu are oneDNN's rather than Eigen's
(docs/fidelity.md); an optimizer built there builds as in a traced step. The
trainers mark their steps; layers and optimizers read the mark. One flag for
the process, as the steps of a distribution strategy's replicas run on
threads.
"""
import contextlib
import weakref

_state = {"active": False}
# Dense outputs (product plus bias, linear) made in a compiled step, by id, and
# the fused activations (name -> function) that `ops/graph_activations.py` registers
_bias_add_outputs = weakref.WeakValueDictionary()
_fused_activations = {}


@contextlib.contextmanager
def compiled_step(active=True):
    """Marks the code run inside as a step of a Keras compiled function.

    Args:
        active: False for `run_eagerly` models (the mark is then cleared inside).

    Example:
        >>> with compiled_step():
        ...     active()
        True
    """
    previous, _state["active"] = _state["active"], bool(active)
    try:
        yield
    finally:
        _state["active"] = previous


def active():
    """True inside a step of `fit`/`evaluate`/`predict` that Keras would trace."""
    return _state["active"]


def mark_bias_add(out):
    """Records `out` as a Dense layer's product plus bias made in a compiled step.

    Args:
        out: the layer's output (its activation linear).
    """
    _bias_add_outputs[id(out)] = out


def register_fused_activation(name, fn):
    """Registers `fn` as activation `name` fused after a product plus bias.

    Args:
        name: "sigmoid", "tanh", "elu" or "silu".
        fn: the fused activation (`ops/graph_activations.py`).
    """
    _fused_activations[name] = fn


def fused_activation(name, x):
    """Activation `name` of `x` as TensorFlow's graph computes it when `x` is a Dense
    product plus bias (`mark_bias_add`) in the running compiled step: its rewrite
    fuses the activation into the product whether it is the layer's own or
    applied after it (an `Activation` layer, `keras.activations.*`, `keras.ops.*`).

    Args:
        name: the activation's name.
        x: its input.

    Returns:
        the fused result, or None where TensorFlow would not fuse (the eager op then).

    Example:
        >>> fused_activation("tanh", 1.0) is None
        True
    """
    if not _bias_add_outputs or _bias_add_outputs.get(id(x)) is not x or not _state["active"]:
        return None
    fn = _fused_activations.get(name)
    return None if fn is None else fn(x)
