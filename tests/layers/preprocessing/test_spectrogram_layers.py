"""keras.initializers.STFT and STFTSpectrogram against Keras 3.15.1
(fixtures/preprocessing/spectrogram_fixtures.npz, make_spectrogram_fixtures.py)."""
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish.testing import check_gradients

F = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "preprocessing",
                         "spectrogram_fixtures.npz"))
SIGNAL = F["signal"]
init = keras.initializers.STFT


@pytest.mark.parametrize("key, make, shape", [
    ("init_real_hann", lambda: init("real", "hann"), (24, 1, 17)),
    ("init_imag_hamming_periodic_spectrum", lambda: init("imag", "hamming", "spectrum", True),
     (20, 1, 13)),
    ("init_real_none", lambda: init("real", None, None), (8, 1, 5)),
    ("init_imag_array", lambda: init("imag", np.linspace(0.1, 1.0, 10), "density"), (10, 1, 9)),
])
def test_initializer_matches_keras(key, make, shape):
    np.testing.assert_allclose(make()(shape).numpy(), F[key], rtol=1e-5, atol=1e-6)


STFT_CASES = {
    "log": dict(mode="log", frame_length=32),
    "magnitude_same": dict(mode="magnitude", frame_length=30, frame_step=7, fft_length=64,
                           padding="same"),
    "psd_expand": dict(mode="psd", frame_length=16, frame_step=5, expand_dims=True),
    "real_hamming": dict(mode="real", frame_length=20, window="hamming", periodic=True,
                         scaling="spectrum"),
    "imag_none": dict(mode="imag", frame_length=16, window=None, scaling=None),
    "angle": dict(mode="angle", frame_length=16, frame_step=8),
    "stft_first": dict(mode="stft", frame_length=16, frame_step=4,
                       data_format="channels_first"),
    "stft_first_expand": dict(mode="stft", frame_length=16, frame_step=4,
                              data_format="channels_first", expand_dims=True),
}


@pytest.mark.parametrize("name", sorted(STFT_CASES))
def test_stft_spectrogram_matches_keras(name):
    kwargs = STFT_CASES[name]
    x = np.transpose(SIGNAL, (0, 2, 1)) if kwargs.get("data_format") == "channels_first" \
        else SIGNAL
    layer = keras.layers.STFTSpectrogram(**kwargs)
    out = layer(x).numpy()
    expected = F["stft_" + name]
    assert out.shape == expected.shape == layer.compute_output_shape(x.shape)
    atol = 2e-4 if name == "angle" else 1e-4   # arctan2 near the branch cut of tiny bins
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=atol)


def test_the_kernels_are_the_layers_trainable_weights_and_differentiate():
    layer = keras.layers.STFTSpectrogram(mode="magnitude", frame_length=8, frame_step=4)
    layer.build((None, 40, 1))
    assert [w.name for w in layer.trainable_weights] == ["real_kernel", "imag_kernel"]
    x = np.random.default_rng(0).normal(size=(1, 40, 1))
    check_gradients(lambda t: keras.layers.STFTSpectrogram(
        mode="psd", frame_length=8, frame_step=4, dtype="float64")(t), [x])


def test_model_and_config_round_trip():
    inputs = keras.Input((200, 3))
    outputs = keras.layers.STFTSpectrogram(mode="log", frame_length=32)(inputs)
    model = keras.Model(inputs, outputs)
    assert model.output_shape == (None, 11, 51)
    clone = keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(clone.predict(SIGNAL, verbose=0), F["stft_log"], rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(mode="power"), ValueError, "mode"),
    (dict(frame_length=16, frame_step=20), ValueError, "frame_step"),
    (dict(frame_length=16, fft_length=8), ValueError, "fft_length"),
    (dict(padding="causal"), ValueError, "padding"),
    (dict(scaling="l2"), ValueError, "scaling"),
    (dict(window="no-such-window"), ValueError, "no-such-window"),
])
def test_bad_arguments_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        keras.layers.STFTSpectrogram(**kwargs)


def test_integer_signals_are_refused():
    with pytest.raises(TypeError, match="float32"):
        keras.layers.STFTSpectrogram(frame_length=8)(np.zeros((1, 16, 1), "int32"))


AUDIO = F["audio"]
MEL_CASES = {
    "default_db": dict(fft_length=256, sequence_stride=128, num_mel_bins=40),
    "power_hamming": dict(fft_length=128, sequence_stride=50, sequence_length=100,
                          window="hamming", num_mel_bins=16, min_freq=100.0,
                          max_freq=6000.0, power_to_db=False),
    "magnitude_db_ref": dict(fft_length=64, sequence_stride=32, num_mel_bins=10,
                             sampling_rate=8000, mag_exp=1.0, ref_power=-2.0, top_db=30.0),
}


@pytest.mark.parametrize("name", sorted(MEL_CASES))
def test_mel_spectrogram_matches_keras(name):
    out = keras.layers.MelSpectrogram(**MEL_CASES[name])(AUDIO).numpy()
    expected = F["mel_" + name]
    assert out.shape == expected.shape
    if MEL_CASES[name].get("power_to_db", True):
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-4)  # decibels
    else:
        np.testing.assert_allclose(out, expected, rtol=2e-5, atol=1e-5)


def test_mel_spectrogram_single_signal_and_keras_output_shape_formula():
    layer = keras.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=10)
    np.testing.assert_allclose(layer(AUDIO[0]).numpy(), F["mel_single"], rtol=1e-5, atol=1e-4)
    assert list(layer.compute_output_shape((2, 1000))) == F["mel_symbolic_shape"].tolist()
    assert layer.compute_output_shape((None, None)) == (None, 10, None)
    with pytest.raises(ValueError, match="fft_length"):
        keras.layers.MelSpectrogram(fft_length=64, sequence_length=128)
