"""Independent numpy step-by-step references for the recurrent layers (Keras formulas)."""
import numpy as np


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def lstm(x, kernel, rec, bias, mask=None, go_backwards=False):
    batch, steps, _ = x.shape
    u = rec.shape[0]
    h, c, out = np.zeros((batch, u)), np.zeros((batch, u)), np.zeros((batch, u))
    outputs = []
    order = range(steps - 1, -1, -1) if go_backwards else range(steps)
    for t in order:
        z = x[:, t] @ kernel + h @ rec + bias
        i, f, g, o = sigmoid(z[:, :u]), sigmoid(z[:, u:2 * u]), np.tanh(z[:, 2 * u:3 * u]), sigmoid(z[:, 3 * u:])
        c_new = f * c + i * g
        h_new = o * np.tanh(c_new)
        m = np.ones((batch, 1), bool) if mask is None else mask[:, t:t + 1]
        h, c, out = np.where(m, h_new, h), np.where(m, c_new, c), np.where(m, h_new, out)
        outputs.append(out)
    return np.stack(outputs, 1), h, c


def gru(x, kernel, rec, bias, reset_after=True):
    batch, steps, _ = x.shape
    u = rec.shape[0]
    h = np.zeros((batch, u))
    outputs = []
    for t in range(steps):
        if reset_after:
            xz = x[:, t] @ kernel + bias[0]
            hr = h @ rec + bias[1]
            z = sigmoid(xz[:, :u] + hr[:, :u])
            r = sigmoid(xz[:, u:2 * u] + hr[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + r * hr[:, 2 * u:])
        else:
            xz = x[:, t] @ kernel + bias
            z = sigmoid(xz[:, :u] + h @ rec[:, :u])
            r = sigmoid(xz[:, u:2 * u] + h @ rec[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + (r * h) @ rec[:, 2 * u:])
        h = z * h + (1 - z) * hh
        outputs.append(h)
    return np.stack(outputs, 1), h


def simple_rnn(x, kernel, rec, bias):
    h = np.zeros((x.shape[0], rec.shape[0]))
    outputs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ rec + bias)
        outputs.append(h)
    return np.stack(outputs, 1), h
