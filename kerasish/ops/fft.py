"""Fourier transforms: fft, fft2, ifft2, rfft, irfft, stft, istft, extract_sequences.

As in Keras, complex values travel as `(real, imag)` pairs of float tensors.
The arrays are transformed with the device's FFT module (`xp.fft`: numpy.fft
on CPU, cupy.fft on GPU). One primitive, `_complex_fftn`, carries the
gradient: a DFT is linear, so its vector-Jacobian product is the adjoint
transform (`n * ifftn` for `fftn`, `fftn / n` for `ifftn`), itself written
with `_complex_fftn`, which makes every order differentiable. The other
transforms are compositions of that primitive with differentiable slicing,
padding and gathering.
"""
import math

import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, creation, elementwise as ew, manipulation as shape_ops
from kerasish.ops.control_flow import custom_gradient
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.ops.symbolic import keras_op

_WINDOWS = ("hann", "hamming")


def _fft_dtype(name, x):
    """The float dtype an FFT computes and returns in (float32 or float64)."""
    kind = core.config.to_numpy_dtype(x.dtype).kind if x.dtype != "bfloat16" else "f"
    if kind != "f":
        raise ValueError(
            f"ops.{name}: At least one tensor in input `x` is not of type float. "
            f"Received: x with dtype {x.dtype} (shape {tuple(x.shape)}).")
    return "float64" if x.dtype == "float64" else "float32"


def _complex_parts(name, x, min_rank):
    """Validates a `(real, imag)` pair and returns both as tensors of one float dtype."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        got = f"a {type(x).__name__} of length {len(x)}" if isinstance(x, (tuple, list)) \
            else f"x={x!r}"
        raise ValueError(
            f"ops.{name}: Input `x` should be a tuple of two tensors - real and imaginary. "
            f"Received: {got}")
    real, imag = core.convert_to_tensor(x[0]), core.convert_to_tensor(x[1])
    if real.shape != imag.shape:
        raise ValueError(
            f"ops.{name}: Both the real and imaginary parts should have the same shape. "
            f"Received: x[0].shape = {tuple(real.shape)}, x[1].shape = {tuple(imag.shape)}")
    if real.ndim < min_rank:
        raise ValueError(
            f"ops.{name}: Input should have rank >= {min_rank}. "
            f"Received: input.shape = {tuple(real.shape)}")
    dtype = _fft_dtype(name, real)
    _fft_dtype(name, imag)
    return core.cast(real, dtype), core.cast(imag, dtype)


def _symbolic_pair(name, real, imag, n_axes):
    """True for KerasTensor inputs, once the transformed axes are checked to be known
    (Keras's rule: their sizes must be fully defined)."""
    if real.__class__ is not KerasTensor and imag.__class__ is not KerasTensor:
        return False
    if None in real.shape[-n_axes:]:
        what = "last dimension" if n_axes == 1 else f"last {n_axes} axes"
        raise ValueError(f"ops.{name}: Input should have its {what} fully-defined. "
                         f"Received: input.shape = {tuple(real.shape)}")
    return True


def _complex_fftn(real, imag, axes, inverse):
    """(real, imag) of `fftn` (or `ifftn` if `inverse`) over `axes`, differentiable."""
    @custom_gradient
    def transform(re, im):
        xp = re._device.xp
        z = re._value + 1j * im._value
        out = xp.fft.ifftn(z, axes=axes) if inverse else xp.fft.fftn(z, axes=axes)
        dtype = re._value.dtype
        result = (Tensor(xp.ascontiguousarray(out.real.astype(dtype)), re._device),
                  Tensor(xp.ascontiguousarray(out.imag.astype(dtype)), re._device))
        n = math.prod(re.shape[a] for a in axes)

        def adjoint(g_re, g_im):
            a_re, a_im = _complex_fftn(g_re, g_im, axes, not inverse)
            scale = float(n) if not inverse else 1.0 / n
            return ew.multiply(a_re, scale), ew.multiply(a_im, scale)
        return result, adjoint
    return transform(real, imag)


@keras_op
def fft(x):
    """Fast Fourier transform along the last axis.

    Args:
        x: a tuple `(real, imag)` of float tensors of one shape (rank >= 1).

    Returns:
        tuple `(real, imag)` of the transform, float32 (float64 for float64 input).

    Example:
        >>> re, im = ops.fft((ops.convert_to_tensor([1.0, 0.0]), ops.zeros(2)))   # [1, 1], [0, 0]
    """
    real, imag = _complex_parts("fft", x, 1)
    if _symbolic_pair("fft", real, imag, 1):
        return KerasTensor(real.shape, real.dtype), KerasTensor(imag.shape, imag.dtype)
    return _complex_fftn(real, imag, (real.ndim - 1,), inverse=False)


@keras_op
def fft2(x):
    """2-D fast Fourier transform over the last two axes.

    Args:
        x: a tuple `(real, imag)` of float tensors of one shape (rank >= 2).

    Returns:
        tuple `(real, imag)` of the transform.

    Example:
        >>> re, im = ops.fft2((ops.ones((2, 2)), ops.zeros((2, 2))))   # re = [[4, 0], [0, 0]]
    """
    real, imag = _complex_parts("fft2", x, 2)
    if _symbolic_pair("fft2", real, imag, 2):
        return KerasTensor(real.shape, real.dtype), KerasTensor(imag.shape, imag.dtype)
    return _complex_fftn(real, imag, (real.ndim - 2, real.ndim - 1), inverse=False)


@keras_op
def ifft2(x):
    """Inverse 2-D fast Fourier transform over the last two axes (scaled by 1/n).

    Args:
        x: a tuple `(real, imag)` of float tensors of one shape (rank >= 2).

    Returns:
        tuple `(real, imag)` of the inverse transform.

    Example:
        >>> re, im = ops.ifft2((ops.ones((2, 2)), ops.zeros((2, 2))))   # re = [[1, 0], [0, 0]]
    """
    real, imag = _complex_parts("ifft2", x, 2)
    if _symbolic_pair("ifft2", real, imag, 2):
        return KerasTensor(real.shape, real.dtype), KerasTensor(imag.shape, imag.dtype)
    return _complex_fftn(real, imag, (real.ndim - 2, real.ndim - 1), inverse=True)


def _fit_last_axis(x, n):
    """Crops or zero-pads the last axis of `x` to length `n`."""
    size = x.shape[-1]
    if n < size:
        return x[..., :n]
    if n > size:
        return shape_ops.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - size)])
    return x


def _check_length(name, fft_length):
    if fft_length is not None and (not isinstance(fft_length, (int, np.integer))
                                   or isinstance(fft_length, bool) or fft_length < 1):
        raise ValueError(f"ops.{name}: `fft_length` must be a positive int or None. "
                         f"Received: fft_length={fft_length!r}")


@keras_op
def rfft(x, fft_length=None):
    """Fourier transform of a real signal along the last axis (the non-negative frequencies).

    Args:
        x: float tensor of rank >= 1.
        fft_length: transform length; the last axis is cropped or zero-padded
            to it (default: its size). The result has `fft_length // 2 + 1` bins.

    Returns:
        tuple `(real, imag)`, float32 (as Keras's TensorFlow backend, even for float64 input).

    Example:
        >>> re, im = ops.rfft(ops.convert_to_tensor([1.0, 2.0, 3.0, 4.0]))   # re = [10, -2, -2]
    """
    x = core.convert_to_tensor(x)
    if x.ndim < 1:
        raise ValueError(f"ops.rfft: Input should have rank >= 1. "
                         f"Received: input.shape = {tuple(x.shape)}")
    _check_length("rfft", fft_length)
    _fft_dtype("rfft", x)
    x = core.cast(x, "float32")
    n = x.shape[-1] if fft_length is None else int(fft_length)
    if x.__class__ is KerasTensor:
        bins = None if n is None else n // 2 + 1
        shape = x.shape[:-1] + (bins,)
        return KerasTensor(shape, "float32"), KerasTensor(shape, "float32")
    x = _fit_last_axis(x, n)
    real, imag = _complex_fftn(x, creation.zeros_like(x), (x.ndim - 1,), inverse=False)
    bins = n // 2 + 1
    return real[..., :bins], imag[..., :bins]


@keras_op
def irfft(x, fft_length=None):
    """Inverse of `rfft`: a real signal from its non-negative-frequency bins.

    The bins are cropped or zero-padded to `fft_length // 2 + 1`; the
    imaginary parts of the zero (and, for even lengths, the Nyquist) bins
    are ignored, as in numpy.fft.irfft.

    Args:
        x: a tuple `(real, imag)` of float tensors of one shape (rank >= 1).
        fft_length: output length (default: `2 * (bins - 1)`).

    Returns:
        real tensor whose last axis has `fft_length` elements.

    Example:
        >>> ops.irfft((ops.convert_to_tensor([10.0, -2.0, -2.0]),
        ...            ops.convert_to_tensor([0.0, 2.0, 0.0])))   # [1, 2, 3, 4]
    """
    real, imag = _complex_parts("irfft", x, 1)
    _check_length("irfft", fft_length)
    if real.__class__ is KerasTensor or imag.__class__ is KerasTensor:
        n = fft_length if fft_length is not None else \
            None if real.shape[-1] is None else 2 * (real.shape[-1] - 1)
        return KerasTensor(real.shape[:-1] + (n,), real.dtype)
    n = 2 * (real.shape[-1] - 1) if fft_length is None else int(fft_length)
    if n < 1:
        raise ValueError(f"ops.irfft: needs at least 2 frequency bins when `fft_length` is "
                         f"None. Received: input.shape = {tuple(real.shape)}")
    bins = n // 2 + 1
    real, imag = _fit_last_axis(real, bins), _fit_last_axis(imag, bins)
    # Hermitian completion: bin k >= bins is the conjugate of bin n - k.
    index = np.array([k if k < bins else n - k for k in range(n)], dtype="int32")
    sign = np.array([1.0 if k < bins else -1.0 for k in range(n)], dtype=real.dtype)
    full_re = shape_ops.take(real, index, axis=-1)
    full_im = ew.multiply(shape_ops.take(imag, index, axis=-1), core.convert_to_tensor(sign))
    out_re, _ = _complex_fftn(full_re, full_im, (real.ndim - 1,), inverse=True)
    return out_re


@keras_op
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of `sequence_length` samples every `sequence_stride` along the last axis.

    Args:
        x: tensor of rank >= 1.
        sequence_length: frame length.
        sequence_stride: hop between frame starts.

    Returns:
        tensor of shape `x.shape[:-1] + (num_frames, sequence_length)`, where
        `num_frames = 1 + (x.shape[-1] - sequence_length) // sequence_stride`.

    Example:
        >>> ops.extract_sequences(ops.arange(5.0), 3, 2)   # [[0, 1, 2], [2, 3, 4]]
    """
    x = core.convert_to_tensor(x)
    for arg, value in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"ops.extract_sequences: `{arg}` must be a positive integer. "
                             f"Received: {arg}={value!r}")
    if x.ndim < 1:
        raise ValueError(f"ops.extract_sequences: Input should have rank >= 1. "
                         f"Received: input.shape = {tuple(x.shape)}")
    # a signal shorter than one frame has no frames (as tf.signal.frame)
    frames = max(0, 1 + (x.shape[-1] - sequence_length) // sequence_stride)
    index = (np.arange(frames)[:, None] * sequence_stride
             + np.arange(sequence_length)[None, :]).astype("int32")
    return shape_ops.take(x, index, axis=-1)


def _window(name, window, sequence_length, fft_length, dtype):
    """The analysis window centred in `fft_length` samples (None: rectangular)."""
    if window is None:
        return None
    if isinstance(window, str):
        if window not in _WINDOWS:
            raise ValueError(
                f'ops.{name}: If a string is passed to `window`, it must be one of `"hann"`, '
                f'`"hamming"`. Received: window={window}')
        # as tf.signal.hann_window / hamming_window(periodic=True): periodic only for an
        # even length; an odd length gets the symmetric window (period length - 1), and
        # length 1 is [1]
        alpha = 0.5 if window == "hann" else 0.54
        k = np.arange(sequence_length, dtype=np.float64)
        period = sequence_length if sequence_length % 2 == 0 else sequence_length - 1
        values = alpha - (1.0 - alpha) * np.cos(2.0 * np.pi * k / max(period, 1)) \
            if sequence_length > 1 else np.ones(1)
    else:
        values = np.asarray(core.convert_to_numpy(window), dtype=np.float64)
        if values.shape != (sequence_length,):
            raise ValueError(
                f"ops.{name}: The shape of `window` must be equal to [sequence_length]. "
                f"Received: window shape={values.shape}, sequence_length={sequence_length}")
    left = (fft_length - sequence_length) // 2
    values = np.pad(values, (left, fft_length - sequence_length - left))
    return values.astype(dtype)


def _check_stft_args(name, sequence_length, sequence_stride, fft_length):
    for arg, value in (("sequence_length", sequence_length),
                       ("sequence_stride", sequence_stride), ("fft_length", fft_length)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(f"ops.{name}: `{arg}` must be a positive integer. "
                             f"Received: {arg}={value!r}")
    if fft_length < sequence_length:
        raise ValueError(
            f"ops.{name}: `fft_length` must equal or larger than `sequence_length`. "
            f"Received: sequence_length={sequence_length}, fft_length={fft_length}")


@keras_op
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Short-time Fourier transform along the last axis.

    Frames of `fft_length` samples every `sequence_stride` are multiplied by
    the window (`sequence_length` samples, zero-padded to `fft_length` in the
    middle) and transformed with `rfft`.

    Args:
        x: float32/float64 tensor of rank >= 1.
        sequence_length: window length.
        sequence_stride: hop between frames.
        fft_length: frame and transform length (>= sequence_length).
        window: "hann", "hamming" (periodic for an even length, symmetric for an
            odd one, as TensorFlow), a tensor of `sequence_length`
            values, or None (rectangular).
        center: reflect-pad `fft_length // 2` samples on both sides first.

    Returns:
        tuple `(real, imag)` of shape `x.shape[:-1] + (num_frames, fft_length // 2 + 1)`.

    Example:
        >>> re, im = ops.stft(ops.ones(32), 8, 4, 8)
        >>> re.shape
        (9, 5)
    """
    x = core.convert_to_tensor(x)
    if x.dtype not in ("float32", "float64"):
        raise TypeError("ops.stft: Invalid input type. Expected `float32` or `float64`. "
                        f"Received: input type={x.dtype}")
    _check_stft_args("stft", sequence_length, sequence_stride, fft_length)
    if center:
        half = fft_length // 2
        x = shape_ops.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode="reflect")
    frames = extract_sequences(x, fft_length, sequence_stride)
    win = _window("stft", window, sequence_length, fft_length, x.dtype)
    if win is not None:
        frames = ew.multiply(frames, core.convert_to_tensor(win))
    real, imag = _complex_fftn(frames, creation.zeros_like(frames), (frames.ndim - 1,),
                               inverse=False)
    bins = fft_length // 2 + 1
    return real[..., :bins], imag[..., :bins]


def _overlap_add(frames, stride):
    """Sums frames `(..., num_frames, length)` placed every `stride` samples.

    The frames are cut into `stride`-long chunks; chunk j of every frame,
    laid end to end, is one contiguous run starting at `j * stride`, so the
    sum is a few padded adds (differentiable, no scatter).
    """
    num, length = frames.shape[-2], frames.shape[-1]
    steps = -(-length // stride)
    frames = _fit_last_axis(frames, steps * stride)
    total = stride * (num - 1 + steps)
    lead = [(0, 0)] * (frames.ndim - 2)
    out = None
    for j in range(steps):
        chunk = frames[..., j * stride:(j + 1) * stride]
        run = shape_ops.reshape(chunk, tuple(chunk.shape[:-2]) + (num * stride,))
        run = shape_ops.pad(run, lead + [(j * stride, total - num * stride - j * stride)])
        out = run if out is None else ew.add(out, run)
    return out[..., :stride * (num - 1) + length]


def _synthesis_window(win, stride):
    """The analysis window divided by the overlapped sum of its squares."""
    length = win.shape[0]
    overlaps = -(-length // stride)
    squares = np.pad(np.square(win), (0, overlaps * stride - length))
    denom = np.tile(squares.reshape(overlaps, stride).sum(0), overlaps)[:length]
    # 0 where no window covers a sample (0 / 0), as tf.signal.inverse_stft_window_fn
    safe = np.where(denom == 0.0, 1.0, denom)
    return np.where(denom == 0.0, 0.0, win / safe)


@keras_op
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """Inverse short-time Fourier transform (overlap-add of windowed `irfft` frames).

    Args:
        x: a tuple `(real, imag)` of shape `(..., num_frames, fft_length // 2 + 1)`.
        sequence_length, sequence_stride, fft_length, window, center: as in `stft`.
        length: number of samples to keep (default: all, less the centre padding).

    Returns:
        real tensor of shape `(..., samples)`.

    Example:
        >>> re, im = ops.stft(ops.ones(32), 8, 4, 8)
        >>> ops.istft((re, im), 8, 4, 8).shape
        (32,)
    """
    real, imag = _complex_parts("istft", x, 2)
    _check_stft_args("istft", sequence_length, sequence_stride, fft_length)
    frames = irfft((real, imag), fft_length=fft_length)
    win = _window("istft", window, sequence_length, fft_length, real.dtype)
    if win is not None:
        frames = ew.multiply(frames, core.convert_to_tensor(
            _synthesis_window(win, sequence_stride).astype(real.dtype)))
    signal = _overlap_add(frames, sequence_stride)
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = signal.shape[-1] - fft_length // 2
    else:
        end = signal.shape[-1]
    return signal[..., start:end]
