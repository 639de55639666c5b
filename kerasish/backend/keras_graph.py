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

_state = {"active": False}


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
