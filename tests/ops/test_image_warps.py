"""ops.image.ssim, scale_and_translate, perspective_transform and elastic_transform against
Keras 3.15.1 (fixtures/ops/image_warps.npz, make_image_warps.py); elastic_transform's
random field by its invariants."""
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.testing.gradient_check import check_gradients

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops",
                         "image_warps.npz"))
IMAGES, NOISY, SMALL = F["images"], F["noisy"], F["small"]


def _close(key, value, tol=1e-6):
    value = np.asarray(value)
    assert value.shape == F[key].shape and value.dtype == F[key].dtype
    np.testing.assert_allclose(value, F[key], rtol=tol, atol=tol)


def test_ssim_matches_keras():
    _close("ssim", ops.image.ssim(IMAGES, NOISY))
    _close("ssim_single", ops.image.ssim(IMAGES[0], NOISY[0], max_val=2.0, filter_size=7,
                                         filter_sigma=1.0, k1=0.02, k2=0.05))
    _close("ssim_first", ops.image.ssim(np.transpose(IMAGES, (0, 3, 1, 2)),
                                        np.transpose(NOISY, (0, 3, 1, 2)),
                                        data_format="channels_first"))
    _close("ssim_255", ops.image.ssim(IMAGES * 255, NOISY * 255, max_val=255.0))
    assert float(ops.image.ssim(IMAGES[0], IMAGES[0])) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("method", ["linear", "bilinear", "cubic", "lanczos3", "lanczos5"])
@pytest.mark.parametrize("antialias", [True, False])
def test_scale_and_translate_matches_keras(method, antialias):
    key = f"st_{method}_{int(antialias)}"
    _close(key + "_up", ops.image.scale_and_translate(
        SMALL, (2, 9, 11, 3), np.array([1.7, 1.9], "float32"), np.array([-0.4, 0.6], "float32"),
        (1, 2), method, antialias=antialias), tol=1e-6)
    _close(key + "_down", ops.image.scale_and_translate(
        IMAGES, (2, 7, 5, 3), np.array([0.45, 0.37], "float32"),
        np.array([0.3, -0.2], "float32"), (1, 2), method, antialias=antialias), tol=1e-6)


def test_scale_and_translate_2d_and_one_axis():
    _close("st_2d", ops.image.scale_and_translate(
        np.arange(9, dtype="float32").reshape(3, 3), (5, 5), np.array([2.0, 2.0], "float32"),
        np.array([-0.5, -0.5], "float32"), (0, 1), "linear"))
    _close("st_one_dim", ops.image.scale_and_translate(
        SMALL, (2, 5, 9, 3), np.array([1.5], "float32"), np.array([0.25], "float32"), (2,),
        "linear"))


def test_scale_and_translate_integer_images_round_and_clip():
    ints = F["ints"]
    out = ops.image.scale_and_translate(ints, (1, 8, 9, 2), np.array([1.6, 1.5], "float32"),
                                        np.array([0.0, 0.0], "float32"), (1, 2), "cubic")
    floats = ops.image.scale_and_translate(ints.astype("float32"), (1, 8, 9, 2),
                                           np.array([1.6, 1.5], "float32"),
                                           np.array([0.0, 0.0], "float32"), (1, 2), "cubic")
    expected = np.clip(np.round(np.asarray(floats)), ints.min(), ints.max()).astype("uint8")
    assert np.asarray(out).dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_ssim_and_scale_and_translate_gradients():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0, 1, (1, 6, 6, 2)), rng.uniform(0, 1, (1, 6, 6, 2))
    check_gradients(lambda x, y: ops.image.ssim(x, y, filter_size=3), [a, b])
    check_gradients(lambda x: ops.image.scale_and_translate(
        x, (1, 4, 9, 2), np.array([0.7, 1.4]), np.array([0.2, -0.1]), (1, 2), "cubic"), [a])
    # gaussian_blur is written with ops too (Keras's is a differentiable convolution)
    check_gradients(lambda x: ops.image.gaussian_blur(x, (3, 5), (0.8, 1.3)), [a])


def test_warps_are_differentiable_in_the_images():
    rng = np.random.default_rng(2)
    images = rng.uniform(0, 1, (2, 5, 6, 2))
    rotate = np.array([0.9, -0.3, 1.2, 0.35, 0.95, -0.4, 0.0, 0.0])
    # The warp is linear in the images but computed in float32 (as TensorFlow's): a wide
    # finite-difference step is exact and keeps float32 rounding out of the comparison.
    tol = {"eps": 0.05, "atol": 1e-4, "rtol": 1e-4}
    check_gradients(lambda x: ops.image.affine_transform(x, rotate, fill_mode="reflect"),
                    [images], **tol)
    check_gradients(lambda x: ops.image.perspective_transform(
        x, F["pt_start"] / 3, F["pt_end"] / 3, fill_value=0.5), [images], **tol)
    check_gradients(lambda x: ops.image.affine_transform(x, rotate, interpolation="nearest"),
                    [images], **tol)


def test_perspective_transform_matches_keras():
    start, end, end2 = F["pt_start"], F["pt_end"], F["pt_end2"]
    _close("pt_bilinear", ops.image.perspective_transform(IMAGES, start, end), tol=1e-5)
    _close("pt_nearest", ops.image.perspective_transform(
        IMAGES, start, end, interpolation="nearest", fill_value=0.5))
    _close("pt_batch", ops.image.perspective_transform(
        IMAGES, np.stack([start, start]), np.stack([end, end2])), tol=1e-5)
    _close("pt_single", ops.image.perspective_transform(IMAGES[0], start, end2), tol=1e-5)
    _close("pt_first", ops.image.perspective_transform(
        np.transpose(IMAGES, (0, 3, 1, 2)), start, end, data_format="channels_first"), tol=1e-5)


def test_elastic_transform_alpha_zero_is_keras_identity():
    _close("et_zero", ops.image.elastic_transform(IMAGES, alpha=0.0, sigma=2.0, seed=1))
    _close("et_zero_nearest", ops.image.elastic_transform(
        IMAGES[0], alpha=0.0, sigma=1.0, interpolation="nearest", seed=1))


def test_elastic_transform_field_invariants():
    # Channel 0 is the x coordinate, channel 1 the y coordinate: bilinear sampling of a
    # ramp returns the sampled coordinate, so the output minus the grid is the field.
    height, width = 24, 24
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    ramps = np.stack([xs, ys], -1)[None].astype("float64").repeat(3, 0)
    out = np.asarray(ops.image.elastic_transform(ramps, alpha=1.0, sigma=3.0,
                                                 fill_mode="constant", seed=7))
    dx, dy = out[..., 0] - xs, out[..., 1] - ys
    inside = (np.abs(dx) < 2) & (xs > 3) & (xs < width - 4) & (ys > 3) & (ys < height - 4)
    np.testing.assert_allclose(dx[inside], dy[inside], atol=1e-9)  # one field for x and y
    assert np.abs(dx[inside]).max() > 1e-3
    assert not np.allclose(dx[0], dx[1])                           # a field per image
    again = np.asarray(ops.image.elastic_transform(ramps, alpha=1.0, sigma=3.0,
                                                   fill_mode="constant", seed=7))
    np.testing.assert_array_equal(out, again)                      # an int seed repeats
    # The blurred field's spread: sigma * N(0,1) blurred by a Gaussian of sigma has a
    # standard deviation of sigma * sqrt(sum(kernel^2)), for sigma=3 (19 taps).
    size, sigma = 19, 3.0
    k = np.exp(-0.5 * ((np.arange(size) - 9) / sigma) ** 2)
    k /= k.sum()
    expected = sigma * np.sqrt((np.outer(k, k) ** 2).sum())
    big = np.zeros((8, 64, 64, 2))
    big[..., 0] = np.arange(64)
    field = np.asarray(ops.image.elastic_transform(big, alpha=1.0, sigma=sigma,
                                                   fill_mode="constant", seed=3))[..., 0]
    field = (field - np.arange(64))[:, 12:-12, 12:-12]
    assert 0.8 * expected < field.std() < 1.2 * expected


def test_symbolic_shapes_and_bad_inputs():
    x = keras.Input((16, 14, 3))
    assert ops.image.ssim(x, x).shape == (None,)
    assert ops.image.perspective_transform(x, F["pt_start"], F["pt_end"]).shape == \
        (None, 16, 14, 3)
    assert ops.image.elastic_transform(x).shape == (None, 16, 14, 3)
    assert ops.image.scale_and_translate(x, (2, 8, 7, 3), [0.5, 0.5], [0.0, 0.0], (1, 2),
                                         "linear").shape == (2, 8, 7, 3)
    with pytest.raises(ValueError, match="method"):
        ops.image.scale_and_translate(SMALL, (2, 5, 6, 3), [1, 1], [0, 0], (1, 2), "triangle")
    with pytest.raises(ValueError, match="start_points shape"):
        ops.image.perspective_transform(IMAGES, np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="image1 rank"):
        ops.image.ssim(IMAGES[0, 0], IMAGES[0, 0])
    with pytest.raises(ValueError, match="fill_mode"):
        ops.image.elastic_transform(IMAGES, fill_mode="mirror")
