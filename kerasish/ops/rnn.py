"""Fused recurrent sequence ops: LSTM, GRU and simple RNN over a whole sequence.

One op per layer call: the input projection of all time steps is one GEMM,
each step's gates are a few vectorised array expressions, and the backward
pass (BPTT) runs on raw arrays. The tape records a single node, so long
sequences cost little Python overhead. Gate orders and bias layouts are
Keras's: LSTM i, f, c, o; GRU z, r, h (bias shape (2, 3u) with reset_after).

Masks follow Keras: at a masked step the state is carried over and the
output repeats the previous output. With `go_backwards` the sequence of
outputs is in processing order (last time step first), as in Keras. With an outer tape recording (second
order), the layers use their step-by-step cell path instead.
"""
from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core


def _sigmoid(xp, z):
    return 0.5 * (xp.tanh(0.5 * z) + 1.0)


def _steps(length, go_backwards):
    return range(length - 1, -1, -1) if go_backwards else range(length)


def _masked(xp, m, new, old):
    return new if m is None else xp.where(m, new, old)


class _Sequence:
    """Shared driver: runs `cell_forward` over time, records one tape node."""

    def __init__(self, name, num_states):
        self.name = name
        self.num_states = num_states

    def __call__(self, x, weights, states, mask=None, go_backwards=False):
        tensors = [core.convert_to_tensor(x)] + [core.convert_to_tensor(w) for w in weights] + \
            [core.convert_to_tensor(s) for s in states]
        values, tensors, dev = core.operands(self.name, *tensors)
        xp = dev.xp
        xv, wv, sv = values[0], values[1:1 + len(weights)], values[1 + len(weights):]
        maskv = None if mask is None else core.to_array(mask, dev).astype(bool)
        seq, final, cache = self.forward(xp, xv, wv, sv, maskv, go_backwards)
        outputs = tuple(Tensor(a, dev) for a in [seq] + final)
        if _tape._active:
            def backward(grads):
                g_seq, g_final = grads[0]._value, [g._value for g in grads[1:]]
                gx, gw, gs = self.backward(xp, xv, wv, sv, maskv, go_backwards, cache,
                                           g_seq, g_final)
                return [Tensor(a, dev) for a in [gx] + gw + gs]
            _tape.record(self.name, tuple(tensors), outputs, backward, raw=True)
        return outputs


class _LSTM(_Sequence):
    def forward(self, xp, x, w, s, mask, go_backwards):
        kernel, rec, bias = w
        h, c = s
        batch, length, _ = x.shape
        u = rec.shape[0]
        xw = (x.reshape(batch * length, -1) @ kernel).reshape(batch, length, 4 * u) + bias
        seq = xp.zeros((batch, length, u), dtype=x.dtype)
        cache = []
        out = xp.zeros_like(h)
        for k, t in enumerate(_steps(length, go_backwards)):
            z = xw[:, t] + h @ rec
            i, f = _sigmoid(xp, z[:, :u]), _sigmoid(xp, z[:, u:2 * u])
            g, o = xp.tanh(z[:, 2 * u:3 * u]), _sigmoid(xp, z[:, 3 * u:])
            c_new = f * c + i * g
            tc = xp.tanh(c_new)
            h_new = o * tc
            m = None if mask is None else mask[:, t, None]
            cache.append((k, t, h, c, i, f, g, o, tc, m))
            h, c = _masked(xp, m, h_new, h), _masked(xp, m, c_new, c)
            out = _masked(xp, m, h_new, out)
            seq[:, k] = out
        return seq, [out, h, c], cache

    def backward(self, xp, x, w, s, mask, go_backwards, cache, g_seq, g_final):
        kernel, rec, bias = w
        batch, length, _ = x.shape
        u = rec.shape[0]
        g_out, dh, dc = g_final
        dz_all = xp.zeros((batch, length, 4 * u), dtype=x.dtype)
        h_prevs = xp.zeros((batch, length, u), dtype=x.dtype)
        for k, t, h_prev, c_prev, i, f, g, o, tc, m in reversed(cache):
            g_out = g_out + g_seq[:, k]
            if m is None:
                dh_new, dc_new, g_out = dh + g_out, dc, xp.zeros_like(g_out)
            else:
                dh_new = xp.where(m, dh + g_out, 0)
                dc_new = xp.where(m, dc, 0)
                g_out, dh, dc = xp.where(m, 0, g_out), xp.where(m, 0, dh), xp.where(m, 0, dc)
            dc_total = dc_new + dh_new * o * (1 - tc * tc)
            dz = xp.concatenate([dc_total * g * i * (1 - i), dc_total * c_prev * f * (1 - f),
                                 dc_total * i * (1 - g * g), dh_new * tc * o * (1 - o)], axis=1)
            dz_all[:, t] = dz
            h_prevs[:, t] = h_prev
            dh = (dh if m is not None else 0) + dz @ rec.T
            dc = (dc if m is not None else 0) + dc_total * f
        flat = dz_all.reshape(batch * length, -1)
        dx = (flat @ kernel.T).reshape(x.shape)
        d_kernel = x.reshape(batch * length, -1).T @ flat
        d_rec = h_prevs.reshape(batch * length, -1).T @ flat  # one GEMM for all steps
        # What is left in g_out belongs to the zero output before the first step, not to h0.
        return dx, [d_kernel, d_rec, flat.sum(axis=0)], [dh, dc]


class _GRU(_Sequence):
    def __init__(self, name, reset_after):
        super().__init__(name, 1)
        self.reset_after = reset_after

    def _biases(self, bias, u):
        if self.reset_after:
            return bias[0], bias[1]
        return bias, None

    def forward(self, xp, x, w, s, mask, go_backwards):
        kernel, rec, bias = w
        (h,) = s
        batch, length, _ = x.shape
        u = rec.shape[0]
        b_in, b_rec = self._biases(bias, u)
        xw = (x.reshape(batch * length, -1) @ kernel).reshape(batch, length, 3 * u) + b_in
        seq = xp.zeros((batch, length, u), dtype=x.dtype)
        cache, out = [], xp.zeros_like(h)
        for k, t in enumerate(_steps(length, go_backwards)):
            xz, xr, xh = xw[:, t, :u], xw[:, t, u:2 * u], xw[:, t, 2 * u:]
            if self.reset_after:
                hr = h @ rec + b_rec
                z, r = _sigmoid(xp, xz + hr[:, :u]), _sigmoid(xp, xr + hr[:, u:2 * u])
                rh = hr[:, 2 * u:]
                hh = xp.tanh(xh + r * rh)
            else:
                z = _sigmoid(xp, xz + h @ rec[:, :u])
                r = _sigmoid(xp, xr + h @ rec[:, u:2 * u])
                rh = (r * h) @ rec[:, 2 * u:]
                hh = xp.tanh(xh + rh)
            h_new = z * h + (1 - z) * hh
            m = None if mask is None else mask[:, t, None]
            cache.append((k, t, h, z, r, hh, rh, m))
            h = _masked(xp, m, h_new, h)
            out = _masked(xp, m, h_new, out)
            seq[:, k] = out
        return seq, [out, h], cache

    def backward(self, xp, x, w, s, mask, go_backwards, cache, g_seq, g_final):
        kernel, rec, bias = w
        batch, length, _ = x.shape
        u = rec.shape[0]
        g_out, dh = g_final
        dx_all = xp.zeros((batch, length, 3 * u), dtype=x.dtype)
        d_rec = xp.zeros_like(rec)
        d_brec = xp.zeros((3 * u,), dtype=x.dtype)
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
                d_rec += h_prev.T @ d_hr
                d_brec += d_hr.sum(axis=0)
                dh_prev = dh_prev + d_hr @ rec.T
            else:
                d_rh = dhh
                d_rhprod = d_rh @ rec[:, 2 * u:].T
                dr = d_rhprod * h_prev * r * (1 - r)
                d_rec[:, 2 * u:] += (r * h_prev).T @ d_rh
                d_rec[:, :u] += h_prev.T @ dz
                d_rec[:, u:2 * u] += h_prev.T @ dr
                dh_prev = dh_prev + d_rhprod * r + dz @ rec[:, :u].T + dr @ rec[:, u:2 * u].T
            dx_all[:, t] = xp.concatenate([dz, dr, dhh], axis=1)
            dh = carry + dh_prev
        flat = dx_all.reshape(batch * length, -1)
        dx = (flat @ kernel.T).reshape(x.shape)
        d_kernel = x.reshape(batch * length, -1).T @ flat
        d_bin = flat.sum(axis=0)
        d_bias = xp.stack([d_bin, d_brec]) if self.reset_after else d_bin
        return dx, [d_kernel, d_rec, d_bias], [dh]  # g_out left: the zero initial output


class _SimpleRNN(_Sequence):
    def forward(self, xp, x, w, s, mask, go_backwards):
        kernel, rec, bias = w
        (h,) = s
        batch, length, _ = x.shape
        u = rec.shape[0]
        xw = (x.reshape(batch * length, -1) @ kernel).reshape(batch, length, u) + bias
        seq = xp.zeros((batch, length, u), dtype=x.dtype)
        cache, out = [], xp.zeros_like(h)
        for k, t in enumerate(_steps(length, go_backwards)):
            h_new = xp.tanh(xw[:, t] + h @ rec)
            m = None if mask is None else mask[:, t, None]
            cache.append((k, t, h, h_new, m))
            h = _masked(xp, m, h_new, h)
            out = _masked(xp, m, h_new, out)
            seq[:, k] = out
        return seq, [out, h], cache

    def backward(self, xp, x, w, s, mask, go_backwards, cache, g_seq, g_final):
        kernel, rec, bias = w
        batch, length, _ = x.shape
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
            dh = carry + dz @ rec.T
        flat = dz_all.reshape(batch * length, -1)
        dx = (flat @ kernel.T).reshape(x.shape)
        d_kernel = x.reshape(batch * length, -1).T @ flat
        d_rec = h_prevs.reshape(batch * length, -1).T @ flat  # one GEMM for all steps
        return dx, [d_kernel, d_rec, flat.sum(axis=0)], [dh]  # g_out left: zero initial output


_lstm = _LSTM("lstm_sequence", 2)
_gru_after = _GRU("gru_sequence", reset_after=True)
_gru_before = _GRU("gru_sequence", reset_after=False)
_simple = _SimpleRNN("simple_rnn_sequence", 1)


def lstm_sequence(x, kernel, recurrent_kernel, bias, h, c, mask=None, go_backwards=False):
    """Runs a Keras-layout LSTM over `x` (batch, time, features).

    Returns:
        (outputs (batch, time, units), last_output, h, c).
    """
    return _lstm(x, [kernel, recurrent_kernel, bias], [h, c], mask, go_backwards)


def gru_sequence(x, kernel, recurrent_kernel, bias, h, mask=None, go_backwards=False,
                 reset_after=True):
    """Runs a Keras-layout GRU over `x`. Returns (outputs, last_output, h)."""
    op = _gru_after if reset_after else _gru_before
    return op(x, [kernel, recurrent_kernel, bias], [h], mask, go_backwards)


def simple_rnn_sequence(x, kernel, recurrent_kernel, bias, h, mask=None, go_backwards=False):
    """Runs a tanh simple RNN over `x`. Returns (outputs, last_output, h)."""
    return _simple(x, [kernel, recurrent_kernel, bias], [h], mask, go_backwards)
