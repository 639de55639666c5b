"""Fused recurrent sequence ops: LSTM, GRU and simple RNN over a whole sequence.

One op per layer call: the input projection of all time steps is one GEMM,
each step's gates are a few vectorised array expressions, and the backward
pass (BPTT, the Op `SequenceGrad`) runs on raw arrays. The tape records a
single node, so long sequences cost little Python overhead. Gate orders and bias layouts are
Keras's: LSTM i, f, c, o; GRU z, r, h (bias shape (2, 3u) with reset_after).

Dropout follows Keras: masks are fixed for the whole sequence and passed as
`dropout=(input_masks, recurrent_masks)`, each None or an array of shape
(G, batch, n): G == 1 is one mask shared by all gates (Keras's
`implementation=2`), G == gates one mask per gate (Keras's `implementation=1`,
which Keras selects whenever `recurrent_dropout` is set). Input masks multiply
`x` before its projection, recurrent masks multiply the state only where it
enters the recurrent projection (the carried state is not dropped).

Masks follow Keras: at a masked step the state is carried over and the
output repeats the previous output. With `go_backwards` the sequence of
outputs is in processing order (last time step first), as in Keras. Second
order: `SequenceGrad`'s backward differentiates each cell's reference
recurrence (`reference`, written with ops) with nested tapes.

Where no tape records (inference), float32 LSTM and GRU sequences without
dropout run `rnn_keras_order`'s loops instead: Keras's step order and
TensorFlow's gate activations, whose outputs are Keras's to the bit (the fused
kernels' are not).
"""
import functools

from kerasish.autodiff.capture import derive
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff import recording
from kerasish.autodiff.op import Op
from kerasish.autodiff.tape import GradientTape
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import devices
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.ops import rnn_keras_order


def _sigmoid(xp, z):
    return 0.5 * (xp.tanh(0.5 * z) + 1.0)


def _steps(length, go_backwards):
    return range(length - 1, -1, -1) if go_backwards else range(length)


def _masked(xp, m, new, old):
    return new if m is None else xp.where(m, new, old)


def _masked_rows(x, masks):
    """`x` (batch, ..., n) times each mask (batch, n), as (rows, n) matrices: [x] without masks."""
    n = x.shape[-1]
    if masks is None:
        return [x.reshape(-1, n)]
    if x.ndim == 3:
        return [(x * m[:, None, :]).reshape(-1, n) for m in masks]
    return [x * m for m in masks]


def _matmul(a, b, out=None):
    """`a @ b` (into `out`): one BLAS call."""
    return a @ b if out is None else devices.xp_of(a).matmul(a, b, out=out)


def _sequence_matmul(a, b, out=None):
    """`a @ b` (into `out`) for a product over a whole sequence (rows: time x batch): in
    float32 through the device's `split_matmul`, which spreads a large product over the
    CPU threads, one BLAS thread each, instead of one multi-threaded BLAS call (which
    stalls whenever another job holds a core). The same numbers as one call on these
    products' shapes (tested); per-step products (few rows) and float64, where a split
    product can differ from one call in the last bits, keep one BLAS call."""
    if a.dtype.kind != "f" or a.dtype.itemsize != 4 or b.dtype != a.dtype:
        return _matmul(a, b, out)
    return devices.device_of_array(a).kernel("split_matmul")(a, b, out=out)


def _project(xp, parts, w, out=None, mm=_matmul):
    """`parts[g] @ w[:, gate g]` side by side (`parts[0] @ w` for a single part); `mm`
    makes each product (`_sequence_matmul` for a whole sequence's rows)."""
    if len(parts) == 1:
        return mm(parts[0], w, out=out)
    n = w.shape[1] // len(parts)
    return xp.concatenate([mm(p, w[:, g * n:(g + 1) * n]) for g, p in enumerate(parts)],
                          axis=-1, out=out)


def _project_back(d, w, masks, shape=None, mm=_matmul):
    """Gradient of `_project(_masked_rows(a, masks), w)` with respect to `a`, from `d`."""
    if masks is None:
        out = mm(d, w.T)
        return out if shape is None else out.reshape(shape)
    n = w.shape[1] // len(masks)
    total = None
    for g, m in enumerate(masks):
        dg = d if len(masks) == 1 else d[:, g * n:(g + 1) * n]
        wg = w if len(masks) == 1 else w[:, g * n:(g + 1) * n]
        term = mm(dg, wg.T)
        term = term * m if shape is None else term.reshape(shape) * m[:, None, :]
        total = term if total is None else total + term
    return total


def _weight_grad(xp, parts, d, mm=_matmul):
    """Gradient of `_project(parts, w)` with respect to `w`, from `d`."""
    if len(parts) == 1:
        return mm(parts[0].T, d)
    n = d.shape[1] // len(parts)
    return xp.concatenate([mm(p.T, d[:, g * n:(g + 1) * n]) for g, p in enumerate(parts)],
                          axis=1)


def _low_precision(w):
    """float16/bfloat16 weights: a layer under a mixed policy reads its float32 variables
    through a cast."""
    return w.dtype.itemsize < 4


def _step_rows(t, batch, length, time_major):
    return slice(t * batch, (t + 1) * batch) if time_major else slice(t, None, length)


def _stepwise_weight_grad(xp, parts, d, batch, length, order, time_major=False):
    """The weight gradient as Keras's step loop makes it under a mixed policy: each step
    reads the weights through its own cast, so each step's float16 gradient is cast to
    float32 before the sum over the steps (last step first, as the backward loop runs);
    one float16 sum over all steps would overflow where Keras's does not."""
    total = None
    for t in reversed(list(order)):
        rows = _step_rows(t, batch, length, time_major)
        step = _weight_grad(xp, [p[rows] for p in parts], d[rows]).astype(xp.float32)
        total = step if total is None else total + step
    return total


def _stepwise_bias_grad(xp, d, batch, length, order, time_major=False):
    """`d.sum(axis=0)` as `_stepwise_weight_grad` sums: per step, then in float32."""
    total = None
    for t in reversed(list(order)):
        step = d[_step_rows(t, batch, length, time_major)].sum(axis=0).astype(xp.float32)
        total = step if total is None else total + step
    return total


def _gate_states(h, masks, gates):
    """The state as each gate's recurrent projection sees it: one (masked) array per gate."""
    if masks is None:
        return [h] * gates
    if len(masks) == 1:
        return [h * masks[0]] * gates
    return [h * m for m in masks]


def _times(a, masks, g):
    return a if masks is None else a * masks[0 if len(masks) == 1 else g]


def _swap_time_batch(xp, a):
    """(batch, time, n) <-> (time, batch, n), as a contiguous copy."""
    return xp.ascontiguousarray(a.transpose(1, 0, 2))


def _time_major_copy(xp, a):
    """(batch, time, n) as a new time-major (time, batch, n) array (never a view of `a`,
    which `_swap_time_batch` returns when batch or time is 1)."""
    out = xp.empty((a.shape[1], a.shape[0]) + a.shape[2:], dtype=a.dtype)
    out[...] = a.transpose(1, 0, 2)
    return out


def _masked_rows_tm(x_tm, masks, in_place=False):
    """`_masked_rows` for a time-major (time, batch, n) array; `in_place`: `x_tm` is a
    scratch copy, which a single mask may overwrite."""
    n = x_tm.shape[-1]
    if masks is None:
        return [x_tm.reshape(-1, n)]
    if in_place and len(masks) == 1:
        x_tm *= masks[0][None]
        return [x_tm.reshape(-1, n)]
    return [(x_tm * m[None]).reshape(-1, n) for m in masks]


def _rows_tm(xp, masks, length):
    """Per-batch masks (batch, n) repeated for every row of a (time * batch, n) matrix."""
    return None if masks is None else [xp.tile(m, (length, 1)) for m in masks]


def _lstm_gate_affine(xp, units, dtype):
    """(scale, shift) over the 4 gates: sigmoid(z) = 0.5 * tanh(0.5 * z) + 0.5 on
    i, f, o (scale 0.5, shift 0.5); tanh(z) on g (scale 1, shift 0)."""
    scale = xp.full(4 * units, 0.5, dtype=dtype)
    scale[2 * units:3 * units] = 1.0
    shift = xp.full(4 * units, 0.5, dtype=dtype)
    shift[2 * units:3 * units] = 0.0
    return scale, shift


def _recurrent_term(xp, h, rec, masks, out, parts):
    """`_project(xp, _masked_rows(h, masks), rec)` written into `out` (batch, G * n):
    the masked states of all G gates in one call (`parts`, (G, batch, units)), then
    one product per gate into its columns."""
    if masks is None:
        return xp.matmul(h, rec, out=out)
    if len(masks) == 1:
        return xp.matmul(h * masks[0], rec, out=out)
    xp.multiply(h[None], masks, out=parts)
    n = rec.shape[1] // len(masks)
    for g in range(len(masks)):
        xp.matmul(parts[g], rec[:, g * n:(g + 1) * n], out=out[:, g * n:(g + 1) * n])
    return out


def _recurrent_term_back(xp, dz, rec, masks, out, terms):
    """`_project_back(dz, rec, masks)` written into `out` (batch, units): the G gates'
    products into `terms` (G, batch, units), masked with one call, then summed in
    gate order."""
    if masks is None:
        return xp.matmul(dz, rec.T, out=out)
    n = rec.shape[1] // len(masks)
    if len(masks) == 1:
        xp.matmul(dz, rec.T, out=out)
        out *= masks[0]
        return out
    for g in range(len(masks)):
        xp.matmul(dz[:, g * n:(g + 1) * n], rec[:, g * n:(g + 1) * n].T, out=terms[g])
    terms *= masks
    xp.add(terms[0], terms[1], out=out)
    for g in range(2, len(masks)):
        out += terms[g]
    return out


def _state_buffers(xp, states, length, go_backwards):
    """(length + 1, batch, units) buffers for h and c, the initial states in place: step t
    reads slot t and writes slot t + 1 (going backwards: reads t + 1, writes t)."""
    buffers = []
    for state in states:
        buf = xp.empty((length + 1,) + state.shape, dtype=state.dtype)
        buf[length if go_backwards else 0] = state
        buffers.append(buf)
    return buffers


def _step_masks(xp, mask):
    """(batch, time) booleans as time-major (time, batch, 1) arrays: (real steps, carried)."""
    real = xp.ascontiguousarray(mask.T)[:, :, None]
    return real, ~real


_BLOCK_ELEMENTS = 1 << 16  # the LSTM backward's per-block factor buffers stay in cache
# A pipelined block's input product has at least this many multiply-adds: OpenBLAS
# computes a block of rows of a product with the same numbers as the whole product
# only with its large-matrix kernels (it takes others for small matrices).
_PIPELINE_BLOCK_MACS = 1 << 24


def _pipeline_blocks(x, cols):
    """The blocks of the LSTM's pipelined input work (see `_LSTM.forward`) as
    {first step: block number} in processing order, each block `(k0, k1)` of steps
    k0..k1-1 in `_pipeline_bounds`; None when the sequence is not pipelined: float32
    only (float64 keeps one product, as in `_sequence_matmul`), two blocks or more,
    each of at least `_PIPELINE_BLOCK_MACS`."""
    batch, length, features = x.shape
    if x.dtype.kind != "f" or x.dtype.itemsize != 4 or batch * features * cols == 0:
        return None
    count = length // -(-_PIPELINE_BLOCK_MACS // (batch * features * cols))
    if count < 2:
        return None
    bounds = [length * j // count for j in range(count + 1)]  # sizes differ by one at most
    return list(zip(bounds[:-1], bounds[1:]))


def _block_times(block, length, go_backwards):
    """The time steps [t0, t1) of a block (k0, k1) of steps in processing order."""
    k0, k1 = block
    return (length - k1, length - k0) if go_backwards else (k0, k1)


def _open_pipeline(x, blocks, run):
    """The device's `sequence_pipeline` for `run` (None: no pipeline, or no blocks)."""
    if blocks is None:
        return None
    return devices.device_of_array(x).kernel("sequence_pipeline")(run)


class _LSTMFactors:
    """The step-independent factors of the LSTM's dz, a block of steps at a time.

    dz = first * second * third * fourth per gate, multiplied in that order (the
    order of the unfused formula): first = dc_total on i, f, g and dh on o;
    second = (g, c_prev, i, tanh(c)) (read from the forward's buffers); third =
    (i, f, 1 - g^2, o); fourth = (1 - i, 1 - f, 1, 1 - o) (a product with 1 is
    exact); and dc_total = dc + dh * o * dc_factor with dc_factor = 1 - tanh(c)^2.
    third, fourth and dc_factor are computed with one array call each over a
    block of steps, in buffers small enough to stay in cache, instead of a few
    calls per step.
    """

    def __init__(self, xp, acts, tcs, c_prevs, go_backwards):
        length, batch, four_u = acts.shape
        self.xp, self.acts, self.tcs, self.c_prevs = xp, acts, tcs, c_prevs
        self.u, self.go_backwards = four_u // 4, go_backwards
        self.block = max(1, min(length, _BLOCK_ELEMENTS // (batch * four_u)))
        self.third, self.fourth = (
            xp.empty((self.block, batch, four_u), dtype=acts.dtype) for _ in range(2))
        self.dc_factor = xp.empty((self.block, batch, self.u), dtype=acts.dtype)
        self.start = self.stop = 0

    def at(self, t):
        """(dc_factor, third, fourth) of step t."""
        if not self.start <= t < self.stop:
            self._fill(t)
        j = t - self.start
        return self.dc_factor[j], self.third[j], self.fourth[j]

    def _fill(self, t):
        # the backward visits t downwards (upwards with go_backwards): t opens the block
        length = self.acts.shape[0]
        start = t if self.go_backwards else max(0, t - self.block + 1)
        stop = min(length, start + self.block)
        self.start, self.stop = start, stop
        xp, u, n = self.xp, self.u, stop - start
        acts, tcs = self.acts[start:stop], self.tcs[start:stop]
        third, fourth, dc_factor = (a[:n] for a in (self.third, self.fourth, self.dc_factor))
        third[...] = acts
        g = third[..., 2 * u:3 * u]
        xp.multiply(g, g, out=g)
        xp.subtract(1, g, out=g)
        xp.subtract(1, acts, out=fourth)
        fourth[..., 2 * u:3 * u] = 1
        xp.multiply(tcs, tcs, out=dc_factor)
        xp.subtract(1, dc_factor, out=dc_factor)


def _step_loops(x, *arrays):
    """The device's compiled LSTM step loops (numba, optional) when `x` and `arrays`
    share one dtype, else None (the numpy step)."""
    loops = devices.device_of_array(x).kernel("lstm_step_loops")(x)
    if loops is None or any(a.dtype != x.dtype for a in arrays):
        return None
    return loops


def _project_back_tm(xp, d, w, masks, length):
    """`_project_back` for time-major rows of `d` with per-batch masks (batch, n):
    returns (length, batch, n)."""
    if masks is None:
        return _sequence_matmul(d, w.T).reshape(length, -1, w.shape[0])
    n = w.shape[1] // len(masks)
    total = None
    for g, m in enumerate(masks):
        dg = d if len(masks) == 1 else d[:, g * n:(g + 1) * n]
        wg = w if len(masks) == 1 else w[:, g * n:(g + 1) * n]
        term = _sequence_matmul(dg, wg.T).reshape(length, m.shape[0], -1)
        term *= m[None]
        if total is None:
            total = term
        else:
            total += term
    return total


class Sequence(Op):
    """A whole recurrent layer pass as one Op. Inputs (x, kernel, recurrent_kernel,
    bias, *states); outputs (sequence, last_output, *final_states).

    `cell` holds the array code: `forward` (all steps, keeping a cache) and
    `backward` (BPTT). The backward of this Op is the Op `SequenceGrad`. The
    mask (raw bool array) and direction are parameters; the forward's cache
    is kept on the instance (one per call) for the backward. With `inference`
    (a `rnn_keras_order` loop, for calls no tape records) the Op runs that
    loop instead and is not differentiable.
    """

    def __init__(self, cell, mask, go_backwards, drop=(None, None), inference=None):
        self.cell, self.name = cell, cell.name
        self.mask, self.go_backwards, self.drop = mask, go_backwards, drop
        self.inference = inference
        self.differentiable = inference is None
        self._cache = None

    def forward(self, device, x, kernel, rec, bias, *states):
        w = [kernel, rec, bias]
        if self.inference is not None:
            seq, final = self.inference(device.xp, x, w, list(states), self.mask,
                                        self.go_backwards)
            return (seq, *final)
        seq, final, self._cache = self.cell.forward(device.xp, x, w, list(states),
                                                    self.mask, self.go_backwards, self.drop)
        return (seq, *final)

    def save(self, inputs, outputs):
        cache, self._cache = self._cache, None
        return tuple(inputs), cache

    def backward(self, saved, needs, grads):
        inputs, cache = saved
        grad = SequenceGrad(self.cell, self.mask, self.go_backwards, cache, self.drop, source=self)
        return grad(*inputs, *grads)

    def compute_output_spec(self, x, kernel, rec, bias, *states):
        (batch, time, _), dtype = x
        units = rec[0][0]
        return [((batch, time, units), dtype)] + [((batch, units), dtype)] * (1 + len(states))


class SequenceGrad(Op):
    """BPTT of `Sequence`: inputs (x, kernel, recurrent_kernel, bias, *states,
    g_sequence, g_last, *g_states); outputs one gradient per `Sequence` input.

    The first order is the cell's BPTT on raw arrays (the only place the
    gradient formula is written). Its own backward (second order) is the
    vector-Jacobian product of this map, obtained by differentiating the
    cell's reference recurrence written with ops (`cell.reference`) twice
    with nested tapes, so it is differentiable again.
    """

    def __init__(self, cell, mask, go_backwards, cache=None, drop=(None, None), source=None):
        self.cell, self.name = cell, cell.name + "_grad"
        self.mask, self.go_backwards, self.cache, self.drop = mask, go_backwards, cache, drop
        self.source = source  # the forward `Sequence`: a captured step's replay leaves its cache

    def forward(self, device, *arrays):
        n = 4 + self.cell.num_states
        x, kernel, rec, bias = arrays[:4]
        states, grads = list(arrays[4:n]), arrays[n:]
        cache, self.cache = self.cache, None
        if cache is None and self.source is not None:  # a replay: the forward just ran
            cache, self.source._cache = self.source._cache, None
        xp, w = device.xp, [kernel, rec, bias]
        if cache is None:
            cache = self.cell.forward(xp, x, w, states, self.mask, self.go_backwards, self.drop)[2]
        gx, gw, gs = self.cell.backward(xp, x, w, states, self.mask, self.go_backwards, cache,
                                        grads[0], list(grads[1:]), self.drop)
        return (gx, *gw, *gs)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, upstream):
        n = 4 + self.cell.num_states
        primals, cotangents = list(saved[:n]), list(saved[n:])
        with GradientTape() as outer:
            outer.watch(primals + cotangents)
            with GradientTape() as inner:
                inner.watch(primals)
                outputs = self.cell.reference(primals[0], primals[1:4], primals[4:], self.mask,
                                              self.go_backwards, self.drop)
                total = _dot(outputs, cotangents)
            first = inner.gradient(total, primals, unconnected_gradients="zero")
            total = _dot(first, upstream)
        return outer.gradient(total, primals + cotangents, unconnected_gradients="zero")


def _dot(xs, ys):
    """sum_i sum(xs[i] * ys[i]) with ops."""
    total = None
    for x, y in zip(xs, ys):
        term = reduction.sum(ew.multiply(x, y))
        total = term if total is None else ew.add(total, term)
    return total


def _sigmoid_op(z):
    return ew.multiply(ew.add(ew.tanh(ew.multiply(z, 0.5)), 1.0), 0.5)


def _where(m, new, old):
    return new if m is None else ew.where(m, new, old)


def _run_reference(step, x, states, mask, go_backwards):
    """Loops `step(x_t, states) -> (h_new, new_states)` over time with ops (masks as Keras)."""
    length = x.shape[1]
    out = ew.multiply(states[0], 0.0)
    outs = []
    for t in _steps(length, go_backwards):
        h_new, new_states = step(x[:, t], states)
        m = None if mask is None else Tensor(mask[:, t, None], x._device)
        states = [_where(m, n, o) for n, o in zip(new_states, states)]
        out = _where(m, h_new, out)
        outs.append(out)
    return [shape_ops.stack(outs, axis=1), out] + states


def _parts_op(x, masks):
    """`_masked_rows` with ops, for one step (x is (batch, n)); masks are raw arrays."""
    if masks is None:
        return [x]
    return [ew.multiply(x, Tensor(m, x._device)) for m in masks]


def _project_op(parts, w):
    """`_project` with ops."""
    if len(parts) == 1:
        return parts[0] @ w
    n = w.shape[1] // len(parts)
    return shape_ops.concatenate([p @ w[:, g * n:(g + 1) * n] for g, p in enumerate(parts)],
                                 axis=-1)


def _times_op(a, masks, g):
    return a if masks is None else ew.multiply(a, Tensor(masks[0 if len(masks) == 1 else g],
                                                         a._device))


class _LSTM:
    name, num_states = "lstm_sequence", 2

    def reference(self, x, w, s, mask, go_backwards, drop=(None, None)):
        """The recurrence written with ops (for higher-order gradients)."""
        kernel, rec, bias = w
        u = rec.shape[0]
        in_masks, rec_masks = drop

        def step(xt, states):
            h, c = states
            z = ew.add(ew.add(_project_op(_parts_op(xt, in_masks), kernel),
                              _project_op(_parts_op(h, rec_masks), rec)), bias)
            i, f = _sigmoid_op(z[:, :u]), _sigmoid_op(z[:, u:2 * u])
            g, o = ew.tanh(z[:, 2 * u:3 * u]), _sigmoid_op(z[:, 3 * u:])
            c_new = ew.add(ew.multiply(f, c), ew.multiply(i, g))
            h_new = ew.multiply(o, ew.tanh(c_new))
            return h_new, [h_new, c_new]
        return _run_reference(step, x, list(s), mask, go_backwards)

    def forward(self, xp, x, w, s, mask, go_backwards, drop=(None, None)):
        kernel, rec, bias = w
        batch, length, _ = x.shape
        u = rec.shape[0]
        in_masks, rec_masks = drop
        # i, f, g, o: x's projection plus the bias, then each step's recurrent term is
        # added (in the other order than `h @ rec + xw`: the same sum) and activated.
        # Time-major (length, batch, ...) buffers: each step's slice is contiguous.
        acts = xp.empty((length, batch, 4 * u), dtype=x.dtype)
        blocks = _pipeline_blocks(x, 4 * u)
        x_rows, prepare = self._input_rows(xp, x, kernel, bias, in_masks, acts)
        pipe = _open_pipeline(x, blocks, prepare)
        if pipe is None:
            prepare(0, length, _sequence_matmul)
        else:  # a worker thread prepares the blocks of steps in the order the loop needs
            for b in blocks:
                pipe.put(*_block_times(b, length, go_backwards))
            waits = {k0: j + 1 for j, (k0, _) in enumerate(blocks)}
        scale, shift = _lstm_gate_affine(xp, u, x.dtype)
        rec_term = xp.empty((batch, 4 * u), dtype=x.dtype)
        tcs = xp.empty((length, batch, u), dtype=x.dtype)       # tanh(c_new)
        hs, cs = _state_buffers(xp, s, length, go_backwards)
        outs = None if mask is None else xp.zeros((length + 1, batch, u), dtype=x.dtype)
        keep = None if mask is None else _step_masks(xp, mask)[1]
        i_, f_, g_, o_ = (acts[..., j * u:(j + 1) * u] for j in range(4))
        tmp = xp.empty((batch, u), dtype=x.dtype)
        parts = None if rec_masks is None else xp.empty((len(rec_masks), batch, u), x.dtype)
        fast = _step_loops(x, hs, cs)
        try:
            for k, t in enumerate(_steps(length, go_backwards)):
                if pipe is not None and k in waits:
                    pipe.wait(waits[k])
                prv, nxt = (t + 1, t) if go_backwards else (t, t + 1)
                z, c_new, h_new = acts[t], cs[nxt], hs[nxt]
                _recurrent_term(xp, hs[prv], rec, rec_masks, rec_term, parts)
                if fast is not None:  # the same operations, fused (numba)
                    fast.lstm_gates(z, rec_term, scale)
                    xp.tanh(z, out=z)
                    fast.lstm_cell(z, scale, shift, cs[prv], c_new)
                    xp.tanh(c_new, out=tcs[t])
                    fast.lstm_output(h_new, z, tcs[t])
                else:
                    z += rec_term
                    # sigmoid(z) = 0.5 * tanh(0.5 * z) + 0.5 on i, f, o; tanh(z) on g
                    z *= scale
                    xp.tanh(z, out=z)
                    z *= scale
                    z += shift
                    xp.multiply(f_[t], cs[prv], out=c_new)
                    xp.multiply(i_[t], g_[t], out=tmp)
                    c_new += tmp
                    xp.tanh(c_new, out=tcs[t])
                    xp.multiply(o_[t], tcs[t], out=h_new)
                if mask is not None:  # a masked step carries the state and repeats the output
                    xp.copyto(outs[k + 1], h_new)
                    xp.copyto(outs[k + 1], outs[k], where=keep[t])
                    xp.copyto(h_new, hs[prv], where=keep[t])
                    xp.copyto(c_new, cs[prv], where=keep[t])
        finally:
            if pipe is not None:
                pipe.close()
        last = 0 if go_backwards else length
        if mask is None:
            seq_tm = hs[:length][::-1] if go_backwards else hs[1:]
            out = hs[last].copy()
        else:
            seq_tm, out = outs[1:], outs[length].copy()
        return (_swap_time_batch(xp, seq_tm), [out, hs[last].copy(), cs[last].copy()],
                (x_rows, acts, tcs, hs, cs))

    @staticmethod
    def _input_rows(xp, x, kernel, bias, in_masks, acts):
        """The time-major input rows (one (length * batch, features) matrix per input
        mask; for none or one, x's own time-major copy, masked in place) and
        `prepare(t0, t1, mm=_matmul)`, which fills steps t0..t1-1 of them (copy, mask)
        and of `acts` (their projection plus the bias): element by element and row
        blocks of one product, so the steps can be prepared in blocks (see
        `_PIPELINE_BLOCK_MACS`)."""
        batch, length, features = x.shape
        x_tm = xp.empty((length, batch, features), dtype=x.dtype)  # never a view of x
        if in_masks is None or len(in_masks) == 1:
            x_rows = [x_tm.reshape(-1, features)]
        else:
            x_rows = [xp.empty((length * batch, features), dtype=xp.result_type(x, m))
                      for m in in_masks]
        flat_acts = acts.reshape(length * batch, -1)

        def prepare(t0, t1, mm=_matmul):
            rows = slice(t0 * batch, t1 * batch)
            x_tm[t0:t1] = x[:, t0:t1].transpose(1, 0, 2)
            if in_masks is not None and len(in_masks) == 1:
                x_tm[t0:t1] *= in_masks[0][None]
            elif in_masks is not None:
                for part, m in zip(x_rows, in_masks):
                    xp.multiply(x_tm[t0:t1], m[None], out=part[rows].reshape(t1 - t0, batch, -1))
            _project(xp, [part[rows] for part in x_rows], kernel, out=flat_acts[rows], mm=mm)
            acts[t0:t1] += bias
        return x_rows, prepare

    def backward(self, xp, x, w, s, mask, go_backwards, cache, g_seq, g_final,
                 drop=(None, None)):
        """BPTT. A gradient left on the output after the first step (masked steps
        before any real one) belongs to the zero initial output, not to h."""
        kernel, rec, bias = w
        batch, length, _ = x.shape
        u = rec.shape[0]
        in_masks, rec_masks = drop
        x_rows, acts, tcs, hs, cs = cache
        h_prevs, c_prevs = (hs[1:], cs[1:]) if go_backwards else (hs[:-1], cs[:-1])
        g_out, dh, dc = g_final
        fast = None if mask is not None else _step_loops(x, hs, cs, dh, dc, g_seq, g_out)
        factors = None if fast is not None else _LSTMFactors(xp, acts, tcs, c_prevs,
                                                             go_backwards)
        one = x.dtype.type(1)
        i_, f_, g_, o_ = (acts[..., j * u:(j + 1) * u] for j in range(4))
        g_seq_tm = None if mask is None and not g_seq.any() else _swap_time_batch(xp, g_seq)
        dz_all = xp.empty((length, batch, 4 * u), dtype=x.dtype)
        dh_new, dc_total = xp.empty_like(dh), xp.empty_like(dc)
        dh_buf, dc_buf = xp.empty_like(dh), xp.empty_like(dc)
        terms = None if rec_masks is None else xp.empty((len(rec_masks), batch, u), x.dtype)
        real = None if mask is None else _step_masks(xp, mask)[0]
        order = list(_steps(length, go_backwards))
        blocks = _pipeline_blocks(x, 4 * u)
        dx = None if blocks is None else xp.empty_like(x)

        def input_grad(t0, t1):
            d = dz_all[t0:t1].reshape((t1 - t0) * batch, -1)
            dx[:, t0:t1] = _project_back_tm(xp, d, kernel, in_masks, t1 - t0).transpose(1, 0, 2)
        # a worker thread takes the input gradient of each block of steps once it is done
        pipe = _open_pipeline(x, blocks, input_grad)
        done = {} if pipe is None else {k0: b for b in blocks for k0 in b[:1]}
        try:
            for k in range(length - 1, -1, -1):
                t = order[k]
                if mask is None:
                    if g_seq_tm is not None:
                        xp.add(dh, g_out + g_seq_tm[k] if k == length - 1 else g_seq_tm[k],
                               out=dh_new)
                    elif k == length - 1:
                        xp.add(dh, g_out, out=dh_new)
                    else:
                        dh_new = dh
                    dc_new = dc
                else:
                    m = real[t]
                    g_out = g_out + g_seq_tm[k]
                    dh_new = xp.where(m, dh + g_out, 0)
                    dc_new = xp.where(m, dc, 0)
                    g_out, dh, dc = xp.where(m, 0, g_out), xp.where(m, 0, dh), xp.where(m, 0, dc)
                dz = dz_all[t]
                if fast is not None:  # the same operations, fused (numba); dc for the next
                    fast.lstm_step_back(dz, dc_buf, dh_new, dc_new, acts[t], tcs[t],
                                        c_prevs[t], one)
                    dh = _recurrent_term_back(xp, dz, rec, rec_masks, dh_buf, terms)
                    dc = dc_buf
                    if k in done:
                        pipe.put(*_block_times(done[k], length, go_backwards))
                    continue
                # dc_total = dc + dh * o * (1 - tanh(c)^2); each gate's dz as a product of
                # four factors (see _LSTMFactors)
                dc_factor, third, fourth = factors.at(t)
                xp.multiply(dh_new, o_[t], out=dc_total)
                dc_total *= dc_factor
                xp.add(dc_new, dc_total, out=dc_total)
                xp.multiply(dc_total, g_[t], out=dz[:, :u])
                xp.multiply(dc_total, c_prevs[t], out=dz[:, u:2 * u])
                xp.multiply(dc_total, i_[t], out=dz[:, 2 * u:3 * u])
                xp.multiply(dh_new, tcs[t], out=dz[:, 3 * u:])
                dz *= third
                dz *= fourth
                if mask is None:
                    dh = _recurrent_term_back(xp, dz, rec, rec_masks, dh_buf, terms)
                    dc = xp.multiply(dc_total, f_[t], out=dc_buf)
                else:
                    dh += _recurrent_term_back(xp, dz, rec, rec_masks, dh_buf, terms)
                    dc += dc_total * f_[t]
                if k in done:
                    pipe.put(*_block_times(done[k], length, go_backwards))
            flat = dz_all.reshape(length * batch, -1)
            d_rec = None
            if pipe is not None and flat.size * u < _PIPELINE_BLOCK_MACS * 4:
                # too small to split over the threads: on this thread's one BLAS thread,
                # while the worker ends the last blocks (not on two stalling BLAS threads)
                d_rec = _weight_grad(xp, _masked_rows_tm(h_prevs, rec_masks), flat)
        finally:
            if pipe is not None:
                pipe.close()
        if pipe is None:
            dx = _swap_time_batch(xp, _project_back_tm(xp, flat, kernel, in_masks, length))
        if _low_precision(kernel):
            order = _steps(length, go_backwards)
            d_kernel = _stepwise_weight_grad(xp, x_rows, flat, batch, length, order,
                                             time_major=True)
            d_rec = _stepwise_weight_grad(xp, _masked_rows_tm(h_prevs, rec_masks), flat, batch,
                                          length, order, time_major=True)
            return dx, [d_kernel, d_rec, _stepwise_bias_grad(xp, flat, batch, length, order,
                                                             time_major=True)], [dh, dc]
        d_kernel = _weight_grad(xp, x_rows, flat, mm=_sequence_matmul)
        if d_rec is None:
            d_rec = _weight_grad(xp, _masked_rows_tm(h_prevs, rec_masks), flat,  # all steps
                                 mm=_sequence_matmul)
        return dx, [d_kernel, d_rec, flat.sum(axis=0)], [dh, dc]


class _LSTMMixedDtypes(_LSTM):
    """The LSTM step loop for inputs of several dtypes (an initial state or weights of
    another dtype than x, outside the layers, which cast their weights to x's dtype):
    numpy's promotion then decides the dtype of each step's h, c and gradients (a
    float64 initial c keeps c in float64 for the whole sequence), which `_LSTM`'s
    preallocated buffers of fixed dtypes cannot follow. The same formulas as `_LSTM`,
    one array call per term."""

    def forward(self, xp, x, w, s, mask, go_backwards, drop=(None, None)):
        kernel, rec, bias = w
        h, c = s
        batch, length, _ = x.shape
        u = rec.shape[0]
        in_masks, rec_masks = drop
        # Time-major (length, batch, ...) buffers: each step's slice is contiguous.
        x_tm = _swap_time_batch(xp, x)
        xw = _project(xp, _masked_rows_tm(x_tm, in_masks), kernel, mm=_sequence_matmul)
        xw = xw.reshape(length, batch, 4 * u)
        xw += bias
        scale, shift = _lstm_gate_affine(xp, u, x.dtype)
        acts = xp.empty((length, batch, 4 * u), dtype=x.dtype)  # i, f, g, o after activation
        tcs = xp.empty((length, batch, u), dtype=x.dtype)       # tanh(c_new)
        c_prevs = xp.empty((length, batch, u), dtype=x.dtype)
        h_prevs = xp.empty((length, batch, u), dtype=x.dtype)
        seq = xp.empty((length, batch, u), dtype=x.dtype)
        out = xp.zeros_like(h)
        for k, t in enumerate(_steps(length, go_backwards)):
            z = acts[t]
            if rec_masks is None:
                xp.matmul(h, rec, out=z)
            else:
                z[...] = _project(xp, _masked_rows(h, rec_masks), rec)
            z += xw[t]
            # sigmoid(z) = 0.5 * tanh(0.5 * z) + 0.5 on i, f, o; tanh(z) on g
            z *= scale
            xp.tanh(z, out=z)
            z *= scale
            z += shift
            i, f, g, o = z[:, :u], z[:, u:2 * u], z[:, 2 * u:3 * u], z[:, 3 * u:]
            h_prevs[t], c_prevs[t] = h, c
            c_new = f * c
            c_new += i * g
            tc = xp.tanh(c_new, out=tcs[t])
            h_new = o * tc
            if mask is None:
                h, c, out = h_new, c_new, h_new
            else:
                m = mask[:, t, None]
                h, c = xp.where(m, h_new, h), xp.where(m, c_new, c)
                out = xp.where(m, h_new, out)
            seq[k] = out
        seq = _swap_time_batch(xp, seq)
        return seq, [out, h, c], (x_tm, acts, tcs, c_prevs, h_prevs)

    def backward(self, xp, x, w, s, mask, go_backwards, cache, g_seq, g_final,
                 drop=(None, None)):
        """BPTT. A gradient left on the output after the first step (masked steps
        before any real one) belongs to the zero initial output, not to h."""
        kernel, rec, bias = w
        batch, length, _ = x.shape
        u = rec.shape[0]
        in_masks, rec_masks = drop
        x_tm, acts, tcs, c_prevs, h_prevs = cache
        g_out, dh, dc = g_final
        i, f, g, o = acts[..., :u], acts[..., u:2 * u], acts[..., 2 * u:3 * u], acts[..., 3 * u:]
        g_seq_tm = _swap_time_batch(xp, g_seq)
        dz_all = xp.empty((length, batch, 4 * u), dtype=x.dtype)
        dh_new = xp.empty_like(dh)
        order = list(_steps(length, go_backwards))
        for k in range(length - 1, -1, -1):
            t = order[k]
            if mask is None:
                xp.add(dh, g_out + g_seq_tm[k] if k == length - 1 else g_seq_tm[k], out=dh_new)
                dc_new = dc
            else:
                m = mask[:, t, None]
                g_out = g_out + g_seq_tm[k]
                dh_new = xp.where(m, dh + g_out, 0)
                dc_new = xp.where(m, dc, 0)
                g_out, dh, dc = xp.where(m, 0, g_out), xp.where(m, 0, dh), xp.where(m, 0, dc)
            it, ft, gt, ot, tc = i[t], f[t], g[t], o[t], tcs[t]
            dc_total = dc_new + dh_new * ot * (1 - tc * tc)
            xp.concatenate([dc_total * gt * it * (1 - it), dc_total * c_prevs[t] * ft * (1 - ft),
                            dc_total * it * (1 - gt * gt), dh_new * tc * ot * (1 - ot)],
                           axis=1, out=dz_all[t])
            back = _project_back(dz_all[t], rec, rec_masks)
            step_dc = dc_total * ft
            if mask is None:
                dh, dc = back, step_dc
            else:
                dh += back
                dc += step_dc
        flat = dz_all.reshape(length * batch, -1)
        dx = _project_back(flat, kernel, _rows_tm(xp, in_masks, length), mm=_sequence_matmul)
        dx = _swap_time_batch(xp, dx.reshape(length, batch, -1))
        if _low_precision(kernel):
            order = _steps(length, go_backwards)
            d_kernel = _stepwise_weight_grad(xp, _masked_rows_tm(x_tm, in_masks), flat, batch,
                                             length, order, time_major=True)
            d_rec = _stepwise_weight_grad(xp, _masked_rows_tm(h_prevs, rec_masks), flat, batch,
                                          length, order, time_major=True)
            return dx, [d_kernel, d_rec, _stepwise_bias_grad(xp, flat, batch, length, order,
                                                             time_major=True)], [dh, dc]
        d_kernel = _weight_grad(xp, _masked_rows_tm(x_tm, in_masks), flat, mm=_sequence_matmul)
        d_rec = _weight_grad(xp, _masked_rows_tm(h_prevs, rec_masks), flat,  # all steps
                             mm=_sequence_matmul)
        return dx, [d_kernel, d_rec, flat.sum(axis=0)], [dh, dc]


class _GRU:
    name, num_states = "gru_sequence", 1

    def __init__(self, reset_after):
        self.reset_after = reset_after

    def reference(self, x, w, s, mask, go_backwards, drop=(None, None)):
        """The recurrence written with ops (for higher-order gradients)."""
        kernel, rec, bias = w
        u = rec.shape[0]
        b_in, b_rec = (bias[0], bias[1]) if self.reset_after else (bias, None)
        in_masks, rec_masks = drop

        def step(xt, states):
            (h,) = states
            xw = ew.add(_project_op(_parts_op(xt, in_masks), kernel), b_in)
            xz, xr, xh = xw[:, :u], xw[:, u:2 * u], xw[:, 2 * u:]
            if self.reset_after:
                hr = ew.add(_project_op(_parts_op(h, rec_masks), rec), b_rec)
                z, r = _sigmoid_op(ew.add(xz, hr[:, :u])), _sigmoid_op(ew.add(xr, hr[:, u:2 * u]))
                hh = ew.tanh(ew.add(xh, ew.multiply(r, hr[:, 2 * u:])))
            else:
                hz, hr_, hh_ = (_times_op(h, rec_masks, g) for g in range(3))
                z = _sigmoid_op(ew.add(xz, hz @ rec[:, :u]))
                r = _sigmoid_op(ew.add(xr, hr_ @ rec[:, u:2 * u]))
                hh = ew.tanh(ew.add(xh, ew.multiply(r, hh_) @ rec[:, 2 * u:]))
            h_new = ew.add(ew.multiply(z, h), ew.multiply(ew.subtract(1.0, z), hh))
            return h_new, [h_new]
        return _run_reference(step, x, list(s), mask, go_backwards)

    def _biases(self, bias, u):
        if self.reset_after:
            return bias[0], bias[1]
        return bias, None

    def forward(self, xp, x, w, s, mask, go_backwards, drop=(None, None)):
        kernel, rec, bias = w
        (h,) = s
        batch, length, _ = x.shape
        u = rec.shape[0]
        b_in, b_rec = self._biases(bias, u)
        in_masks, rec_masks = drop
        xw = _project(xp, _masked_rows(x, in_masks), kernel, mm=_sequence_matmul).reshape(
            batch, length, 3 * u) + b_in
        seq = xp.zeros((batch, length, u), dtype=x.dtype)
        cache, out = [], xp.zeros_like(h)
        for k, t in enumerate(_steps(length, go_backwards)):
            xz, xr, xh = xw[:, t, :u], xw[:, t, u:2 * u], xw[:, t, 2 * u:]
            if self.reset_after:
                hr = _project(xp, _masked_rows(h, rec_masks), rec) + b_rec
                z, r = _sigmoid(xp, xz + hr[:, :u]), _sigmoid(xp, xr + hr[:, u:2 * u])
                rh = hr[:, 2 * u:]
                hh = xp.tanh(xh + r * rh)
            else:
                hz, hr_, hh_ = _gate_states(h, rec_masks, 3)
                z = _sigmoid(xp, xz + hz @ rec[:, :u])
                r = _sigmoid(xp, xr + hr_ @ rec[:, u:2 * u])
                rh = (r * hh_) @ rec[:, 2 * u:]
                hh = xp.tanh(xh + rh)
            h_new = z * h + (1 - z) * hh
            m = None if mask is None else mask[:, t, None]
            cache.append((k, t, h, z, r, hh, rh, m))
            h = _masked(xp, m, h_new, h)
            out = _masked(xp, m, h_new, out)
            seq[:, k] = out
        return seq, [out, h], cache

    def backward(self, xp, x, w, s, mask, go_backwards, cache, g_seq, g_final,
                 drop=(None, None)):
        kernel, rec, bias = w
        batch, length, _ = x.shape
        u = rec.shape[0]
        in_masks, rec_masks = drop
        g_out, dh = g_final
        dx_all = xp.zeros((batch, length, 3 * u), dtype=x.dtype)
        low = _low_precision(kernel)  # sum the steps' weight gradients in float32 (see above)
        acc = xp.float32 if low else x.dtype
        d_rec = xp.zeros(rec.shape, dtype=acc)
        d_brec = xp.zeros((3 * u,), dtype=acc)
        for k, t, h_prev, z, r, hh, rh, m in reversed(cache):
            g_out = g_out + g_seq[:, k]
            if m is None:
                dh_new, g_out, carry = dh + g_out, xp.zeros_like(g_out), 0
            else:
                dh_new = xp.where(m, dh + g_out, 0)
                g_out, carry = xp.where(m, 0, g_out), xp.where(m, 0, dh)
            dhh = dh_new * (1 - z) * (1 - hh * hh)
            dz = dh_new * (h_prev - hh) * z * (1 - z)
            dh_prev = dh_new * z
            if self.reset_after:
                dr = dhh * rh * r * (1 - r)
                d_hr = xp.concatenate([dz, dr, dhh * r], axis=1)
                d_rec += _weight_grad(xp, _masked_rows(h_prev, rec_masks), d_hr).astype(acc)
                d_brec += d_hr.sum(axis=0).astype(acc)
                dh_prev = dh_prev + _project_back(d_hr, rec, rec_masks)
            else:
                hz, hr_, hh_ = _gate_states(h_prev, rec_masks, 3)
                d_rh = dhh
                d_rhprod = d_rh @ rec[:, 2 * u:].T
                dr = d_rhprod * hh_ * r * (1 - r)
                d_rec[:, 2 * u:] += ((r * hh_).T @ d_rh).astype(acc)
                d_rec[:, :u] += (hz.T @ dz).astype(acc)
                d_rec[:, u:2 * u] += (hr_.T @ dr).astype(acc)
                dh_prev = (dh_prev + _times(d_rhprod * r, rec_masks, 2)
                           + _times(dz @ rec[:, :u].T, rec_masks, 0)
                           + _times(dr @ rec[:, u:2 * u].T, rec_masks, 1))
            dx_all[:, t] = xp.concatenate([dz, dr, dhh], axis=1)
            dh = carry + dh_prev
        flat = dx_all.reshape(batch * length, -1)
        dx = _project_back(flat, kernel, in_masks, x.shape, mm=_sequence_matmul)
        if low:
            order = _steps(length, go_backwards)
            d_kernel = _stepwise_weight_grad(xp, _masked_rows(x, in_masks), flat, batch,
                                             length, order)
            d_bin = _stepwise_bias_grad(xp, flat, batch, length, order)
        else:
            d_kernel = _weight_grad(xp, _masked_rows(x, in_masks), flat, mm=_sequence_matmul)
            d_bin = flat.sum(axis=0)
        d_bias = xp.stack([d_bin, d_brec]) if self.reset_after else d_bin
        return dx, [d_kernel, d_rec, d_bias], [dh]


class _SimpleRNN:
    name, num_states = "simple_rnn_sequence", 1

    def reference(self, x, w, s, mask, go_backwards, drop=(None, None)):
        """The recurrence written with ops (for higher-order gradients)."""
        kernel, rec, bias = w
        in_masks, rec_masks = drop

        def step(xt, states):
            h_new = ew.tanh(ew.add(ew.add(_project_op(_parts_op(xt, in_masks), kernel),
                                          _project_op(_parts_op(states[0], rec_masks), rec)),
                                   bias))
            return h_new, [h_new]
        return _run_reference(step, x, list(s), mask, go_backwards)

    def forward(self, xp, x, w, s, mask, go_backwards, drop=(None, None)):
        kernel, rec, bias = w
        (h,) = s
        batch, length, _ = x.shape
        u = rec.shape[0]
        in_masks, rec_masks = drop
        xw = _project(xp, _masked_rows(x, in_masks), kernel, mm=_sequence_matmul).reshape(
            batch, length, u) + bias
        seq = xp.zeros((batch, length, u), dtype=x.dtype)
        cache, out = [], xp.zeros_like(h)
        for k, t in enumerate(_steps(length, go_backwards)):
            h_new = xp.tanh(xw[:, t] + _project(xp, _masked_rows(h, rec_masks), rec))
            m = None if mask is None else mask[:, t, None]
            cache.append((k, t, h, h_new, m))
            h = _masked(xp, m, h_new, h)
            out = _masked(xp, m, h_new, out)
            seq[:, k] = out
        return seq, [out, h], cache

    def backward(self, xp, x, w, s, mask, go_backwards, cache, g_seq, g_final,
                 drop=(None, None)):
        kernel, rec, bias = w
        batch, length, _ = x.shape
        in_masks, rec_masks = drop
        g_out, dh = g_final
        dz_all = xp.zeros((batch, length, rec.shape[0]), dtype=x.dtype)
        h_prevs = xp.zeros_like(dz_all)
        for k, t, h_prev, h_new, m in reversed(cache):
            g_out = g_out + g_seq[:, k]
            if m is None:
                dh_new, g_out, carry = dh + g_out, xp.zeros_like(g_out), 0
            else:
                dh_new = xp.where(m, dh + g_out, 0)
                g_out, carry = xp.where(m, 0, g_out), xp.where(m, 0, dh)
            dz = dh_new * (1 - h_new * h_new)
            dz_all[:, t] = dz
            h_prevs[:, t] = h_prev
            dh = carry + _project_back(dz, rec, rec_masks)
        flat = dz_all.reshape(batch * length, -1)
        dx = _project_back(flat, kernel, in_masks, x.shape, mm=_sequence_matmul)
        if _low_precision(kernel):
            order = _steps(length, go_backwards)
            d_kernel = _stepwise_weight_grad(xp, _masked_rows(x, in_masks), flat, batch,
                                             length, order)
            d_rec = _stepwise_weight_grad(xp, _masked_rows(h_prevs, rec_masks), flat, batch,
                                          length, order)
            return dx, [d_kernel, d_rec, _stepwise_bias_grad(xp, flat, batch, length,
                                                             order)], [dh]
        d_kernel = _weight_grad(xp, _masked_rows(x, in_masks), flat, mm=_sequence_matmul)
        d_rec = _weight_grad(xp, _masked_rows(h_prevs, rec_masks), flat,  # all steps
                             mm=_sequence_matmul)
        return dx, [d_kernel, d_rec, flat.sum(axis=0)], [dh]


_lstm = _LSTM()
_lstm_mixed = _LSTMMixedDtypes()
_gru_after = _GRU(reset_after=True)
_gru_before = _GRU(reset_after=False)
_simple = _SimpleRNN()


def _as_bool(mask):
    return mask.astype(bool)


_GATES = {"lstm_sequence": 4, "gru_sequence": 3, "simple_rnn_sequence": 1}


def _dropout_arrays(cell, dropout, dev, x, units):
    """`dropout=(input_masks, recurrent_masks)` as raw (G, batch, n) arrays (or None)."""
    if dropout is None:
        return None, None
    if not isinstance(dropout, (list, tuple)) or len(dropout) != 2:
        raise ValueError(f"ops.{cell.name}: `dropout` must be a pair (input_masks, "
                         f"recurrent_masks); received {dropout!r}.")
    arrays = []
    for which, masks, n in (("input", dropout[0], x.shape[-1]), ("recurrent", dropout[1], units)):
        if masks is None:
            arrays.append(None)
            continue
        masks = list(masks) if isinstance(masks, (list, tuple)) else [masks]
        stack = functools.partial(_stack_masks, dev.xp, x._value.dtype)
        stacked = derive(stack, *[core.to_array(m, dev) for m in masks])
        if len(masks) not in (1, _GATES[cell.name]) or stacked.shape[1:] != (x.shape[0], n):
            raise ValueError(
                f"ops.{cell.name}: {which} dropout masks must be one array or one per gate "
                f"({_GATES[cell.name]}), each of shape ({x.shape[0]}, {n}); received "
                f"{len(masks)} of shape {tuple(stacked.shape[1:])}.")
        arrays.append(stacked)
    return tuple(arrays)


def _stack_masks(xp, dtype, *masks):
    return xp.stack([m.astype(dtype, copy=False) for m in masks])


def _keras_order(cell, tensors, drop, implementation):
    """The `rnn_keras_order` loop for a call no tape records (float32 LSTM with
    implementation 2 or GRU, no dropout masks), else None."""
    if recording._active or any(d is not None for d in drop) or \
            any(t.dtype != "float32" for t in tensors):
        return None
    if cell is _lstm and implementation == 2:
        return rnn_keras_order.lstm
    if cell in (_gru_after, _gru_before):
        return functools.partial(rnn_keras_order.gru, reset_after=cell.reset_after)
    return None


def _run(cell, x, weights, states, mask, go_backwards, dropout=None, implementation=2):
    """Converts the inputs and applies a `Sequence` Op for `cell`."""
    tensors = [core.convert_to_tensor(x)] + [core.convert_to_tensor(w) for w in weights] + \
        [core.convert_to_tensor(st) for st in states]
    if KerasTensor in map(type, tensors):
        return Sequence(cell, None, go_backwards)(*tensors)  # answers with its shape rule
    _, tensors, dev = core.operands(cell.name, *tensors)
    if cell is _lstm and len({t.dtype for t in tensors}) > 1:
        cell = _lstm_mixed
    maskv = None if mask is None else derive(_as_bool, core.to_array(mask, dev))
    drop = _dropout_arrays(cell, dropout, dev, tensors[0], tensors[4].shape[-1])
    inference = _keras_order(cell, tensors, drop, implementation)
    return Sequence(cell, maskv, go_backwards, drop, inference)(*tensors)


_DROPOUT_DOC = """dropout: None, or `(input_masks, recurrent_masks)`: each None, one
            mask, or a list with one mask per gate (Keras's `implementation=1`).
            Input masks have shape (batch, features) and multiply every step's
            input; recurrent masks (batch, units) multiply the state where it
            enters the recurrent projection. Masks are fixed for the sequence."""


def lstm_sequence(x, kernel, recurrent_kernel, bias, h, c, mask=None, go_backwards=False,
                  dropout=None, implementation=2):
    """Runs a Keras-layout LSTM over `x` (batch, time, features).

    Args:
        x: (batch, time, features).
        kernel, recurrent_kernel, bias: the LSTM cell's weights (gates i, f, c, o).
        h, c: initial states (batch, units).
        mask: optional (batch, time) booleans; masked steps carry the state.
        go_backwards: process the sequence from the last step.
        {dropout}
        implementation: Keras's `LSTMCell.implementation` (1 with recurrent
            dropout): inference outside a tape follows Keras's order exactly
            for 2 (see `rnn_keras_order`).

    Returns:
        (outputs (batch, time, units), last_output, h, c).

    Example:
        >>> x = ops.ones((2, 5, 3))
        >>> k, r, b = ops.ones((3, 16)), ops.ones((4, 16)), ops.zeros(16)
        >>> h0 = ops.zeros((2, 4))
        >>> lstm_sequence(x, k, r, b, h0, h0)[0].shape
        (2, 5, 4)
    """
    return _run(_lstm, x, [kernel, recurrent_kernel, bias], [h, c], mask, go_backwards, dropout,
                implementation)


def gru_sequence(x, kernel, recurrent_kernel, bias, h, mask=None, go_backwards=False,
                 reset_after=True, dropout=None):
    """Runs a Keras-layout GRU over `x`. Returns (outputs, last_output, h).

    Args:
        x, kernel, recurrent_kernel, bias, h, mask, go_backwards: as `lstm_sequence`
            (gates z, r, h; bias (2, 3*units) with `reset_after`).
        reset_after: Keras 3's convention (True) or the original GRU (False).
        {dropout}
    """
    cell = _gru_after if reset_after else _gru_before
    return _run(cell, x, [kernel, recurrent_kernel, bias], [h], mask, go_backwards, dropout)


def simple_rnn_sequence(x, kernel, recurrent_kernel, bias, h, mask=None, go_backwards=False,
                        dropout=None):
    """Runs a tanh simple RNN over `x`. Returns (outputs, last_output, h).

    Args:
        x, kernel, recurrent_kernel, bias, h, mask, go_backwards: as `lstm_sequence`.
        {dropout}
    """
    return _run(_simple, x, [kernel, recurrent_kernel, bias], [h], mask, go_backwards, dropout)


for _fn in (lstm_sequence, gru_sequence, simple_rnn_sequence):
    _fn.__doc__ = _fn.__doc__.replace("{dropout}", _DROPOUT_DOC)
