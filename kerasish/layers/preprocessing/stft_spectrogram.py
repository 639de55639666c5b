"""STFTSpectrogram: a short-time Fourier transform as two strided Conv1D kernels."""
import math
import warnings

from kerasish import initializers, ops
from kerasish.backend import config
from kerasish.initializers.stft_initializer import get_window
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.conv import conv_output_length, standardize_data_format

_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")


class STFTSpectrogram(Layer):
    """Spectrogram of a batch of (multi-channel) signals, as Keras 3.15.1 computes it.

    The real and imaginary parts are Conv1D's of each channel with the
    `keras.initializers.STFT` kernels (trainable weights `real_kernel` and
    `imag_kernel` of shape `(frame_length, 1, fft_length // 2 + 1)`), strided
    by `frame_step`. `mode` picks the output: "real", "imag", "angle"
    (arctan2), "stft" (real and imaginary bins concatenated), "psd" (power,
    inner bins doubled), "magnitude" (`sqrt(max(power, eps))`) or "log"
    (`log(max(magnitude, eps))`).

    Args:
        mode: one of the modes above.
        frame_length: window length in samples.
        frame_step: hop in samples (default `frame_length // 2`).
        fft_length: FFT size (default: the next power of two of `frame_length`).
        window: window name, array or None (see `keras.initializers.STFT`).
        periodic: periodic window.
        scaling: "density", "spectrum" or None.
        padding: "valid" or "same".
        expand_dims: keep channels on their own axis (`(batch, time, freq, channels)`
            for channels_last) instead of concatenating them along the frequencies.
        data_format: "channels_last" (`(batch, time, channels)` inputs) or "channels_first".

    Example:
        >>> layer = keras.layers.STFTSpectrogram(mode="magnitude", frame_length=32)
        >>> layer(np.zeros((2, 256, 1), "float32")).shape
        (2, 15, 17)
    """

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None,
                 window="hann", periodic=False, scaling="density", padding="valid",
                 expand_dims=False, data_format=None, **kwargs):
        _check_arguments(mode, frame_length, frame_step, fft_length, scaling, padding)
        if isinstance(window, str):
            get_window(window, 1)  # an unknown name raises here, as in Keras
        super().__init__(**kwargs)
        self.mode, self.frame_length, self.frame_step = mode, frame_length, frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window, self.periodic, self.scaling = window, periodic, scaling
        self.padding, self.expand_dims = padding, expand_dims
        self.data_format = standardize_data_format(data_format,
                                                   f"STFTSpectrogram layer '{self.name}'")
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        for side in ("real", "imag"):
            if self.mode != ("imag" if side == "real" else "real"):
                kernel = self.add_weight(name=f"{side}_kernel", shape=shape,
                                         initializer=initializers.STFT(
                                             side, self.window, self.scaling, self.periodic))
                setattr(self, f"{side}_kernel", kernel)
        self.built = True

    def _conv(self, inputs, kernel):
        """(batch, channels, freq, frames) from a Conv1D of every channel."""
        if self.data_format == "channels_last":
            _, time, channels = inputs.shape
            signal = ops.reshape(ops.transpose(inputs, (0, 2, 1)), (-1, time, 1))
        else:
            _, channels, time = inputs.shape
            signal = ops.reshape(inputs, (-1, 1, time))
        out = ops.conv(signal, ops.cast(kernel, inputs.dtype), strides=self._frame_step,
                       padding=self.padding, data_format=self.data_format)
        if self.data_format == "channels_last":
            out = ops.transpose(out, (0, 2, 1))
        return ops.reshape(out, (-1, channels) + tuple(out.shape[1:]))

    def _arrange(self, outputs):
        _, channels, freq, frames = outputs.shape
        if self.expand_dims:
            order = (0, 3, 2, 1) if self.data_format == "channels_last" else (0, 1, 3, 2)
            return ops.transpose(outputs, order)
        outputs = ops.reshape(outputs, (-1, channels * freq, frames))
        return ops.transpose(outputs, (0, 2, 1)) if self.data_format == "channels_last" \
            else outputs

    def call(self, inputs):
        if config.standardize_dtype(inputs.dtype) not in ("float16", "float32", "float64"):
            raise TypeError("STFTSpectrogram: invalid input type. Expected `float16`, "
                            f"`float32` or `float64`. Received: input type={inputs.dtype}")
        real = self._conv(inputs, self.real_kernel) if self.mode != "imag" else None
        imag = self._conv(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode in ("real", "imag"):
            return self._arrange(real if self.mode == "real" else imag)
        if self.mode == "angle":
            return self._arrange(ops.arctan2(imag, real))
        if self.mode == "stft":
            return self._arrange(ops.concatenate([real, imag], axis=2))
        power = ops.square(real) + ops.square(imag)
        if self.mode == "psd":
            return self._arrange(power + ops.pad(power[:, :, 1:-1, :],
                                                 [[0, 0], [0, 0], [1, 1], [0, 0]]))
        magnitude = self._arrange(ops.sqrt(ops.maximum(power, config.epsilon())))
        if self.mode == "magnitude":
            return magnitude
        return ops.log(ops.maximum(magnitude, config.epsilon()))

    def compute_output_shape(self, input_shape):
        last = self.data_format == "channels_last"
        batch, time, channels = (input_shape if last else
                                 (input_shape[0], input_shape[2], input_shape[1]))
        freq = (self._fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        frames = conv_output_length(time, self.frame_length, self._frame_step, self.padding)
        if self.expand_dims:
            return (batch, frames, freq, channels) if last else (batch, channels, frames, freq)
        features = None if channels is None else freq * channels
        return (batch, frames, features) if last else (batch, features, frames)

    def get_config(self):
        config_dict = super().get_config()
        config_dict.update({
            "mode": self.mode, "frame_length": self.frame_length,
            "frame_step": self.frame_step, "fft_length": self.fft_length,
            "window": self.window, "periodic": self.periodic, "scaling": self.scaling,
            "padding": self.padding, "data_format": self.data_format,
            "expand_dims": self.expand_dims})
        return config_dict


def _check_arguments(mode, frame_length, frame_step, fft_length, scaling, padding):
    if frame_step is not None and (frame_step > frame_length or frame_step < 1):
        raise ValueError("STFTSpectrogram: `frame_step` should be a positive integer not "
                         f"greater than `frame_length`. Received frame_step={frame_step}, "
                         f"frame_length={frame_length}")
    if fft_length is not None and fft_length < frame_length:
        raise ValueError("STFTSpectrogram: `fft_length` should be not less than "
                         f"`frame_length`. Received fft_length={fft_length}, "
                         f"frame_length={frame_length}")
    if fft_length is not None and (fft_length & -fft_length) != fft_length:
        warnings.warn("`fft_length` is recommended to be a power of two. "
                      f"Received fft_length={fft_length}")
    if mode not in _MODES:
        raise ValueError("STFTSpectrogram: output mode is invalid, it must be one of "
                         f"{', '.join(_MODES)}. Received: mode={mode}")
    if scaling is not None and scaling not in ("density", "spectrum"):
        raise ValueError("STFTSpectrogram: scaling is invalid, it must be `None`, 'density' "
                         f"or 'spectrum'. Received scaling={scaling}")
    if padding not in ("valid", "same"):
        raise ValueError("STFTSpectrogram: padding is invalid, it should be 'valid', 'same'. "
                         f"Received: padding={padding}")
