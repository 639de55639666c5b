"""Every fused fast path against its unfused reference, over the axes bugs hide in.

The fused ops (dense, conv, the sequence RNNs, batch-norm moments, softmax
cross-entropy) compute their forward and backward on raw arrays. Each test runs
the fused op and a reference built from fine-grained `kerasish.ops` (whose
gradients are checked against finite differences elsewhere) on the same data,
and compares outputs and every gradient.
"""
import itertools

import numpy as np
import pytest

import kerasish
from kerasish import GradientTape, ops
import importlib



# `kerasish.ops.conv` is also a function name: import the modules themselves.
conv_ops = importlib.import_module("kerasish.ops.conv")
norm_ops = importlib.import_module("kerasish.ops.normalization")
rnn_ops = importlib.import_module("kerasish.ops.rnn")

TOL = {"float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}


def _outputs_and_grads(fn, arrays, dtype):
    tensors = [ops.convert_to_tensor(a.astype(dtype)) for a in arrays]
    with GradientTape(persistent=True) as tape:
        for t in tensors:
            tape.watch(t)
        outs = fn(*tensors)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        rng = np.random.default_rng(7)
        loss = sum(ops.sum(o * rng.normal(size=o.shape).astype(dtype)) for o in outs)
    grads = tape.gradient(loss, tensors)
    return [o.numpy() for o in outs], [None if g is None else g.numpy() for g in grads]


def assert_same(fused, reference, arrays, dtype="float32"):
    rtol, atol = TOL[dtype]
    out_f, grad_f = _outputs_and_grads(fused, arrays, dtype)
    out_r, grad_r = _outputs_and_grads(reference, arrays, dtype)
    assert len(out_f) == len(out_r)
    for a, b in zip(out_f, out_r):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    for i, (a, b) in enumerate(zip(grad_f, grad_r)):
        if b is None:
            assert a is None or not np.any(a), f"gradient {i}"
            continue
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"gradient {i}")


def _activation(name):
    return (lambda x: x) if name is None else kerasish.activations.get(name)


# Dense -----------------------------------------------------------------------
@pytest.mark.parametrize("rank,activation,use_bias,dtype", list(itertools.product(
    [2, 3], [None, "relu", "tanh", "gelu"], [True, False], ["float32", "float64"])))
def test_dense_matches_matmul_add_activation(rank, activation, use_bias, dtype):
    rng = np.random.default_rng(rank)
    x = rng.normal(size=(4, 5) if rank == 2 else (2, 3, 5))
    arrays = [x, rng.normal(size=(5, 3))] + ([rng.normal(size=(3,))] if use_bias else [])
    act = _activation(activation)

    def fused(x, w, b=None):  # names fuse for relu/linear; other activations are callables
        return ops.dense(x, w, b, activation=activation if activation in (None, "relu") else act)

    def reference(x, w, b=None):
        y = ops.matmul(x, w)
        return act(y + b if b is not None else y)

    assert_same(fused, reference, arrays, dtype)


# Convolution -----------------------------------------------------------------
CONV_AXES = [ax for ax in itertools.product(
    ["channels_last", "channels_first"], [1, 2], [1, 2], [1, 2], ["valid", "same"],
    [None, "relu"], [1, 2]) if not (ax[2] > 1 and ax[3] > 1)]


@pytest.mark.parametrize("data_format,groups,strides,dilation,padding,activation,rank",
                         CONV_AXES)
def test_fused_conv_matches_conv_add_activation(data_format, groups, strides, dilation,
                                               padding, activation, rank):
    rng = np.random.default_rng(groups + 3 * strides + 5 * dilation)
    spatial = (7, 6)[:rank]
    x = rng.normal(size=(2,) + spatial + (4,) if data_format == "channels_last"
                   else (2, 4) + spatial)
    kernel = rng.normal(size=(3,) * rank + (4 // groups, 6))
    bias = rng.normal(size=(6,))
    act = _activation(activation)
    bias_shape = (6,) if data_format == "channels_last" else (6,) + (1,) * rank

    def fused(x, k, b):
        return conv_ops.fused_conv(x, k, b, activation=activation, strides=strides,
                                   padding=padding, data_format=data_format,
                                   dilation_rate=dilation)

    def reference(x, k, b):
        y = ops.conv(x, k, strides=strides, padding=padding, data_format=data_format,
                     dilation_rate=dilation)
        return act(y + ops.reshape(b, bias_shape))

    assert_same(fused, reference, [x, kernel, bias])


def test_conv_channels_first_is_channels_last_transposed():
    """The layout axis itself, against a reference that never sees channels_first."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 4, 7, 5))
    kernel = rng.normal(size=(3, 3, 2, 6))

    def fused(x, k):
        return ops.conv(x, k, data_format="channels_first")

    def reference(x, k):
        y = ops.conv(ops.transpose(x, (0, 2, 3, 1)), k)
        return ops.transpose(y, (0, 3, 1, 2))

    assert_same(fused, reference, [x, kernel])


# Sequence RNNs -----------------------------------------------------------------
def _mask(kind, batch=3, steps=5):
    if kind is None:
        return None
    lengths = [5, 3, 1]
    mask = np.array([[t < n for t in range(steps)] for n in lengths])
    if kind == "pre":
        mask = mask[:, ::-1].copy()
    if kind == "all_masked_row":
        mask[-1] = False
    return mask


def _rnn_layer(name, **kwargs):
    layer = getattr(kerasish.layers, name)(3, return_sequences=True, return_state=True,
                                           **kwargs)
    layer.build((3, 5, 4))
    rng = np.random.default_rng(11)
    layer.set_weights([rng.normal(size=w.shape) * 0.5 for w in layer.get_weights()])
    return layer


@pytest.mark.parametrize("name,go_backwards,mask,extra", [
    (n, g, m, e) for n, g, m, e in itertools.product(
        ["LSTM", "GRU", "SimpleRNN"], [False, True], [None, "post", "pre", "all_masked_row"],
        [{}, {"use_bias": False}])] + [("GRU", False, "post", {"reset_after": False}),
                                       ("GRU", True, None, {"reset_after": False})])
def test_sequence_rnn_matches_the_cell_loop(name, go_backwards, mask, extra):
    layer = _rnn_layer(name, go_backwards=go_backwards, **extra)
    mask = _mask(mask)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 5, 4))
    states = [rng.normal(size=(3, 3)) for _ in layer._state_sizes]
    mask_t = None if mask is None else ops.convert_to_tensor(mask)
    weights = layer.trainable_weights

    def run(path):
        def fn(x, *s):
            seq, last, final = path(x, list(s), mask_t)
            return [seq, last] + list(final)
        return fn

    fused = run(lambda x, s, m: layer._fused(x, s, m, training=False))
    loop = run(lambda x, s, m: layer._loop(x, s, m, training=False))
    assert_same(fused, loop, [x] + states)
    fused_grads, loop_grads = (_weight_grads(path, weights, x, states)
                               for path in (fused, loop))
    for a, b in zip(fused_grads, loop_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def _weight_grads(path, weights, x, states):
    with GradientTape() as tape:
        outs = path(ops.convert_to_tensor(x), *[ops.convert_to_tensor(s) for s in states])
        loss = sum(ops.sum(o * o) for o in outs)
    return [g.numpy() for g in tape.gradient(loss, weights)]


def test_fused_rnn_is_used_and_loop_is_not_silently_taken():
    """The comparison above is meaningful only if the layer takes the fused path."""
    layer = _rnn_layer("LSTM")
    assert layer._can_fuse()
    assert _rnn_layer("LSTM", dropout=0.3, recurrent_dropout=0.3)._can_fuse()


# Dropout on the fused sequence: the masks the layer draws for a call (one per
# gate with recurrent dropout, Keras's implementation 1) give the same numbers on
# the fused op and on the cell loop.
@pytest.mark.parametrize("name,extra", [
    ("LSTM", {"dropout": 0.3}), ("LSTM", {"recurrent_dropout": 0.4}),
    ("LSTM", {"dropout": 0.3, "recurrent_dropout": 0.4, "go_backwards": True}),
    ("GRU", {"dropout": 0.3}), ("GRU", {"dropout": 0.3, "recurrent_dropout": 0.4}),
    ("GRU", {"dropout": 0.3, "recurrent_dropout": 0.4, "reset_after": False}),
    ("SimpleRNN", {"dropout": 0.3, "recurrent_dropout": 0.4}),
])
@pytest.mark.parametrize("mask", [None, "post"])
def test_sequence_rnn_with_dropout_matches_the_cell_loop(name, extra, mask):
    layer = _rnn_layer(name, seed=3, dtype="float64", **extra)
    cell = layer.cell
    mask = _mask(mask)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 5, 4))
    states = [rng.normal(size=(3, 3)) for _ in layer._state_sizes]
    mask_t = None if mask is None else ops.convert_to_tensor(mask)
    cell.reset_dropout_masks()
    in_masks = cell.get_dropout_mask(ops.convert_to_tensor(x[:, 0]))
    rec_masks = cell.get_recurrent_dropout_mask(ops.convert_to_tensor(states[0]))
    gates = {"LSTM": 4, "GRU": 3}.get(name)
    per_gate = gates is not None and "recurrent_dropout" in extra
    for masks, rate in ((in_masks, extra.get("dropout")), (rec_masks, extra.get("recurrent_dropout"))):
        if rate is None:
            assert masks is None
            continue
        drawn = masks if isinstance(masks, list) else [masks]
        assert len(drawn) == (gates if per_gate else 1)
        values = np.stack([m.numpy() for m in drawn])
        assert set(np.unique(values)) <= {0.0, 1 / (1 - rate)} and 0 < values.mean() < 2
        if len(drawn) > 1:
            assert not np.array_equal(values[0], values[1])  # independent masks per gate
    weights = layer.trainable_weights

    def run(path):
        def fn(x, *s):
            seq, last, final = path(x, list(s), mask_t)
            return [seq, last] + list(final)
        return fn

    fused = run(lambda x, s, m: layer._fused(x, s, m, training=True))
    loop = run(lambda x, s, m: layer._loop(x, s, m, training=True))
    assert_same(fused, loop, [x] + states, dtype="float64")
    fused_grads, loop_grads = (_weight_grads(path, weights, x, states)
                               for path in (fused, loop))
    for a, b in zip(fused_grads, loop_grads):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    without = run(lambda x, s, m: layer._fused(x, s, m, training=False))
    assert not np.allclose(fused(ops.convert_to_tensor(x), *states)[0].numpy(),
                           without(ops.convert_to_tensor(x), *states)[0].numpy())


# Batch-norm moments -----------------------------------------------------------
@pytest.mark.parametrize("axes,affine,dtype", list(itertools.product(
    [(0,), (0, 1), (0, 2)], [True, False], ["float32", "float64"])))
def test_normalize_moments_matches_moments_then_normalization(axes, affine, dtype):
    rng = np.random.default_rng(len(axes))
    x = rng.normal(size=(6, 3, 4)) * 3 + 1
    param_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    arrays = [x] + ([rng.normal(size=param_shape), rng.normal(size=param_shape)]
                    if affine else [])

    def fused(x, scale=None, offset=None):
        return list(norm_ops.normalize_moments(x, axes, scale, offset, 1e-3))

    def reference(x, scale=None, offset=None):
        mean, var = ops.moments(x, axes, keepdims=True)
        out = (x - mean) / ops.sqrt(var + 1e-3)
        if scale is not None:
            out = out * scale + offset
        return [out, ops.squeeze(mean, axes), ops.squeeze(var, axes)]

    assert_same(fused, reference, arrays, dtype)


# Softmax cross-entropy ---------------------------------------------------------
@pytest.mark.parametrize("sparse,axis,scale", list(itertools.product(
    [False, True], [-1, 1], [1.0, 50.0])))
def test_softmax_cross_entropy_matches_log_softmax_reference(sparse, axis, scale):
    if sparse and axis != -1:
        pytest.skip("sparse labels index the last axis")
    rng = np.random.default_rng(int(scale))
    logits = rng.normal(size=(4, 5, 3)) * scale
    labels = rng.integers(0, logits.shape[axis], size=(4, 5) if axis == -1 else (4, 3))
    onehot = np.moveaxis(np.eye(logits.shape[axis], dtype="float32")[labels], -1, axis)

    def fused(z):
        if sparse:
            return ops.sparse_categorical_crossentropy(labels, z, from_logits=True)
        return ops.categorical_crossentropy(onehot, z, from_logits=True, axis=axis)

    def reference(z):
        return -ops.sum(onehot * ops.log_softmax(z, axis=axis), axis=axis)

    assert_same(fused, reference, [logits])


@pytest.mark.parametrize("from_logits", [False, True])
def test_binary_cross_entropy_matches_its_formula(from_logits):
    rng = np.random.default_rng(2)
    dtype = "float64" if from_logits else "float32"
    target = rng.integers(0, 2, size=(4, 3)).astype(dtype)
    z = rng.normal(size=(4, 3)) * 3

    def fused(z):
        return ops.binary_crossentropy(target, z if from_logits else ops.sigmoid(z),
                                       from_logits=from_logits)

    def reference(z):
        p = ops.clip(ops.sigmoid(z), 1e-7, 1 - 1e-7) if not from_logits else ops.sigmoid(z)
        return -(target * ops.log(p) + (1 - target) * ops.log(1 - p))

    assert_same(fused, reference, [z], dtype)


def test_sequence_rnn_rejects_dropout_masks_of_the_wrong_count_or_shape():
    x, h = ops.ones((2, 3, 4)), ops.zeros((2, 5))
    k, r, b = ops.ones((4, 20)), ops.ones((5, 20)), ops.zeros(20)
    with pytest.raises(ValueError, match="one per gate \\(4\\)"):
        rnn_ops.lstm_sequence(x, k, r, b, h, h, dropout=([ops.ones((2, 4))] * 2, None))
    with pytest.raises(ValueError, match="recurrent dropout masks .* shape \\(2, 5\\)"):
        rnn_ops.lstm_sequence(x, k, r, b, h, h, dropout=(None, ops.ones((2, 4))))
    with pytest.raises(ValueError, match="must be a pair"):
        rnn_ops.lstm_sequence(x, k, r, b, h, h, dropout=ops.ones((2, 4)))


# The LSTM's buffered fast path -----------------------------------------------------
# `_LSTM` keeps h, c and the gates in preallocated buffers and computes the backward's
# step-independent factors a block of steps at a time; `_LSTMMixedDtypes` (used for
# inputs of several dtypes) is the plain loop with one array call per term. Where the
# dtypes agree both must give the same numbers bit for bit.
def _lstm_case(seed, dtype, mask, drops, batch=3, length=7, features=4, units=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, length, features)).astype(dtype)
    w = [(rng.normal(size=s) * 0.5).astype(dtype)
         for s in [(features, 4 * units), (units, 4 * units), (4 * units,)]]
    s = [rng.normal(size=(batch, units)).astype(dtype) for _ in range(2)]
    m = None if mask is None else rng.random((batch, length)) > 0.3
    drop = tuple(None if n == 0 else ((rng.random((n, batch, size)) > 0.3) / 0.7).astype(dtype)
                 for n, size in zip(drops, (features, units)))
    return x, w, s, m, drop


@pytest.fixture(params=["numpy", "numba"])
def step_loops(request, monkeypatch):
    """`_LSTM`'s step arithmetic as numpy calls, or (numba installed) as the compiled
    loops of `numba_kernels` that replace them: both must be the plain loop's numbers."""
    numba_kernels = importlib.import_module("kerasish.backend.kernels.numba_kernels")
    if request.param == "numba":
        pytest.importorskip("numba", reason="numba not installed (the optional `fast` extra)")
        monkeypatch.delenv("KERASISH_NUMBA", raising=False)
        monkeypatch.setattr(numba_kernels, "_LOOPS", None)
        assert numba_kernels.loops() is not None
    else:
        monkeypatch.setattr(numba_kernels, "_LOOPS", False)
    return request.param


@pytest.mark.parametrize("dtype,go_backwards,mask,drops,seq_grad", list(itertools.product(
    ["float32", "float64"], [False, True], [None, "random"], [(0, 0), (1, 0), (4, 4), (1, 1)],
    [False, True])))
def test_lstm_fast_path_is_the_step_loop_bit_for_bit(monkeypatch, step_loops, dtype,
                                                      go_backwards, mask, drops, seq_grad):
    monkeypatch.setattr(rnn_ops, "_BLOCK_ELEMENTS", 3 * 12 * 3)  # blocks of 3 of the 7 steps
    x, w, s, m, drop = _lstm_case(1, dtype, mask, drops)
    rng = np.random.default_rng(2)
    g_seq = rng.normal(size=x.shape[:2] + (3,)) if seq_grad else np.zeros(x.shape[:2] + (3,))
    g_final = [rng.normal(size=(3, 3)).astype(dtype) for _ in range(3)]
    results = []
    for cell in (rnn_ops._lstm, rnn_ops._lstm_mixed):
        seq, final, cache = cell.forward(np, x, w, s, m, go_backwards, drop)
        gx, gw, gs = cell.backward(np, x, w, s, m, go_backwards, cache, g_seq.astype(dtype),
                                   g_final, drop)
        results.append([seq, *final, gx, *gw, *gs])
    for i, (fast, loop) in enumerate(zip(*results)):
        assert fast.dtype == loop.dtype, i
        np.testing.assert_array_equal(fast, loop, err_msg=f"output {i}")


@pytest.mark.parametrize("go_backwards,mask", [(False, None), (True, None), (False, "random"),
                                               (True, "random")])
def test_lstm_sequence_without_its_sequence_gradient_matches_the_reference(
        monkeypatch, go_backwards, mask):
    """Only the last output and the states are used: the op skips the zero gradient of
    the sequence (float64, against the recurrence written with ops)."""
    monkeypatch.setattr(rnn_ops, "_BLOCK_ELEMENTS", 3 * 12 * 3)
    x, w, s, m, drop = _lstm_case(3, "float64", mask, (1, 4))

    def fused(x, k, r, b, h, c):
        _, last, h, c = rnn_ops.lstm_sequence(x, k, r, b, h, c, mask=m,
                                              go_backwards=go_backwards,
                                              dropout=tuple(list(d) for d in drop))
        return [last, h, c]

    def reference(x, k, r, b, h, c):
        return rnn_ops._lstm.reference(x, [k, r, b], [h, c], m, go_backwards, drop)[1:]

    assert_same(fused, reference, [x, *w, *s], dtype="float64")


def test_lstm_sequence_with_states_of_another_dtype_matches_the_reference():
    x, w, s, m, _ = _lstm_case(4, "float32", "random", (0, 0))
    s = [a.astype("float64") for a in s]
    tensors = [ops.convert_to_tensor(a) for a in [x, *w, *s]]
    results = []
    for run in (lambda *t: rnn_ops.lstm_sequence(*t, mask=m),
                lambda x, k, r, b, h, c: rnn_ops._lstm.reference(x, [k, r, b], [h, c], m, False)):
        with GradientTape() as tape:
            tape.watch(tensors)
            outs = run(*tensors)
            loss = sum(ops.sum(ops.cast(o, "float64") * (i + 1)) for i, o in enumerate(outs))
        grads = tape.gradient(loss, tensors)
        results.append([o.numpy() for o in outs] + [g.numpy() for g in grads])
    for i, (fused, reference) in enumerate(zip(*results)):
        np.testing.assert_allclose(fused, reference, rtol=1e-5, atol=1e-5, err_msg=f"array {i}")


@pytest.mark.parametrize("shape", [(1, 5, 4), (3, 1, 4)])
def test_lstm_sequence_leaves_its_inputs_unchanged(shape):
    """With batch or time 1 the time-major copy of x must still be a copy: the input
    dropout mask is applied to it in place."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=shape).astype("float32")
    w = [rng.normal(size=s).astype("float32") for s in [(4, 12), (3, 12), (12,)]]
    h = np.zeros((shape[0], 3), "float32")
    mask = np.full((shape[0], 4), 0.5, "float32")
    before = [a.copy() for a in [x, *w, h, mask]]
    tensors = [ops.convert_to_tensor(a) for a in [x, *w, h, h]]
    with GradientTape() as tape:
        tape.watch(tensors)
        loss = ops.sum(rnn_ops.lstm_sequence(*tensors, dropout=(mask, None))[0])
    tape.gradient(loss, tensors)
    for a, b in zip([x, *w, h, mask], before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cell,gates,drops", [
    ("_lstm", 4, (0, 0)), ("_lstm", 4, (1, 0)), ("_lstm", 4, (4, 4)), ("_lstm_mixed", 4, (1, 0)),
    ("_gru_after", 3, (3, 3)), ("_gru_before", 3, (1, 0)), ("_simple", 1, (1, 1))])
def test_sequence_products_split_over_threads_are_one_blas_call_bit_for_bit(monkeypatch, cell,
                                                                           gates, drops):
    """The whole-sequence products (input projection, input and weight gradients) go
    through `split_matmul` in float32: on two CPU threads, each with one BLAS thread, the
    numbers equal one single-threaded BLAS call's. (Products split into pieces of
    fewer than ~1M multiply-adds can differ: OpenBLAS takes other kernels for small
    matrices; `SPLIT_MATMUL_MIN` keeps the pieces far above that.)"""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    numpy_kernels = importlib.import_module("kerasish.backend.kernels.numpy_kernels")
    rng = np.random.default_rng(4)
    batch, length, features, units = 32, 40, 128, 32
    x = rng.normal(size=(batch, length, features)).astype("float32")
    w = [(rng.normal(size=(features, gates * units)) * 0.3).astype("float32"),
         (rng.normal(size=(units, gates * units)) * 0.3).astype("float32"),
         (rng.normal(size=(2, gates * units) if cell == "_gru_after" else (gates * units,))
          * 0.3).astype("float32")]
    s = [rng.normal(size=(batch, units)).astype("float32")
         for _ in range(2 if "lstm" in cell else 1)]
    drop = tuple(None if n == 0 else ((rng.random((n, batch, size)) > 0.3) / 0.7).astype("float32")
                 for n, size in zip(drops, (features, units)))
    g_seq = rng.normal(size=(batch, length, units)).astype("float32")
    g_final = [rng.normal(size=(batch, units)).astype("float32") for _ in range(1 + len(s))]
    op = getattr(rnn_ops, cell)
    monkeypatch.setattr(numpy_kernels, "SPLIT_MATMUL_MIN", 1 << 22)
    cpu_threads = importlib.import_module("kerasish.backend.kernels.cpu_threads")
    calls = []
    run_split = cpu_threads.run_split
    monkeypatch.setattr(cpu_threads, "run_split",
                        lambda run, pieces: calls.append(len(pieces)) or run_split(run, pieces))
    results = []
    for threads in (1, 2):
        with threadpoolctl.ThreadpoolController().limit(limits=threads, user_api="blas"):
            workers = cpu_threads.worker_count()
            seq, final, cache = op.forward(np, x, w, s, None, False, drop)
            gx, gw, gs = op.backward(np, x, w, s, None, False, cache, g_seq, g_final, drop)
        results.append([seq, *final, gx, *gw, *gs])
    if workers < 2:
        pytest.skip("one CPU: products are never split")
    assert len(calls) >= 3   # the forward projection, the input and the weight gradients
    for i, (two, one) in enumerate(zip(*results)):
        np.testing.assert_array_equal(two, one, err_msg=f"output {i}")


@pytest.mark.parametrize("go_backwards,mask,drops,seq_grad", [
    (False, None, (0, 0), False), (True, None, (1, 0), False), (False, "random", (4, 4), True),
    (True, "random", (1, 0), True), (False, None, (1, 1), True), (True, None, (4, 4), False)])
def test_lstm_pipelined_over_two_threads_is_one_thread_bit_for_bit(monkeypatch, step_loops,
                                                                  go_backwards, mask, drops,
                                                                  seq_grad):
    """With two CPU threads the LSTM hands the input projection (forward) and the input
    gradient (backward) of each block of steps to a worker thread while its step loop
    runs: the same numbers as one thread doing everything in order."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    cpu_threads = importlib.import_module("kerasish.backend.kernels.cpu_threads")
    monkeypatch.setattr(rnn_ops, "_PIPELINE_BLOCK_MACS", 1 << 22)  # 10 blocks of 4-5 steps
    x, w, s, m, drop = _lstm_case(5, "float32", mask, drops, batch=64, length=42,
                                  features=128, units=32)
    rng = np.random.default_rng(6)
    g_seq = (rng.normal(size=x.shape[:2] + (32,)) if seq_grad
             else np.zeros(x.shape[:2] + (32,))).astype("float32")
    g_final = [rng.normal(size=(64, 32)).astype("float32") for _ in range(3)]
    pipelines = []
    pipeline = cpu_threads.Pipeline
    monkeypatch.setattr(cpu_threads, "Pipeline", lambda run: pipelines.append(1) or pipeline(run))
    results = []
    for threads in (1, 2):
        with threadpoolctl.ThreadpoolController().limit(limits=threads, user_api="blas"):
            workers = cpu_threads.worker_count()
            seq, final, cache = rnn_ops._lstm.forward(np, x, w, s, m, go_backwards, drop)
            gx, gw, gs = rnn_ops._lstm.backward(np, x, w, s, m, go_backwards, cache, g_seq,
                                                g_final, drop)
        results.append([seq, *final, gx, *gw, *gs])
    if workers < 2:
        pytest.skip("one CPU: nothing is pipelined")
    assert len(pipelines) == 2
    for i, (two, one) in enumerate(zip(*results)):
        np.testing.assert_array_equal(two, one, err_msg=f"output {i}")
