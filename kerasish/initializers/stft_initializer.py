"""STFT: the fixed Conv1D kernels of a short-time Fourier transform (`STFTSpectrogram`)."""
import numpy as np

from kerasish import ops
from kerasish.backend import config
from kerasish.initializers.initializer import Initializer

_SIDES = ("real", "imag")
_SCALINGS = (None, "density", "spectrum")


def get_window(window, length, periodic=False):
    """`scipy.signal.get_window(window, length, fftbins=periodic)` as float64 numbers."""
    import scipy.signal  # heavy (about 1 s): imported only when a window is named
    return scipy.signal.get_window(window, length, periodic)


class STFT(Initializer):
    """Kernel of shape `(frame_length, 1, fft_length // 2 + 1)` whose Conv1D is an STFT.

    Entry `[t, 0, k]` is `cos(-2 pi t k / n)` (`side="real"`) or `sin(...)`
    (`side="imag"`), `n = 2 * (bins - 1)`, times the window at `t` divided by
    the window's L2 norm (`scaling="density"`) or L1 norm (`"spectrum"`), as in
    Keras 3.15.1 (computed in the requested dtype, the window from
    `scipy.signal.get_window`).

    Args:
        side: "real" or "imag".
        window: a `scipy.signal.windows` name ("hann", "hamming", ...), an
            array of `frame_length` values, or None for no window.
        scaling: "density", "spectrum" or None.
        periodic: whether a named window is periodic (`fftbins=True`).

    Example:
        >>> kernel = keras.initializers.STFT("real", "hann")((16, 1, 9))
        >>> kernel.shape
        (16, 1, 9)
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in _SIDES:
            raise ValueError(f"STFT: side should be 'real' or 'imag', not {side!r}")
        if isinstance(window, str):
            get_window(window, 1)  # an unknown name raises here, as in Keras
        if scaling not in _SCALINGS:
            raise ValueError("STFT: scaling is invalid, it must be `None`, 'density' or "
                             f"'spectrum'. Received scaling={scaling!r}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def _window(self, frame_length, dtype):
        window = self.window
        if isinstance(window, str):
            window = get_window(window, frame_length, self.periodic)
        window = np.asarray(ops.convert_to_numpy(window)).astype(dtype)
        if window.ndim != 1 or window.shape[0] != frame_length:
            raise ValueError("STFT: the shape of `window` must be equal to [frame_length]. "
                             f"Received: window shape={window.shape}")
        return window.reshape(frame_length, 1, 1)

    def __call__(self, shape, dtype=None):
        dtype = np.dtype(config.standardize_dtype(dtype))
        frame_length, _, bins = shape
        freq = np.arange(bins, dtype=dtype).reshape(1, 1, bins) / dtype.type((bins - 1) * 2)
        time = np.arange(frame_length, dtype=dtype).reshape(frame_length, 1, 1)
        args = (dtype.type(-2) * time) * freq * np.arccos(dtype.type(-1))
        kernel = (np.cos(args) if self.side == "real" else np.sin(args)).astype(dtype)
        if self.window is not None:
            window = self._window(frame_length, dtype)
            scale = {None: dtype.type(1), "density": np.sqrt(np.sum(np.square(window))),
                     "spectrum": np.sum(np.abs(window))}[self.scaling]
            kernel = (kernel * window / scale).astype(dtype)
        return ops.convert_to_tensor(kernel, dtype=dtype.name)

    def get_config(self):
        window = self.window
        if window is not None and not isinstance(window, str):
            window = np.asarray(ops.convert_to_numpy(window)).tolist()
        return {"side": self.side, "window": window, "periodic": self.periodic,
                "scaling": self.scaling}
