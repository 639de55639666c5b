"""Products: matmul, dot, tensordot, einsum, outer, vdot, inner, and norms."""
import sys
import string

import numpy as np

from kerasish.autodiff import capture as _capture, tape as _tape
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op, broadcast_shapes
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config
from kerasish.backend.config import is_float_array
from kerasish.backend.kernels import onednn_gemm
from kerasish.backend.dtypes import result_type
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor, operands as _operands
from kerasish.ops.symbolic import keras_op


def _product_dtype(*arrays):
    """Keras's dtype for products: promoted, but int8 x int8 accumulates in int32."""
    names = {config.standardize_dtype(a.dtype) for a in arrays}
    if names == {"int8"}:
        return np.dtype("int32")
    return config.to_numpy_dtype(result_type(*names)) if len(names) > 1 else arrays[0].dtype


def _cast_all(arrays, dtype):
    return [a if a.dtype == dtype else a.astype(dtype) for a in arrays]


def _matmul_shapes_ok(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return False
    k_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    return a.shape[-1] == k_b


@keras_op
def matmul(x1, x2):
    """Matrix product with numpy's matmul semantics (batched, 1-D promotion).

    Args:
        x1: (..., n, k) or (k,).
        x2: (..., k, m) or (k,).

    Returns:
        Tensor (..., n, m).

    Example:
        >>> ops.matmul(ops.ones((2, 3)), ops.ones((3, 4))).shape
        (2, 4)
    """
    t1, t2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if t1.__class__ is KerasTensor or t2.__class__ is KerasTensor:
        return _symbolic_matmul(t1, t2)
    (a, b), (t1, t2), dev = _operands("matmul", t1, t2)
    if not _matmul_shapes_ok(a, b):
        raise ValueError(
            f"ops.matmul: incompatible inputs {core.describe(a, b)} (the last axis of x1 "
            "must equal the second-to-last axis of x2).")
    if a.dtype != b.dtype or a.dtype.itemsize == 1:
        a, b = _cast_all((a, b), _product_dtype(a, b))
    try:
        value = onednn_gemm.matmul(dev.xp, a, b)   # 2-D float32: TensorFlow's sgemm order
    except ValueError as err:
        raise ValueError(f"ops.matmul: batch shapes do not broadcast for inputs "
                         f"{core.describe(a, b)} ({err}).") from None
    if value.dtype != a.dtype:  # numpy multiplies bfloat16 into float32; Keras keeps it
        value = value.astype(a.dtype)
    out = Tensor(value, dev)
    if _tape._active:
        _tape.record_pair("matmul", _MATMUL_VJP, t1, t2, out)
    if _capture.tracer is not None:
        dtype = a.dtype
        _capture.hook_pair(_matmul_raw, None, dev, (t1, t2), (a, b), out,
                           lambda p, q: _cast_all((p, q), dtype))
    return out


def _matmul_raw(xp, a, b):
    return onednn_gemm.matmul(xp, a, b)
def _symbolic_matmul(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"ops.matmul: inputs must be at least 1-D; got {core.describe(a, b)}.")
    ka, kb = a.shape[-1], b.shape[0] if b.ndim == 1 else b.shape[-2]
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(
            f"ops.matmul: incompatible inputs {core.describe(a, b)} (the last axis of x1 "
            "must equal the second-to-last axis of x2).")
    shape, _ = _MATMUL.compute_output_spec((a.shape, a.dtype), (b.shape, b.dtype))
    return KerasTensor(shape, _product_dtype_name(a.dtype, b.dtype))


def _product_dtype_name(*names):
    """`_product_dtype` on dtype names."""
    names = {config.standardize_dtype(n) for n in names}
    if names == {"int8"}:
        return "int32"
    return result_type(*names) if len(names) > 1 else names.pop()


class MatMul(Op):
    """numpy matmul of two same-dtype arrays; saves the pair layout `(None, None, a, b, out)`."""

    name = "matmul"

    def forward(self, device, a, b):
        out = onednn_gemm.matmul(device.xp, a, b)
        # numpy multiplies bfloat16 into float32; Keras keeps the inputs' dtype
        return out if out.dtype == a.dtype else out.astype(a.dtype)

    def save(self, inputs, outputs):
        return None, None, inputs[0], inputs[1], outputs[0]

    def backward(self, saved, needs, g):
        return _matmul_grads(g, saved[2], saved[3], needs[0], needs[1])

    def compute_output_spec(self, spec_a, spec_b):
        (sa, dtype), (sb, _) = spec_a, spec_b
        a2 = (1,) + tuple(sa) if len(sa) == 1 else tuple(sa)
        b2 = tuple(sb) + (1,) if len(sb) == 1 else tuple(sb)
        shape = broadcast_shapes(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
        if len(sa) == 1:
            shape = shape[:-2] + shape[-1:]
        if len(sb) == 1:
            shape = shape[:-1]
        return shape, dtype


_MATMUL = MatMul()
_MATMUL_VJP = _MATMUL.backward


def _matmul_grads(g, a, b, need_a=True, need_b=True):
    a2 = shape_ops.reshape(a, (1, a.shape[0])) if a.ndim == 1 else a
    b2 = shape_ops.reshape(b, (b.shape[0], 1)) if b.ndim == 1 else b
    full = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]) + (a2.shape[-2], b2.shape[-1])
    g2 = shape_ops.reshape(g, full)
    ga = gb = None
    if need_a and is_float_array(a._value):
        ga = shape_ops.reshape(ew.fit_gradient(matmul(g2, shape_ops.swapaxes(b2, -1, -2)), a2), a.shape)
    if need_b and is_float_array(b._value):
        gb = shape_ops.reshape(ew.fit_gradient(matmul(shape_ops.swapaxes(a2, -1, -2), g2), b2), b.shape)
    return ga, gb


@keras_op
def dot(x1, x2):
    """numpy.dot: matmul for >=1-D inputs, multiply for scalars.

    Example:
        >>> ops.dot(ops.ones(3), ops.ones(3))   # 3.0
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim == 0 or b.ndim == 0:
        return ew.multiply(a, b)
    if b.ndim <= 2:
        return _in_result_type(matmul(a, b), a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def _in_result_type(out, a, b):
    """`out` (a matmul of `a` and `b`) cast to the inputs' result type: Keras's
    dot/vdot/inner/tensordot keep int8 as int8, where matmul gives int32."""
    dtype = result_type(a.dtype, b.dtype)
    return out if out.dtype == dtype else core.cast(out, dtype)


@keras_op
def vdot(x1, x2):
    """Dot product of the flattened inputs.

    Example:
        >>> ops.vdot(ops.ones((2, 2)), ops.ones((2, 2)))   # 4.0
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    return _in_result_type(matmul(shape_ops.ravel(a), shape_ops.ravel(b)), a, b)


@keras_op
def inner(x1, x2):
    """Sum product over the last axes (numpy.inner).

    Example:
        >>> ops.inner(ops.ones(3), ops.ones(3))   # 3.0
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim == 0 or b.ndim == 0:
        return ew.multiply(a, b)
    if a.__class__ is KerasTensor or b.__class__ is KerasTensor:
        d1, d2 = a.shape[-1], b.shape[-1]
        if d1 is not None and d2 is not None and d1 != d2:
            raise ValueError("`inner` requires the last dimension of `x1` and `x2` to match. "
                             f"Received: x1.shape={tuple(a.shape)}, x2.shape={tuple(b.shape)}.")
        return KerasTensor(tuple(a.shape[:-1]) + tuple(b.shape[:-1]),
                           result_type(a.dtype, b.dtype))
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


@keras_op
def tensordot(x1, x2, axes=2):
    """Sums products over the given axes (numpy.tensordot), via transpose + matmul.

    Example:
        >>> ops.tensordot(ops.ones((2, 3)), ops.ones((3, 4)), axes=1).shape
        (2, 4)
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if isinstance(axes, int):
        axes_a = list(range(a.ndim - axes, a.ndim))
        axes_b = list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
        axes_a = [i % a.ndim for i in axes_a]
        axes_b = [i % b.ndim for i in axes_b]
    sizes_a = [a.shape[i] for i in axes_a]
    sizes_b = [b.shape[i] for i in axes_b]
    if a.__class__ is KerasTensor or b.__class__ is KerasTensor:
        # Keras's rule: axes given as lists are compared (None matches any size); an
        # integer `axes` is not
        if not isinstance(axes, int) and (len(sizes_a) != len(sizes_b) or any(
                m is not None and n is not None and m != n for m, n in zip(sizes_a, sizes_b))):
            raise ValueError("Shape mismatch on `x1[axes[0]]` and `x2[axes[1]]`, received "
                             f"{sizes_a} and {sizes_b}.")
        shape = tuple(a.shape[i] for i in range(a.ndim) if i not in axes_a) + \
            tuple(b.shape[i] for i in range(b.ndim) if i not in axes_b)
        return KerasTensor(shape, result_type(a.dtype, b.dtype))
    if sizes_a != sizes_b:
        raise ValueError(f"ops.tensordot: contracted axes differ in size ({sizes_a} vs "
                         f"{sizes_b}) for inputs {core.describe(a, b)}.")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = int(np.prod(sizes_a))
    a2 = shape_ops.reshape(shape_ops.transpose(a, free_a + axes_a), (-1, k))
    b2 = shape_ops.reshape(shape_ops.transpose(b, axes_b + free_b), (k, -1))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return shape_ops.reshape(_in_result_type(matmul(a2, b2), a, b), out_shape)


@keras_op
def outer(x1, x2):
    """Outer product of two flattened tensors.

    Example:
        >>> ops.outer(ops.ones(2), ops.ones(3)).shape
        (2, 3)
    """
    a = shape_ops.reshape(convert_to_tensor(x1), (-1, 1))
    b = shape_ops.reshape(convert_to_tensor(x2), (1, -1))
    return ew.multiply(a, b)


def _einsum_specs(subscripts, count):
    """(the operands' specs, the output spec) of `subscripts` for `count` operands; an
    implicit output is the letters used once, in order (after '...' if any is used)."""
    inputs_spec, arrow, output_spec = subscripts.replace(" ", "").partition("->")
    specs = inputs_spec.split(",")
    if len(specs) != count:
        raise ValueError(f"ops.einsum: {subscripts!r} names {len(specs)} operands but "
                         f"{count} were given.")
    if not arrow:
        letters = [c for c in inputs_spec if c.isalpha()]
        output_spec = ("..." if "..." in inputs_spec else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    return specs, output_spec


def _expand_ellipsis(subscripts, tensors):
    """Rewrites '...' as explicit letters, broadcasting operands' ellipsis dims.

    Returns:
        (input specs, output spec, tensors broadcast where their ellipsis dims differ).
    """
    specs, output_spec = _einsum_specs(subscripts, len(tensors))
    if "..." not in subscripts:
        return specs, output_spec, list(tensors)
    free = [c for c in string.ascii_letters if c not in subscripts]
    ranks = [t.ndim - len(s.replace("...", "")) if "..." in s else 0 for s, t in zip(specs, tensors)]
    width = max(ranks)
    # the ellipsis may sit anywhere in a spec: its dims start after the letters before it
    starts = [len(s.split("...")[0]) for s in specs]
    batch = np.broadcast_shapes(*[t.shape[p:p + r] if "..." in s else ()
                                  for s, t, r, p in zip(specs, tensors, ranks, starts)])
    letters = "".join(free[:width])
    new_specs, new_tensors = [], []
    for s, t, r, p in zip(specs, tensors, ranks, starts):
        if "..." in s:
            if t.shape[p:p + r] != batch[width - r:]:
                head, tail = t.shape[:p], t.shape[p + r:]
                t = shape_ops.reshape(t, head + (1,) * (width - r) + t.shape[p:])
                t = shape_ops.broadcast_to(t, head + batch + tail)
                r = width
            s = s.replace("...", letters[width - r:])
        new_specs.append(s)
        new_tensors.append(t)
    return new_specs, output_spec.replace("...", letters), new_tensors


@keras_op
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation (numpy.einsum, '...' allowed); each gradient is an einsum too.

    Args:
        subscripts: e.g. "ij,jk->ik" or "...ij,...jk->...ik".
        *operands: the tensors.
        **kwargs: accepted for Keras compatibility (e.g. `optimize`), unused.

    Returns:
        Tensor.

    Example:
        >>> ops.einsum("ij,jk->ik", ops.ones((2, 3)), ops.ones((3, 4))).shape
        (2, 4)
    """
    tensors = [convert_to_tensor(t) for t in operands]
    if KerasTensor in map(type, tensors):
        return _symbolic_einsum(subscripts, tensors)
    specs, output_spec, tensors = _expand_ellipsis(subscripts, tensors)
    values, tensors, dev = _operands("einsum", *tensors)
    try:
        return Einsum(specs, output_spec)(*tensors)
    except ValueError as err:
        raise ValueError(f"ops.einsum: {subscripts!r} does not fit operands "
                         f"{core.describe(*values)} ({err}).") from None


def _symbolic_einsum(subscripts, tensors):
    """einsum's output spec, by Keras's rule: each operand's shape is laid out on the
    output's letters (its '...' dims on the output's '...', 1 for a letter it lacks)
    and the layouts are broadcast, None standing for an unknown size. Sizes of
    summed letters are not compared (Keras does not either)."""
    specs, output_spec = _einsum_specs(subscripts, len(tensors))
    layouts = []
    for spec, t in zip(specs, tensors):
        shape = tuple(t.shape)
        head, dots, tail = spec.partition("...")
        if not dots and len(shape) != len(spec):
            raise ValueError(
                "Number of dimensions in the subscript does not match the number of "
                f"dimensions in the operand, received subscript `{spec}` and operand of "
                f"shape {list(shape)}.")
        sizes = dict(zip(head, shape[:len(head)]))
        sizes.update(zip(tail, shape[len(shape) - len(tail):]))
        wildcard = shape[len(head):len(shape) - len(tail)] if dots else ()
        layout = []
        for part in output_spec.split("..."):
            layout.append([sizes.get(c, 1) for c in part])
        joined = layout[0]
        for part in layout[1:]:
            joined = joined + list(wildcard) + part
        layouts.append(joined)
    shape = []
    width = max(len(s) for s in layouts)
    for k in range(width):
        dims = [s[len(s) - width + k] for s in layouts if len(s) - width + k >= 0]
        shape.append(_broadcast_dim(dims, subscripts))
    return KerasTensor(tuple(shape), _product_dtype_name(*[t.dtype for t in tensors]))


def _broadcast_dim(dims, subscripts):
    """Keras's broadcast of one dimension: 1 yields, None is unknown, sizes must agree."""
    out = 1
    for d in dims:
        if d == 1:
            continue
        if out == 1 or out is None:
            out = d if d is not None or out == 1 else out
        elif d is not None and d != out:
            raise ValueError(f"ops.einsum: cannot broadcast sizes {out} and {d} in "
                             f"{subscripts!r}.")
    return out


class Einsum(Op):
    """numpy.einsum of operands cast to their product dtype; each gradient is an einsum."""

    name = "einsum"

    def __init__(self, specs, output_spec):
        self.specs, self.output_spec = specs, output_spec

    def forward(self, device, *values):
        dtype = _product_dtype(*values)
        # numpy's einsum has no bfloat16 loop: compute in float32, cast back (as Keras)
        compute = np.dtype("float32") if config.standardize_dtype(dtype) == "bfloat16" else dtype
        values = _cast_all(values, compute)
        expr = ",".join(self.specs) + "->" + self.output_spec
        out = device.xp.einsum(expr, *values, optimize=len(values) > 2)
        return out if out.dtype == dtype else out.astype(dtype)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, g):
        return _einsum_grads(g, self.specs, self.output_spec, saved, needs)


def _einsum_grads(g, specs, output_spec, tensors, needs):
    grads = []
    for i, t in enumerate(tensors):
        if not needs[i]:
            grads.append(None)
            continue
        others = [tensors[j] for j in range(len(tensors)) if j != i]
        other_specs = [specs[j] for j in range(len(specs)) if j != i]
        spec_in = specs[i]
        if len(set(spec_in)) != len(spec_in):
            raise NotImplementedError(
                f"ops.einsum: no gradient for operand {i} with a repeated letter "
                f"({spec_in!r}, a trace/diagonal); use ops.diagonal or ops.trace instead.")
        summed = "".join(c for c in spec_in if c not in output_spec
                         and all(c not in s for s in other_specs))
        target = "".join(c for c in spec_in if c not in summed)
        gi = einsum(",".join([output_spec] + other_specs) + "->" + target, g, *others)
        for axis, c in enumerate(spec_in):
            if c in summed:
                gi = shape_ops.expand_dims(gi, axis)
        grads.append(ew.fit_gradient(shape_ops.broadcast_to(gi, t.shape), t))
    return grads


@keras_op
def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norm, with Keras's (TensorFlow backend's) rules.

    One axis (`axis` an int, or None on a vector): `ord` None/2 (Euclidean),
    inf, -inf, 0 (count of non-zeros) or any other number p. Two axes (None on
    a matrix, or a pair): None/"fro", "nuc", 1/-1 (max/min column sum of
    absolute values), inf/-inf (max/min row sum), 2/-2 (largest/smallest
    singular value). int64 inputs give floatx, other ints their float type.

    Example:
        >>> ops.norm(ops.convert_to_tensor([3.0, 4.0]))   # 5.0
        >>> ops.norm(ops.convert_to_tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)   # 6.0
    """
    x = core.convert_to_tensor(x)
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else (axis,) if isinstance(axis, int) \
        else tuple(axis)
    if any(a < -ndim or a >= ndim for a in axes):
        raise ValueError("All `axis` values must be in the range [-ndim, ndim). "
                         f"Received inputs with ndim={ndim}, while axis={axes}")
    dtype = config.floatx() if x.dtype == "int64" else result_type(x.dtype, float)
    x = core.cast(x, dtype)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"Invalid axis values. Received: axis={axes}")


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or (not isinstance(ord, str) and ord == 2):
        return ew.sqrt(reduction.sum(ew.square(x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
    if ord == float("inf"):
        return reduction.max(ew.absolute(x), axis=axis, keepdims=keepdims)
    if ord == float("-inf"):
        return reduction.min(ew.absolute(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return reduction.sum(core.cast(ew.not_equal(x, 0), x.dtype), axis=axis, keepdims=keepdims)
    p = core.convert_to_tensor(ord, dtype=x.dtype)
    powered = reduction.sum(ew.power(ew.absolute(x), p), axis=axis, keepdims=keepdims)
    return ew.power(powered, ew.divide(1.0, p))


def _matrix_norm(x, ord, axes, keepdims):
    ndim = x.ndim
    row, col = (a + ndim if a < 0 else a for a in axes)
    if ord is None or ord == "fro":
        return ew.sqrt(reduction.sum(ew.square(x), axis=axes, keepdims=keepdims))
    if ord in (1, -1, float("inf"), float("-inf")) and not isinstance(ord, bool):
        # 1: reduce the rows first (column sums); inf: the columns first (row sums)
        first, second = (row, col) if ord in (1, -1) else (col, row)
        if not keepdims and second > first:
            second -= 1
        sums = reduction.sum(ew.absolute(x), axis=first, keepdims=keepdims)
        pick = reduction.max if ord in (1, float("inf")) else reduction.min
        return pick(sums, axis=second, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        moved = shape_ops.moveaxis(x, (row, col), (-2, -1))
        singular = sys.modules["kerasish.ops.decompositions"].svd(moved, compute_uv=False)
        pick = {2: reduction.max, -2: reduction.min, "nuc": reduction.sum}[ord]
        out = pick(singular, axis=-1)
        if keepdims:  # as Keras: at the axes as given (negative ones count from the end)
            out = shape_ops.expand_dims(shape_ops.expand_dims(out, axes[0]), axes[1])
        return out
    raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")


# `keras.ops.linalg` is a Keras namespace too: its names that live elsewhere in kerasish.ops are
# looked up there on access (so this module serves as the namespace without copies).
_KERAS_NAMES = frozenset((
    'cholesky', 'cholesky_inverse', 'det', 'eig', 'eigh', 'inv', 'jvp', 'lstsq',
    'lu_factor', 'matrix_rank', 'norm', 'pinv', 'qr', 'solve', 'solve_triangular', 'svd'
))


def __getattr__(name):
    flat = sys.modules["kerasish.ops"]
    if name in _KERAS_NAMES and name != "__getattr__" and hasattr(flat, name):
        return getattr(flat, name)
    raise AttributeError(f"module 'kerasish.ops.linalg' has no attribute {name!r}")
