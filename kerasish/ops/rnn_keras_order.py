"""Recurrent layers' inference in Keras's step order, with TensorFlow's activations.

The fused sequence kernels (`rnn.py`) order their sums and compute their gates
for speed (the LSTM adds the bias before the recurrent term and takes sigmoid
as `0.5 tanh(z / 2) + 0.5`), so their outputs differ from Keras's in the last
bits. Where no gradient is recorded (`predict`, `evaluate`, a call outside a
GradientTape) the layers run these loops instead: the products and sums of
Keras 3's cells step by step, in their order, and Eigen's sigmoid and tanh on
each gate as TensorFlow computes them on the split-off gate tensors
(`eigen_math.split_sigmoid`/`split_tanh`). On float32 inputs the outputs are
TensorFlow's to the bit (tests/ops/test_rnn_keras_order.py).

SimpleRNN, and LSTM with implementation 1 (Keras's choice with recurrent
dropout), are not here: Keras's `predict` fuses their last product, sum and
activation into one oneDNN kernel (TensorFlow's graph rewrite), whose
activations are oneDNN's own, and its eager calls give other numbers again.

Each function takes raw arrays (x: (batch, time, features); weights; initial
states; `mask` (batch, time) booleans or None) and returns
`(sequence, [last_output, *states])` with the sequence in processing order, as
the fused kernels do: a masked step carries the states and repeats the output.
"""
from kerasish.backend.kernels import eigen_math, onednn_gemm


def _steps(length, go_backwards):
    return range(length - 1, -1, -1) if go_backwards else range(length)


def _run(xp, x, states, mask, go_backwards, step):
    """Loops `step(x_t, states) -> (output, new_states)` with Keras's masking."""
    batch, length, _ = x.shape
    out = xp.zeros_like(states[0])
    seq = xp.empty((batch, length) + out.shape[1:], dtype=out.dtype)
    for k, t in enumerate(_steps(length, go_backwards)):
        new_out, new_states = step(x[:, t], states)
        if mask is None:
            out, states = new_out, new_states
        else:
            keep = mask[:, t, None]
            out = xp.where(keep, new_out, out)
            states = [xp.where(keep, n, o) for n, o in zip(new_states, states)]
        seq[:, k] = out
    return seq, [out] + list(states)


def _sigmoid(xp, z, width):
    exact = eigen_math.split_sigmoid(xp, z, width)
    return exact if exact is not None else 1.0 / (1.0 + xp.exp(-z))


def _tanh(xp, z, width):
    exact = eigen_math.split_tanh(xp, z, width)
    return exact if exact is not None else xp.tanh(z)


def _matmul(xp, a, b):
    """Keras's cell products: TensorFlow's sgemm order (`onednn_gemm`)."""
    return onednn_gemm.matmul(xp, a, b)


def lstm(xp, x, w, s, mask, go_backwards):
    """Keras's `LSTMCell` with implementation 2 (its default: no recurrent dropout,
    i, f, c, o gates): `x @ kernel + h @ recurrent_kernel`, then the bias."""
    kernel, rec, bias = w
    u = rec.shape[0]

    def step(xt, states):
        h, c = states
        z = _matmul(xp, xt, kernel)
        z = z + _matmul(xp, h, rec)
        z = z + bias
        gates = _sigmoid(xp, z, u)
        i, f, o = gates[:, :u], gates[:, u:2 * u], gates[:, 3 * u:]
        c_new = f * c + i * _tanh(xp, z[:, 2 * u:3 * u], u)
        h_new = o * _tanh(xp, c_new, u)
        return h_new, [h_new, c_new]
    return _run(xp, x, list(s), mask, go_backwards, step)


def gru(xp, x, w, s, mask, go_backwards, reset_after=True):
    """Keras's `GRUCell` (z, r, h gates; `bias` (2, 3 units) with `reset_after`)."""
    kernel, rec, bias = w
    u = rec.shape[0]
    b_in, b_rec = (bias[0], bias[1]) if reset_after else (bias, None)

    def step(xt, states):
        (h,) = states
        xw = _matmul(xp, xt, kernel) + b_in
        if reset_after:
            inner = _matmul(xp, h, rec) + b_rec
        else:
            inner = _matmul(xp, h, rec[:, :2 * u])
        z = _sigmoid(xp, xw[:, :u] + inner[:, :u], u)
        r = _sigmoid(xp, xw[:, u:2 * u] + inner[:, u:2 * u], u)
        if reset_after:
            recurrent_h = r * inner[:, 2 * u:]
        else:
            recurrent_h = _matmul(xp, r * h, rec[:, 2 * u:])
        hh = _tanh(xp, xw[:, 2 * u:] + recurrent_h, u)
        h_new = z * h + (1 - z) * hh
        return h_new, [h_new]
    return _run(xp, x, list(s), mask, go_backwards, step)
