"""Second-order gradient checks (float64, finite differences) for every differentiable Op.

Fused ops are checked through their public function: the check differentiates
their gradient Op (DenseGrad, ConvFilterGrad, ...) once more. A coverage test
fails when an Op subclass in kerasish has no case here.
"""
import importlib
import inspect

import numpy as np
import pytest

import kerasish
from kerasish import ops
from kerasish.autodiff import primitives
from kerasish.autodiff.op import Op
from kerasish.ops import core, crossentropy, elementwise, fused, indexing, layout, linalg, \
    manipulation, matrix, nn, normalization, pooling, reduction, rnn, segment, unary
from kerasish.testing import check_gradients, check_second_order
from kerasish.ops import adaptive_pooling, decompositions

# `kerasish.ops.conv` / `.softmax` are also op functions, which shadow the modules.
conv_ops = importlib.import_module("kerasish.ops.conv")
softmax = importlib.import_module("kerasish.ops.softmax")

RNG = np.random.default_rng(21)


def _uniform(low, high, shape=(2, 3)):
    return RNG.uniform(low, high, shape)


# Elementwise ops built by the factories: one case each, inputs inside the domain.
_DOMAINS = {"arccosh": (1.2, 1.9), "log": (0.3, 2.0), "log2": (0.3, 2.0), "log10": (0.3, 2.0),
            "sqrt": (0.3, 2.0), "rsqrt": (0.3, 2.0), "reciprocal": (0.3, 2.0),
            "power": (0.5, 1.5), "mod": (2.1, 2.9), "cbrt": (0.3, 2.0)}


def _elementwise_cases():
    cases = []
    for name in sorted(dir(ops)):
        fn = getattr(ops, name)
        the_op = getattr(fn, "op", None)
        if not isinstance(the_op, Op) or not the_op.differentiable or name in ("abs", "conj",
                                                                                  "true_divide"):
            continue
        low, high = _DOMAINS.get(name, (0.2, 0.9))
        if isinstance(the_op, elementwise.Binary):
            second = _uniform(1.0, 1.8) if name == "mod" else _uniform(low + 0.05, high + 0.05)
            cases.append(pytest.param(fn, [_uniform(low, high), second], id=name))
        else:
            cases.append(pytest.param(fn, [_uniform(low, high)], id=name))
    return cases


@pytest.mark.parametrize("fn, inputs", _elementwise_cases())
def test_elementwise_second_order(fn, inputs):
    check_second_order(lambda *xs: ops.multiply(fn(*xs), xs[0]), inputs)


def _rnn_inputs(gates, units=2, reset_after=False):
    x, h = RNG.standard_normal((2, 3, 2)), RNG.standard_normal((2, units))
    bias = RNG.standard_normal((2, gates * units)) if reset_after else \
        RNG.standard_normal(gates * units)
    return [x, RNG.standard_normal((2, gates * units)),
            RNG.standard_normal((units, gates * units)), bias, h]


_MASK = np.array([[True, True, False], [False, True, True]])


def _drop(count):  # dropout masks of a (2, 2) input or state: 0 or 1 / (1 - 0.4)
    return [(RNG.random((2, 2)) >= 0.4) / 0.6 for _ in range(count)]
_X4 = RNG.standard_normal((1, 4, 4, 2))

FUSED = [
    ("matmul", lambda a, b: ops.matmul(a, b), [RNG.standard_normal((2, 3)),
                                               RNG.standard_normal((3, 2))],
     {linalg.MatMul}),
    ("dense_relu", lambda x, w, b: ops.dense(x, w, b, "relu"),
     [RNG.standard_normal((3, 2)), RNG.standard_normal((2, 2)), RNG.standard_normal(2)],
     {fused.Dense, fused.DenseGrad}),
    ("dense_linear_3d", lambda x, w: ops.dense(x, w),
     [RNG.standard_normal((2, 2, 3)), RNG.standard_normal((3, 2))], {fused.Dense, fused.DenseGrad}),
    ("conv_bias_relu", lambda x, w, b: conv_ops.fused_conv(x, w, b, "relu", padding="same",
                                                           strides=2),
     [_X4, RNG.standard_normal((2, 2, 2, 2)), RNG.standard_normal(2)],
     {conv_ops.Conv, conv_ops.ConvGrad, conv_ops.ConvInputGrad, conv_ops.ConvFilterGrad,
      conv_ops.ReluMask}),
    ("conv_transpose", lambda x, w: ops.conv_transpose(x, w, strides=2),
     [_X4, RNG.standard_normal((2, 2, 3, 2))], {conv_ops.ConvInputGrad}),
    ("depthwise_conv", lambda x, w: ops.depthwise_conv(x, w, padding="same"),
     [_X4, RNG.standard_normal((2, 2, 2, 1))], {conv_ops.Conv}),
    ("max_pool", lambda x: ops.max_pool(x, 2, 1, padding="same"), [_X4],
     {pooling.MaxPool, pooling.MaxPoolRoute, pooling.MaxPoolGather}),
    ("average_pool", lambda x: ops.average_pool(x, 3, 2, padding="same"), [_X4],
     {pooling.AveragePool, pooling.AveragePoolSpread}),
    ("normalize_moments", lambda x, s, o: (lambda y, m, v: ops.add(
        ops.multiply(y, 1.5), ops.add(ops.multiply(m, 2.0), ops.multiply(v, v))))(
            *ops.normalize_moments(x, (0, 1), s, o)),
     [RNG.standard_normal((2, 2, 3)), RNG.standard_normal((1, 1, 3)),
      RNG.standard_normal((1, 1, 3))],
     {normalization.NormalizeMoments, normalization.NormalizeMomentsGrad}),
    ("normalize_moments_plain", lambda x: ops.normalize_moments(x, -1)[0] * x,
     [RNG.standard_normal((2, 3))], {normalization.NormalizeMoments}),
    ("softmax", lambda x: ops.softmax(x) * x, [RNG.standard_normal((2, 3))], {softmax.Softmax}),
    ("log_softmax", lambda x: ops.log_softmax(x, axis=0) * x, [RNG.standard_normal((2, 3))],
     {softmax.LogSoftmax}),
    ("categorical_crossentropy_logits",
     lambda z, t: ops.categorical_crossentropy(t, z, from_logits=True) * ops.sum(z),
     # targets on the simplex: there TensorFlow's logits gradient (which the op keeps)
     # is the exact derivative (test_crossentropy.py pins it off the simplex)
     [RNG.standard_normal((2, 3)), (lambda t: t / t.sum(-1, keepdims=True))(RNG.random((2, 3)))],
     {crossentropy.SoftmaxXent, crossentropy.SoftmaxXentGrad}),
    ("sparse_categorical_crossentropy_logits",
     lambda z: ops.sparse_categorical_crossentropy(np.array([2, 0]), z, from_logits=True)
     * ops.sum(z), [RNG.standard_normal((2, 3))],
     {crossentropy.SparseSoftmaxXent, crossentropy.SparseSoftmaxXentGrad}),
    ("lstm_sequence_masked_backwards",
     lambda x, k, r, b, h: (lambda o: ops.sum(o[0] ** 2) + ops.sum(o[3] * o[2]))(
         rnn.lstm_sequence(x, k, r, b, h, ops.multiply(h, 0.5), mask=_MASK, go_backwards=True)),
     _rnn_inputs(4), {rnn.Sequence, rnn.SequenceGrad}),
    ("gru_sequence_reset_after",
     lambda x, k, r, b, h: ops.sum(ops.sin(rnn.gru_sequence(x, k, r, b, h, mask=_MASK)[0])),
     _rnn_inputs(3, reset_after=True), {rnn.Sequence, rnn.SequenceGrad}),
    ("gru_sequence_reset_before",
     lambda x, k, r, b, h: ops.sum(rnn.gru_sequence(x, k, r, b, h, reset_after=False)[1] ** 2),
     _rnn_inputs(3), {rnn.Sequence, rnn.SequenceGrad}),
    ("lstm_sequence_dropout_per_gate",
     lambda x, k, r, b, h, d=(_drop(4), _drop(4)): ops.sum(ops.sin(rnn.lstm_sequence(
         x, k, r, b, h, ops.multiply(h, 0.5), mask=_MASK, dropout=d)[0])),
     _rnn_inputs(4), {rnn.Sequence, rnn.SequenceGrad}),
    ("gru_sequence_reset_after_dropout",
     lambda x, k, r, b, h, d=(_drop(1)[0], _drop(3)): ops.sum(ops.sin(rnn.gru_sequence(
         x, k, r, b, h, dropout=d)[0])),
     _rnn_inputs(3, reset_after=True), {rnn.Sequence, rnn.SequenceGrad}),
    ("gru_sequence_reset_before_dropout",
     lambda x, k, r, b, h, d=(_drop(3), _drop(3)): ops.sum(rnn.gru_sequence(
         x, k, r, b, h, reset_after=False, dropout=d)[0] ** 2),
     _rnn_inputs(3), {rnn.Sequence, rnn.SequenceGrad}),
    ("simple_rnn_sequence_dropout",
     lambda x, k, r, b, h, d=(_drop(1), _drop(1)): ops.sum(ops.sin(rnn.simple_rnn_sequence(
         x, k, r, b, h, dropout=d)[0])),
     _rnn_inputs(1), {rnn.Sequence, rnn.SequenceGrad}),
    ("simple_rnn_sequence",
     lambda x, k, r, b, h: ops.sum(ops.sin(rnn.simple_rnn_sequence(x, k, r, b, h)[0])),
     _rnn_inputs(1), {rnn.Sequence, rnn.SequenceGrad}),
    ("sum_mean", lambda x: ops.sum(x * x, axis=0) * ops.mean(x, axis=1, keepdims=True),
     [RNG.standard_normal((3, 3))], {reduction.Sum, reduction.Mean}),
    ("max_min", lambda x: ops.max(x * x, axis=1) + ops.min(x, axis=0),
     [RNG.standard_normal((3, 3))], {reduction.Extremum}),
    ("prod", lambda x: ops.prod(x, axis=1), [RNG.uniform(0.5, 1.5, (2, 3))], {reduction.Prod}),
    ("cumsum_cumprod", lambda x: ops.cumsum(x * x, axis=1) + ops.cumprod(x, axis=0),
     [RNG.uniform(0.5, 1.5, (3, 2))], {reduction.Cumsum, reduction.Cumprod}),
    ("transpose_broadcast_concatenate",
     lambda a, b: ops.concatenate([ops.transpose(a * a), ops.broadcast_to(b, (3, 2)) * b], axis=0),
     [RNG.standard_normal((2, 3)), RNG.standard_normal((1, 2))],
     {manipulation.Transpose, manipulation.BroadcastTo, manipulation.Concatenate}),
    ("tile_repeat_pad_flip_roll",
     lambda a: ops.roll(ops.flip(ops.pad(ops.repeat(ops.tile(a * a, (1, 2)), 2, axis=0),
                                         [[1, 0], [0, 2]]), 1), 1, axis=0),
     [RNG.standard_normal((2, 2))],
     {layout.Tile, layout.Repeat, layout.ConstantPad, layout.Flip, layout.Roll}),
    ("take_take_along_axis", lambda a: ops.take(a * a, [0, 2, 2], axis=1)
     * ops.take_along_axis(a, np.array([[1, 0, 0], [2, 2, 1]]), axis=1),
     [RNG.standard_normal((2, 3))],
     {indexing.Take, indexing.ScatterAdd, indexing.TakeAlongAxis, indexing.IndexAdd}),
    ("getitem_update", lambda a, u: ops.slice_update(a * a, [0, 1], u * u)[1:, ::2] * a[:1, [0, 2]],
     [RNG.standard_normal((2, 3)), RNG.standard_normal((1, 2))],
     {indexing.GetItem, indexing.IndexAdd, indexing.Update}),
    ("scatter_update_max_mul", lambda a, u: ops.scatter_update(a * a, [[2], [0], [2]], u * u,
                                                                reduction="max")
     * ops.scatter_update(a, [[1], [1], [0]], u, reduction="mul"),
     [RNG.uniform(0.5, 1.5, (3, 2)), RNG.uniform(0.5, 1.5, (3, 2))],
     {indexing.ScatterExtreme, indexing.Update, indexing.Take, indexing.ScatterAdd}),
    ("tril_triu", lambda a: ops.tril(a * a, -1) + ops.triu(a, 1) * a, [RNG.standard_normal((3, 3))],
     {matrix.Triangle}),
    ("inv_det_slogdet", lambda a: ops.inv(a) * ops.det(a) + ops.slogdet(a)[1] * a,
     [np.eye(3) * 2.0 + 0.3 * RNG.standard_normal((3, 3))],
     {matrix.Inv, matrix.Det, matrix.SlogDet}),
    ("solve", lambda a, b: ops.solve(a, b) * b, [np.eye(3) * 2.0 + 0.3 * RNG.standard_normal((3, 3)),
                                                   RNG.standard_normal((3, 2))], {matrix.Solve}),
    ("segment_max", lambda d: ops.segment_max(d * d, np.array([0, 1, 0, 1]), 2),
     [RNG.standard_normal((4, 2))], {segment.SegmentExtreme}),
    ("einsum", lambda a, b: ops.einsum("ij,jk->ik", a * a, b), [RNG.standard_normal((2, 3)),
                                                                 RNG.standard_normal((3, 2))],
     {linalg.Einsum}),
    ("clip_where_nan_to_num", lambda a, b: ops.clip(a * b, -0.5, b) + ops.where(a > 0, a * a, b)
     + ops.nan_to_num(a * b), [RNG.standard_normal((2, 3)), RNG.uniform(0.3, 1.0, (2, 3))],
     {elementwise.Clip, elementwise.Where, unary.NanToNum}),
    ("engine_reshape_stack", lambda a, b: primitives.reshape(
        primitives.stack([a * b, a * a], axis=1), (3, 4)), [RNG.standard_normal((3, 2)),
                                                          RNG.standard_normal((3, 2))],
     {primitives.Reshape, primitives.Stack, primitives.Unstack}),
    ("decompositions", lambda a, b: ops.cholesky(ops.matmul(a, ops.transpose(a)) + 3.0 * ops.eye(3))
     + ops.solve_triangular(a, b, lower=True) * ops.eigh(a + ops.transpose(a))[0]
     + ops.svd(a, compute_uv=False) + ops.qr(a)[1] + ops.pinv(a) * ops.lstsq(a, b),
     [np.eye(3) * 2.0 + 0.3 * RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))],
     {decompositions.Cholesky, decompositions.SolveTriangular, decompositions.Eigh,
      decompositions.Svd, decompositions.Qr, decompositions.Pinv, decompositions.Lstsq}),
    ("segment_prod", lambda d: ops.segment_prod(d * d, np.array([0, 1, 0, 1]), 2),
     [RNG.standard_normal((4, 2))], {adaptive_pooling.SegmentProd}),
]


@pytest.mark.parametrize("fn, inputs", [pytest.param(f, i, id=n) for n, f, i, _ in FUSED])
def test_fused_and_structured_ops_first_and_second_order(fn, inputs):
    check_gradients(fn, inputs)
    check_second_order(fn, inputs)


def _kerasish_op_classes():
    found, todo = set(), [Op]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("kerasish.") and sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def test_every_op_class_has_a_second_order_case():
    covered = {unary.Unary, nn.Activation, elementwise.Binary, elementwise.Add,
               elementwise.BiasAddGrad,
               primitives.Accumulate, core.Cast}
    for _, _, _, classes in FUSED:
        covered |= classes
    missing = {f"{c.__module__}.{c.__name__}" for c in _kerasish_op_classes() - covered
               if c.differentiable}
    assert not missing, f"Op classes without a second-order case: {sorted(missing)}"


def test_add_of_a_bias_first_and_second_order():
    # `Add` (a bias-like second operand) differentiated twice through its broadcast sum
    fn = lambda x, b: ops.sin(ops.add(x, b)) * ops.add(x, b)  # noqa: E731
    inputs = [RNG.standard_normal((3, 4)), RNG.standard_normal(4)]
    check_gradients(fn, inputs)
    check_second_order(fn, inputs)


@pytest.mark.parametrize("axis", [1, 2])
def test_bias_add_grad_first_and_second_order(axis):
    # the bias gradient of a low-precision `add`, here in float64 (the same sum)
    op = elementwise.BiasAddGrad(axis)
    fn = lambda g: ops.sin(op(g * g))  # noqa: E731
    check_gradients(fn, [RNG.standard_normal((2, 3, 4))])
    check_second_order(fn, [RNG.standard_normal((2, 3, 4))])


def test_cast_between_floats_first_and_second_order():
    # a float32 round trip: finite differences need a coarse step and tolerance
    fn = lambda a: ops.cast(ops.cast(a * a, "float32"), "float64") * a  # noqa: E731
    inputs = [RNG.uniform(0.5, 1.5, (2, 3))]
    check_gradients(fn, inputs, atol=1e-4, rtol=1e-3, eps=1e-3)
    check_second_order(fn, inputs, atol=1e-3, rtol=1e-2, eps=1e-3)


def test_accumulate_is_differentiated_when_a_tensor_feeds_two_ops():
    check_second_order(lambda x: ops.multiply(ops.sin(x), ops.cos(x)), [RNG.standard_normal(3)])


def test_no_kerasish_op_module_records_by_hand():
    """Every op goes through the Op contract: ops/ never calls the low-level `record`."""
    for module in (conv_ops, core, crossentropy, elementwise, fused, indexing, layout, linalg,
                   manipulation, matrix, nn, normalization, pooling, reduction, rnn, segment,
                   softmax, unary):
        assert "_tape.record(" not in inspect.getsource(module), module.__name__
    assert kerasish.ops.Op is Op


@pytest.mark.parametrize("fn, inputs", [pytest.param(f, i, id=n) for n, f, i, _ in FUSED])
def test_persistent_tape_gives_the_same_gradients_twice(fn, inputs):
    """Saved values (column buffers, statistics) survive a first backward pass."""
    tensors = [ops.convert_to_tensor(x) for x in inputs]
    with kerasish.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        y = ops.sum(ops.square(fn(*tensors)))
    first = tape.gradient(y, tensors)
    second = tape.gradient(y, tensors)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
