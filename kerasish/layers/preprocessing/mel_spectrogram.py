"""MelSpectrogram: power spectrogram on the mel scale, optionally in decibels."""
from kerasish import ops
from kerasish.layers.layer import Layer

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


class MelSpectrogram(Layer):
    """Mel spectrogram of `(time,)` or `(batch, time)` signals, as Keras 3.15.1 computes it.

    `|ops.stft(x, sequence_length, sequence_stride, fft_length, window, center=True)|`
    raised to `mag_exp`, projected on `num_mel_bins` triangular mel filters between
    `min_freq` and `max_freq` (TensorFlow's `linear_to_mel_weight_matrix`), then,
    with `power_to_db`, `10 log10(max(x, min_power)) - 10 log10(max(|ref_power|,
    min_power))` floored at the batch's maximum minus `top_db`. The output is
    `(batch, num_mel_bins, frames)` (or `(num_mel_bins, frames)`).

    Args:
        fft_length: FFT size.
        sequence_stride: hop in samples.
        sequence_length: window length (default `fft_length`).
        window: "hann", "hamming" or None.
        sampling_rate: sampling rate of the signals in Hz.
        num_mel_bins: number of mel filters.
        min_freq, max_freq: frequency range of the filters in Hz (max: half the rate).
        power_to_db: convert the power to decibels.
        top_db: dynamic range kept by `power_to_db`.
        mag_exp: exponent of the magnitude (2 for power).
        min_power: floor of the power before the logarithm.
        ref_power: reference power of 0 dB.

    Example:
        >>> layer = keras.layers.MelSpectrogram(fft_length=256, sequence_stride=128,
        ...                                     num_mel_bins=40)
        >>> layer(np.zeros((2, 1024), "float32")).shape
        (2, 40, 9)
    """

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None,
                 window="hann", sampling_rate=16000, num_mel_bins=128, min_freq=20.0,
                 max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0, min_power=1e-10,
                 ref_power=1.0, **kwargs):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError("MelSpectrogram: `fft_length` must be greater than or equal to "
                             f"`sequence_length`. Received: `sequence_length`="
                             f"{self.sequence_length}, `fft_length`={self.fft_length}.")
        self.window, self.sampling_rate, self.num_mel_bins = window, sampling_rate, num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db, self.top_db, self.mag_exp = power_to_db, top_db, mag_exp
        self.min_power, self.ref_power = min_power, ref_power
        super().__init__(**kwargs)

    def call(self, inputs):
        dtype = self.compute_dtype if self.compute_dtype in ("float32", "float64") else "float32"
        inputs = ops.convert_to_tensor(inputs, dtype=dtype)
        real, imag = ops.stft(inputs, sequence_length=self.sequence_length,
                              sequence_stride=self.sequence_stride,
                              fft_length=self.fft_length, window=self.window, center=True)
        spectrum = ops.power(ops.sqrt(ops.square(real) + ops.square(imag)), self.mag_exp)
        outputs = ops.tensordot(spectrum, self._mel_matrix(spectrum.shape[-1]), axes=1)
        if self.power_to_db:
            outputs = self._decibels(outputs)
        return ops.cast(ops.swapaxes(outputs, -1, -2), self.compute_dtype)

    def _decibels(self, power):
        log_spec = 10.0 * ops.log10(ops.maximum(power, self.min_power))
        reference = ops.abs(ops.convert_to_tensor(self.ref_power))
        log_spec = log_spec - 10.0 * ops.log10(ops.maximum(reference, self.min_power))
        return ops.maximum(log_spec, ops.max(log_spec) - self.top_db)

    @staticmethod
    def _hertz_to_mel(hertz):
        return _MEL_HIGH_FREQUENCY_Q * ops.log(1.0 + hertz / _MEL_BREAK_FREQUENCY_HERTZ)

    def _mel_matrix(self, num_spectrogram_bins, dtype="float32"):
        """TensorFlow's linear_to_mel_weight_matrix: (spectrogram bins, mel bins)."""
        lower = ops.convert_to_tensor(self.min_freq, dtype)
        upper = ops.convert_to_tensor(self.max_freq, dtype)
        nyquist = ops.cast(self.sampling_rate, dtype) / 2.0
        zero = ops.convert_to_tensor(0.0, dtype)
        frequencies = ops.linspace(zero, nyquist, num_spectrogram_bins)[1:]
        bins_mel = ops.expand_dims(self._hertz_to_mel(frequencies), 1)
        edges = ops.extract_sequences(
            ops.linspace(self._hertz_to_mel(lower), self._hertz_to_mel(upper),
                         self.num_mel_bins + 2), sequence_length=3, sequence_stride=1)
        low, centre, high = (ops.reshape(t, (1, self.num_mel_bins))
                             for t in ops.split(edges, 3, axis=1))
        lower_slopes = (bins_mel - low) / (centre - low)
        upper_slopes = (high - bins_mel) / (high - centre)
        weights = ops.maximum(zero, ops.minimum(lower_slopes, upper_slopes))
        return ops.pad(weights, [[1, 0], [0, 0]])

    def compute_output_shape(self, input_shape):
        """Keras's formula: frames = (time + stride + 1) // stride."""
        time = input_shape[-1]
        frames = None if time is None else (time + self.sequence_stride + 1) // \
            self.sequence_stride
        if len(input_shape) == 1:
            return (self.num_mel_bins, frames)
        return (input_shape[0], self.num_mel_bins, frames)

    def get_config(self):
        config = super().get_config()
        config.update({
            "fft_length": self.fft_length, "sequence_stride": self.sequence_stride,
            "sequence_length": self.sequence_length, "window": self.window,
            "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
            "min_freq": self.min_freq, "max_freq": self.max_freq,
            "power_to_db": self.power_to_db, "top_db": self.top_db,
            "mag_exp": self.mag_exp, "min_power": self.min_power,
            "ref_power": self.ref_power})
        return config
