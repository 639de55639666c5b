"""`keras.ops.jvp`: forward-mode Jacobian-vector products, from two reverse passes.

kerasish's tape is reverse-mode. The vector-Jacobian product `u -> J^T u` is
linear in `u` and, since every backward is written with ops, recorded by an
outer tape; differentiating `<J^T u, t>` with respect to `u` gives `J t`
(the "double-VJP" construction). Its cost is about two backward passes.
"""
from kerasish.autodiff.keras_tensor import KerasTensor, any_symbolic, tracing
from kerasish.autodiff.tape import GradientTape
from kerasish.ops import core, creation, elementwise, reduction
from kerasish.utils import tree


def jvp(fun, primals, tangents, has_aux=False):
    """The Jacobian of `fun` at `primals` applied to `tangents`, as Keras's `ops.jvp`.

    Args:
        fun: a function of `len(primals)` positional arguments returning a tensor
            (or a structure of them; with `has_aux`, a pair `(output, aux)`).
        primals: tuple or list of the arguments (tensors, scalars or structures).
        tangents: the same structure and shapes as `primals`, cast to their dtypes.
        has_aux: whether `fun` also returns auxiliary data.

    Returns:
        `(primals_out, tangents_out)`, or `(primals_out, tangents_out, aux)` with
        `has_aux`; `tangents_out` has the structure of `primals_out` (None for an
        output that does not depend on the primals, as TensorFlow).

    Example:
        >>> out, tangent = ops.jvp(ops.sin, (ops.convert_to_tensor(0.1),),
        ...                        (ops.convert_to_tensor(0.2),))
        >>> float(tangent)   # 0.2 * cos(0.1)
        0.19900084
    """
    if not isinstance(primals, (list, tuple)) or not isinstance(tangents, (list, tuple)):
        raise ValueError("ops.jvp: `primals` and `tangents` must be tuples or lists of the "
                         f"function's arguments. Received: primals={type(primals).__name__}, "
                         f"tangents={type(tangents).__name__}")
    if any_symbolic(primals, tangents):
        return _symbolic_jvp(fun, primals, has_aux)
    primal_flat = [core.convert_to_tensor(p) for p in tree.flatten(primals)]
    tangent_flat = tree.flatten(tangents)
    if len(tangent_flat) != len(primal_flat):
        raise ValueError("ops.jvp: `tangents` must have the structure of `primals`: "
                         f"{len(tangent_flat)} tangents for {len(primal_flat)} primals.")
    tangent_flat = [core.cast(core.convert_to_tensor(t), p.dtype)
                    for t, p in zip(tangent_flat, primal_flat)]
    for p, t in zip(primal_flat, tangent_flat):
        if tuple(p.shape) != tuple(t.shape):
            raise ValueError(f"ops.jvp: a tangent of shape {tuple(t.shape)} was given for a "
                             f"primal of shape {tuple(p.shape)}; the shapes must match.")
    args = tree.pack_sequence_as(list(primals), primal_flat)
    with GradientTape(persistent=True) as outer:
        with GradientTape(persistent=True) as inner:
            for p in primal_flat:
                inner.watch(p)
            result = fun(*args)
        outputs, aux = result if has_aux else (result, None)
        out_flat = [core.convert_to_tensor(o) for o in tree.flatten(outputs)]
        cotangents = [creation.zeros_like(o) for o in out_flat]
        for u in cotangents:
            outer.watch(u)
        vjps = inner.gradient(out_flat, primal_flat, output_gradients=cotangents,
                              unconnected_gradients="zero")
        pairing = None
        for g, t in zip(vjps, tangent_flat):
            term = reduction.sum(elementwise.multiply(g, core.cast(t, g.dtype)))
            pairing = term if pairing is None else elementwise.add(pairing, term)
    tangents_out = outer.gradient(pairing, cotangents)
    tangents_out = [None if g is None else core.cast(g, o.dtype)
                    for g, o in zip(tangents_out, out_flat)]
    tangents_out = tree.pack_sequence_as(outputs, tangents_out)
    return (outputs, tangents_out, aux) if has_aux else (outputs, tangents_out)


def _symbolic_jvp(fun, primals, has_aux):
    """Output specs: `fun` traced on the KerasTensors; tangents shaped like the outputs."""
    with tracing():
        result = fun(*primals)
    outputs, aux = result if has_aux else (result, None)
    tangents_out = tree.map_structure(
        lambda o: KerasTensor(tuple(o.shape), o.dtype) if hasattr(o, "shape") else o, outputs)
    return (outputs, tangents_out, aux) if has_aux else (outputs, tangents_out)
