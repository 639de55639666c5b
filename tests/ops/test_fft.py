"""kerasish.ops.fft: transforms against numpy.fft / scipy.signal, gradients by finite differences."""
import numpy as np
import pytest
import scipy.signal

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(7)
RE, IM = RNG.random((2, 4, 3)), RNG.random((2, 4, 3))
Z = RE + 1j * IM


@pytest.mark.parametrize("name, ref", [("fft", np.fft.fft), ("fft2", np.fft.fft2),
                                       ("ifft2", np.fft.ifft2)])
def test_complex_transforms_match_numpy(name, ref):
    real, imag = getattr(ops, name)((RE, IM))
    np.testing.assert_allclose(real.numpy(), ref(Z).real, atol=1e-12)
    np.testing.assert_allclose(imag.numpy(), ref(Z).imag, atol=1e-12)
    assert real.dtype == "float64"
    assert getattr(ops, name)((RE.astype("float32"), IM.astype("float32")))[0].dtype == "float32"


@pytest.mark.parametrize("n", [None, 3, 15])
def test_rfft_irfft_match_numpy(n):
    x = RNG.random((2, 3, 10))
    real, imag = ops.rfft(x, fft_length=n)
    np.testing.assert_allclose(real.numpy(), np.fft.rfft(x, n=n).real, atol=1e-5)
    np.testing.assert_allclose(imag.numpy(), np.fft.rfft(x, n=n).imag, atol=1e-5)
    assert real.dtype == "float32"  # as Keras's TensorFlow backend
    out = ops.irfft((RE, IM), fft_length=n)
    np.testing.assert_allclose(out.numpy(), np.fft.irfft(Z, n=n), atol=1e-12)


def _scipy_stft(x, length, stride, nfft, window, center):
    """Reference STFT from scipy.signal (unscaled frames, as tf.signal.stft)."""
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(nfft // 2, nfft // 2)], mode="reflect")
    left = (nfft - length) // 2
    if window is None:
        win = np.ones(nfft)
    else:
        win = scipy.signal.get_window(window, length) if isinstance(window, str) else window
        win = np.pad(win, (left, nfft - length - left))
    out = scipy.signal.stft(x, window=win, nperseg=nfft, noverlap=nfft - stride, nfft=nfft,
                            boundary=None, padded=False, return_onesided=True)[-1]
    return np.swapaxes(out * win.sum(), -2, -1)


@pytest.mark.parametrize("args", [(32, 8, 32, "hann", True), (8, 8, 16, "hann", True),
                                  (4, 4, 7, "hamming", True), (32, 8, 32, None, False),
                                  (32, 8, 32, np.ones(32), True)])
def test_stft_matches_scipy(args):
    x = RNG.random((2, 64))
    real, imag = ops.stft(x, *args)
    ref = _scipy_stft(x, *args)
    np.testing.assert_allclose(real.numpy(), ref.real, atol=1e-10)
    np.testing.assert_allclose(imag.numpy(), ref.imag, atol=1e-10)


def test_stft_odd_window_is_symmetric_as_tensorflow():
    # Keras 3.15.1 (TensorFlow backend): tf.signal.hann_window(3) is [0, 1, 0] (periodic only
    # for even lengths). ops.stft docstring example:
    real, imag = ops.stft(ops.convert_to_tensor([0.0, 1.0, 2.0, 3.0, 4.0]), 3, 2, 3)
    np.testing.assert_allclose(real.numpy(), [[0, 0], [2, -1], [4, -2]], atol=1e-6)
    np.testing.assert_allclose(imag.numpy(), [[0, 0], [0, -1.732051], [0, -3.464102]], atol=1e-6)
    real, imag = ops.stft(np.arange(11.0), 5, 2, 8, window="hamming")
    np.testing.assert_allclose(real.numpy()[:2], [[2.4, -0.59397, -1.08, 0.59397, -0.24],
                                                  [2.4, -1.900244, 1.08, -0.259756, -0.24]],
                               atol=1e-6)
    np.testing.assert_allclose(imag.numpy()[2], [0.0, -2.975046, 2.52, -0.815046, 0.0], atol=1e-6)
    back = ops.istft((real, imag), 5, 2, 8, window="hamming").numpy()
    np.testing.assert_allclose(back[-2:], [8.0, 8.943128], atol=1e-6)
    real, _ = ops.stft(np.arange(11.0), 1, 1, 2)  # length 1: window [1]
    np.testing.assert_allclose(real.numpy()[:3], [[1, 1], [0, 0], [1, 1]], atol=1e-12)


@pytest.mark.parametrize("args", [(32, 8, 32, "hann", True), (8, 4, 8, "hann", False),
                                  (16, 4, 16, "hamming", True)])
def test_istft_inverts_stft(args):
    length, stride, nfft, window, center = args
    x = RNG.random((3, 128))
    spec = ops.stft(x, length, stride, nfft, window, center)
    back = ops.istft(spec, length, stride, nfft, window=window, center=center).numpy()
    edge = nfft  # the first and last frames are not fully overlapped
    np.testing.assert_allclose(back[..., edge:-edge], x[..., edge:back.shape[-1] - edge], atol=1e-10)


def test_istft_known_values_and_length():
    # values from Keras 3.15.1 (TensorFlow backend): zero where no window covers a sample
    x = np.random.default_rng(0).random(64)
    out = ops.istft(ops.stft(x, 8, 8, 16), 8, 8, 16).numpy()
    np.testing.assert_allclose(out[:6], [0.63696169, 0.26978671, 0.04097352, 0.01652764, 0.0,
                                         0.91275558], atol=1e-7)
    spec = (np.ones((5, 3), "float32"), np.ones((5, 3), "float32"))
    assert ops.istft(spec, 4, 2, 4, length=7).shape == (7,)
    assert ops.istft(spec, 4, 2, 4, center=False).shape == (12,)


def test_extract_sequences():
    x = np.arange(10.0)
    out = ops.extract_sequences(x, 3, 2).numpy()
    np.testing.assert_array_equal(out, [x[i:i + 3] for i in range(0, 8, 2)])
    assert ops.extract_sequences(np.ones((4, 2)), 3, 2).shape == (4, 0, 3)


def test_bad_inputs_name_the_function():
    with pytest.raises(ValueError, match=r"ops.fft: Input `x` should be a tuple of two tensors"):
        ops.fft(np.ones(3))
    with pytest.raises(ValueError, match="ops.fft2: Both the real and imaginary parts"):
        ops.fft2((np.ones((2, 3)), np.ones((2, 2))))
    with pytest.raises(ValueError, match=r"ops.fft2: Input should have rank >= 2"):
        ops.fft2((np.ones(3), np.ones(3)))
    with pytest.raises(ValueError, match="not of type float"):
        ops.fft((np.ones(3, "int32"), np.ones(3, "int32")))
    with pytest.raises(ValueError, match="`sequence_stride` must be a positive integer"):
        ops.stft(np.ones(16), 4, 0, 4)
    with pytest.raises(ValueError, match='must be one of `"hann"`, `"hamming"`'):
        ops.stft(np.ones(16), 4, 2, 4, window="blackman")
    with pytest.raises(TypeError, match="ops.stft: Invalid input type"):
        ops.stft(np.ones(16, "int32"), 4, 2, 4)


def _parts(out):
    """One scalar-friendly tensor from a (real, imag) pair, non-linear so that
    second-order checks see the backward of the transform."""
    real, imag = out
    return ops.add(ops.square(real), ops.multiply(imag, real))


@pytest.mark.parametrize("fn", [
    lambda r, i: _parts(ops.fft((r, i))),
    lambda r, i: _parts(ops.fft2((r, i))),
    lambda r, i: _parts(ops.ifft2((r, i))),
    lambda r, i: ops.square(ops.irfft((r, i), fft_length=5)),
    lambda r, i: ops.square(ops.irfft((r, i))),
])
def test_complex_gradients(fn):
    check_gradients(fn, [RE, IM])
    check_second_order(fn, [RE, IM])


def test_rfft_and_stft_gradients():
    # rfft computes in float32 (as Keras), so its finite-difference check is done
    # through stft, which keeps float64
    x = RNG.random((2, 20))
    check_gradients(lambda v: _parts(ops.stft(v, 8, 4, 8)), [x])
    check_second_order(lambda v: _parts(ops.stft(v, 8, 4, 8, window="hamming")), [x])
    spec = ops.stft(x, 8, 4, 8)
    check_gradients(lambda r, i: ops.square(ops.istft((r, i), 8, 4, 8)),
                    [spec[0].numpy(), spec[1].numpy()])
