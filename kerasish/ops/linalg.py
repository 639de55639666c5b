"""Products: matmul, dot, tensordot, einsum, outer, and norms."""
import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import elementwise as ew, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor, operands


def _matmul_shapes_ok(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return False
    k_a = a.shape[-1]
    k_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    return k_a == k_b


def matmul(x1, x2):
    """Matrix product with numpy's matmul semantics (batched, 1-D promotion).

    Example:
        >>> ops.matmul(ops.ones((2, 3)), ops.ones((3, 4))).shape
        (2, 4)
    """
    (a, b), (t1, t2), dev = operands("matmul", convert_to_tensor(x1), convert_to_tensor(x2))
    if not _matmul_shapes_ok(a, b):
        raise ValueError(
            f"ops.matmul: incompatible shapes {tuple(a.shape)} and {tuple(b.shape)} "
            "(the last axis of x1 must equal the second-to-last axis of x2)."
        )
    out = Tensor(dev.xp.matmul(a, b), dev)
    if _tape._active and (t1._value.dtype.kind == "f" or t2._value.dtype.kind == "f"):
        _tape.record("matmul", (t1, t2), (out,), lambda g: _matmul_grads(g, t1, t2))
    return out


def _matmul_grads(g, a, b):
    a2 = shape_ops.expand_dims(a, 0) if a.ndim == 1 else a
    b2 = shape_ops.expand_dims(b, -1) if b.ndim == 1 else b
    g2 = g
    if a.ndim == 1:
        g2 = shape_ops.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = shape_ops.expand_dims(g2, -1)
    ga = matmul(g2, shape_ops.swapaxes(b2, -1, -2))
    gb = matmul(shape_ops.swapaxes(a2, -1, -2), g2)
    ga = ew.unbroadcast(ga, a2.shape)
    gb = ew.unbroadcast(gb, b2.shape)
    return (shape_ops.reshape(ga, a.shape), shape_ops.reshape(gb, b.shape))


def dot(x1, x2):
    """numpy.dot: matmul for >=1-D inputs, multiply for scalars."""
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim == 0 or b.ndim == 0:
        return ew.multiply(a, b)
    if b.ndim <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def tensordot(x1, x2, axes=2):
    """Sums products over the given axes (numpy.tensordot), via transpose + matmul."""
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if isinstance(axes, int):
        axes_a = list(range(a.ndim - axes, a.ndim))
        axes_b = list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, int) else [i % a.ndim for i in axes_a]
        axes_b = [axes_b] if isinstance(axes_b, int) else [i % b.ndim for i in axes_b]
        axes_a = [i % a.ndim for i in axes_a]
        axes_b = [i % b.ndim for i in axes_b]
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = int(np.prod([a.shape[i] for i in axes_a]))
    if k != int(np.prod([b.shape[i] for i in axes_b])):
        raise ValueError(f"ops.tensordot: contracted sizes differ for shapes {a.shape} and {b.shape}.")
    a2 = shape_ops.reshape(shape_ops.transpose(a, free_a + axes_a), (-1, k))
    b2 = shape_ops.reshape(shape_ops.transpose(b, axes_b + free_b), (k, -1))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return shape_ops.reshape(matmul(a2, b2), out_shape)


def outer(x1, x2):
    """Outer product of two flattened tensors."""
    a = shape_ops.reshape(convert_to_tensor(x1), (-1, 1))
    b = shape_ops.reshape(convert_to_tensor(x2), (1, -1))
    return ew.multiply(a, b)


def einsum(subscripts, *operands_):
    """Einstein summation (numpy.einsum); the gradient of each operand is an einsum too.

    Example:
        >>> ops.einsum("ij,jk->ik", a, b)
    """
    values, tensors, dev = operands("einsum", *operands_)
    inputs_spec, _, output_spec = subscripts.replace(" ", "").partition("->")
    specs = inputs_spec.split(",")
    if "..." in subscripts:
        raise NotImplementedError("ops.einsum: ellipsis subscripts are not supported yet.")
    if not output_spec and "->" not in subscripts:
        letters = [c for c in inputs_spec if c.isalpha()]
        output_spec = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    out = Tensor(dev.xp.einsum(subscripts, *values, optimize=True), dev)
    if _tape._active and any(t._value.dtype.kind == "f" for t in tensors):
        def backward(g):
            grads = []
            for i, t in enumerate(tensors):
                others = [tensors[j] for j in range(len(tensors)) if j != i]
                other_specs = [specs[j] for j in range(len(specs)) if j != i]
                summed = "".join(c for c in specs[i] if c not in output_spec
                                 and all(c not in s for s in other_specs))
                spec_in = specs[i]
                target = "".join(c for c in spec_in if c not in summed)
                expr = ",".join([output_spec] + other_specs) + "->" + _dedupe(target)
                gi = einsum(expr, g, *others)
                grads.append(_expand_einsum_grad(gi, spec_in, target, t.shape))
            return grads
        _tape.record("einsum", tuple(tensors), (out,), backward)
    return out


def _dedupe(spec):
    seen = []
    for c in spec:
        if c not in seen:
            seen.append(c)
    return "".join(seen)


def _expand_einsum_grad(g, spec_in, target, shape):
    """Broadcasts back over axes summed away inside one operand and over repeated letters."""
    if spec_in == target and len(set(spec_in)) == len(spec_in):
        return g
    if len(set(spec_in)) != len(spec_in):
        raise NotImplementedError("ops.einsum: gradient with repeated letters in one operand (traces).")
    present = _dedupe(target)
    for axis, c in enumerate(spec_in):
        if c not in present:
            g = shape_ops.expand_dims(g, axis)
    return shape_ops.broadcast_to(g, shape)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector 2-norm (default), 1-norm or max-norm along `axis`; Frobenius for matrices."""
    x = convert_to_tensor(x)
    if ord in (None, 2, "fro", "euclidean"):
        return ew.sqrt(reduction.sum(ew.square(x), axis=axis, keepdims=keepdims))
    if ord == 1:
        return reduction.sum(ew.absolute(x), axis=axis, keepdims=keepdims)
    if ord in (np.inf, "inf"):
        return reduction.max(ew.absolute(x), axis=axis, keepdims=keepdims)
    raise NotImplementedError(f"ops.norm: ord={ord!r} is not supported.")
