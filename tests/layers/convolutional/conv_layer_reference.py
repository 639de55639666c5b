"""Independent references for the convolution layer tests (scipy.signal.correlate).

Imported by the tests of this folder (pytest puts the folder on sys.path).
"""
import numpy as np
from scipy import signal


def same_pads(size, k_eff, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + k_eff - size, 0)
    return total // 2, total - total // 2


def dilate(kernel, dilation):
    """Spreads kernel taps `dilation` apart along the leading spatial axes."""
    nd = len(dilation)
    shape = tuple(d * (k - 1) + 1 for k, d in zip(kernel.shape[:nd], dilation)) + kernel.shape[nd:]
    out = np.zeros(shape, kernel.dtype)
    out[tuple(slice(None, None, d) for d in dilation)] = kernel
    return out


def conv_nd(x, kernel, strides, padding, dilation, groups=1):
    """Channels_last grouped convolution as a sum of per-channel scipy correlations."""
    nd = x.ndim - 2
    kernel = dilate(np.asarray(kernel, np.float64), dilation)
    if padding == "same":
        pads = [same_pads(x.shape[1 + i], kernel.shape[i], strides[i]) for i in range(nd)]
    elif padding == "causal":
        pads = [(kernel.shape[0] - 1, 0)]
    else:
        pads = [(0, 0)] * nd
    x = np.pad(np.asarray(x, np.float64), [(0, 0)] + pads + [(0, 0)])
    cg, filters = kernel.shape[-2], kernel.shape[-1]
    fg = filters // groups
    outputs = []
    for n in range(x.shape[0]):
        maps = []
        for f in range(filters):
            g = f // fg
            maps.append(sum(signal.correlate(x[n, ..., g * cg + c], kernel[..., c, f],
                                             mode="valid") for c in range(cg)))
        outputs.append(np.stack(maps, axis=-1))
    y = np.stack(outputs)
    return y[(slice(None),) + tuple(slice(None, None, s) for s in strides)]
