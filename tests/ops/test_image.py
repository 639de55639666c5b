"""keras.ops.image against real Keras 3.15.1 (TensorFlow backend) outputs from
tests/fixtures/preprocessing/make_image_fixtures.py."""
import json
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "preprocessing"
CASES = json.loads((FIXTURES / "image_fixtures.json").read_text())["cases"]
ARRAYS = np.load(FIXTURES / "image_fixtures.npz")
OPS = [c for c in CASES if c["kind"] == "op"]


def case_id(case):
    return f"{case['name']}-{json.dumps(case['args'], sort_keys=True)}"


def inputs_of(case):
    return [ARRAYS[f"{case['key']}_in{i}"] for i in range(case["n_inputs"])]


def assert_matches(got, expected, args):
    got = np.asarray(got)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=2e-5 * scale, err_msg=str(args))


@pytest.mark.parametrize("case", OPS, ids=[case_id(c) for c in OPS])
def test_op_matches_keras(case):
    args = dict(case["args"])
    for key in ("size", "kernel_size", "sigma", "strides"):
        if isinstance(args.get(key), list):
            args[key] = tuple(args[key])
    out = getattr(keras.ops.image, case["name"])(*inputs_of(case), **args)
    assert_matches(out.numpy(), ARRAYS[f"{case['key']}_out"], args)


BILINEAR = [c for c in OPS if c["name"] == "resize" and not c["args"].get("antialias")
            and c["args"].get("interpolation", "bilinear") == "bilinear"]


@pytest.mark.parametrize("case", BILINEAR, ids=[case_id(c) for c in BILINEAR])
def test_plain_bilinear_resize_equals_keras_to_the_bit(case):
    # ResizeBilinear's arithmetic (two horizontal lerps, then a vertical one) is followed
    args = dict(case["args"])
    args["size"] = tuple(args["size"])
    out = keras.ops.image.resize(*inputs_of(case), **args)
    np.testing.assert_array_equal(out.numpy(), ARRAYS[f"{case['key']}_out"])


@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic", "area", "lanczos3"])
def test_float64_images_resize_in_float32(interpolation):
    # Keras 3.15.1 (TF): float64 images come back float64 with exactly the values of the
    # float32 resize (TensorFlow's kernels read them as float32); /tmp/probe15/img1.py
    images = np.random.default_rng(0).uniform(0, 255, (2, 6, 7, 3))
    out64 = keras.ops.image.resize(images, (3, 4), interpolation=interpolation)
    out32 = keras.ops.image.resize(images.astype("float32"), (3, 4), interpolation=interpolation)
    assert out64.dtype == "float64"
    np.testing.assert_array_equal(out64.numpy(), out32.numpy().astype("float64"))


def test_bilinear_kernel_gradient_float64():
    from kerasish.ops.image import _bilinear_lerp
    from kerasish.testing.gradient_check import check_gradients
    x = np.random.default_rng(1).standard_normal((2, 4, 5, 2))
    check_gradients(lambda t: _bilinear_lerp(t, 7, 3), [x])
    check_gradients(lambda t: _bilinear_lerp(t, 2, 9), [x[0]])


def test_rgb_to_grayscale_dtypes_as_keras():
    # Keras 3.15.1 (TF backend) values: integer images computed in float32 and truncated,
    # float16 accumulated in float32 (a matmul), float64 in float64, 1 channel unchanged
    gray = keras.ops.image.rgb_to_grayscale
    pixels = np.array([[[[10, 200, 31], [255, 255, 255], [0, 1, 2]]]], "uint8")
    out = gray(pixels)
    assert out.dtype == "uint8" and out.numpy().ravel().tolist() == [123, 254, 0]
    assert gray(pixels.astype("float64")).numpy().ravel().tolist() == [123.923,
                                                                      254.97449999999998, 0.815]
    half = np.array([[[[166.3, 200.7, 31.1], [12.5, 99.9, 250.3]]]], "float16")
    assert gray(half).numpy().ravel().tolist() == [171.0, 90.875]
    single = np.ones((1, 2, 2, 1), "float32")
    np.testing.assert_array_equal(gray(single).numpy(), single)
    with pytest.raises(ValueError, match=r"^Invalid channel size: expected 3 \(RGB\) or 1 "
                                         r"\(Grayscale\)\. Received input with shape: "
                                         r"images.shape=\(1, 2, 2, 2\)$"):
        gray(np.ones((1, 2, 2, 2), "float32"))


IMG = np.ones((2, 6, 7, 3), "float32")
# Keras 3.15.1's texts (TF backend), /tmp/probe15/imgerr.py
KERAS_ERRORS = [
    (lambda: keras.ops.image.resize(IMG, (3, 3), interpolation="foo"),
     "Invalid value for argument `interpolation`. Expected of one ('bilinear', 'nearest', "
     "'lanczos3', 'lanczos5', 'bicubic', 'area'). Received: interpolation=foo"),
    (lambda: keras.ops.image.resize(IMG, (3, 3), fill_mode="wrap"),
     "Invalid value for argument `fill_mode`. Only `'constant'` is supported. Received: "
     "fill_mode=wrap"),
    (lambda: keras.ops.image.resize(IMG, (3, 3, 3)),
     "Expected `size` to be a tuple of 2 integers. Received: size=(3, 3, 3)"),
    (lambda: keras.ops.image.resize(IMG, (0, 3)),
     "`size` must have positive height and width. Received: size=(0, 3)"),
    (lambda: keras.ops.image.resize(IMG[0, 0], (3, 3)),
     "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
     "Received input with shape: images.shape=(7, 3)"),
    (lambda: keras.ops.image.affine_transform(IMG, np.zeros((1, 1, 8), "float32")),
     "Invalid transform rank: expected rank 1 (single transform) or rank 2 (batch of "
     "transforms). Received input with shape: transform.shape=(1, 1, 8)"),
    (lambda: keras.ops.image.map_coordinates(IMG[0, :, :, 0], np.zeros((3, 2, 2)), order=1),
     "First dim of `coordinates` must be the same as the rank of `inputs`. Received inputs "
     "with shape: (6, 7) and coordinate leading dim of 3"),
    (lambda: keras.ops.image.extract_patches(IMG, (2, 2, 2, 2)),
     "Invalid `size` argument. Expected a tuple of length 2 or 3. Received: size=(2, 2, 2, 2) "
     "with length 4"),
    (lambda: keras.ops.image.extract_patches(IMG, 2, dilation_rate=2),
     "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
     "strides=[2 2] and dilation_rate=[2 2]"),
    (lambda: keras.ops.image.crop_images(IMG, 1, 1),
     "Must specify exactly two of top_cropping, bottom_cropping, target_height. Received: "
     "top_cropping=1, bottom_cropping=None, target_height=None"),
    (lambda: keras.ops.image.crop_images(IMG, -1, 1, target_height=2, target_width=2),
     "top_cropping must be >= 0. Received: top_cropping=-1"),
    (lambda: keras.ops.image.pad_images(IMG, 1, 1, target_height=3, target_width=9),
     "bottom_padding must be >= 0. Received: bottom_padding=-4"),
    (lambda: keras.ops.image.rgb_to_hsv(IMG.astype("int32")),
     "Invalid images dtype: expected float dtype. Received: images.dtype=int32"),
    (lambda: keras.ops.image.perspective_transform(IMG, np.zeros((3, 2)), np.zeros((4, 2))),
     "Invalid start_points shape: expected (4,2) for a single image or (N,4,2) for a batch. "
     "Received shape: (3, 2)"),
    (lambda: keras.ops.image.elastic_transform(IMG, fill_mode="mirror"),
     "Invalid value for argument `fill_mode`. Expected of one ('constant', 'nearest', 'wrap', "
     "'reflect'). Received: fill_mode=mirror"),
]


@pytest.mark.parametrize("call, message", KERAS_ERRORS)
def test_errors_keras_texts(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_crop_and_pad_take_two_of_each_triple_as_keras():
    images = np.arange(2 * 6 * 7, dtype="float32").reshape(2, 6, 7, 1)
    out = keras.ops.image.crop_images(images, bottom_cropping=1, right_cropping=2,
                                      target_height=3, target_width=4)
    np.testing.assert_array_equal(out.numpy(), images[:, 2:5, 1:5])
    with pytest.raises(ValueError, match="Must specify exactly two of top_cropping"):
        keras.ops.image.crop_images(images, 1, 1, bottom_cropping=1, right_cropping=1,
                                    target_height=2, target_width=2)
    out = keras.ops.image.pad_images(images, bottom_padding=1, right_padding=0,
                                     target_height=9, target_width=10)
    assert out.shape == (2, 9, 10, 1)
    np.testing.assert_array_equal(out.numpy()[:, 2:8, 3:10], images)


BLUR = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "ops" / "gaussian_blur.npz")
BLUR_CASES = [((3, 3), (1.0, 1.0)), ((5, 3), (2.0, 0.5)), ((7, 7), (0.8, 1.6)),
              ((3, 5), (1.0, 2.0))]


@pytest.mark.parametrize("isa", ["AVX", "AVX2"])
@pytest.mark.parametrize("index", range(len(BLUR_CASES)))
def test_gaussian_blur_equals_keras_to_the_bit(monkeypatch, isa, index):
    # tests/fixtures/ops/make_gaussian_blur.py: oneDNN's depthwise convolution adds the
    # taps with FMA from AVX2 on, without before; the kernel in float32, TF's exp
    from kerasish.backend.kernels import onednn_math
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", isa)
    if onednn_math.cpu_kernel() is None or onednn_math.cpu_kernel()[1] != (isa == "AVX2"):
        pytest.skip(f"this CPU has no {isa} kernel")
    size, sigma = BLUR_CASES[index]
    out = keras.ops.image.gaussian_blur(BLUR["images"], kernel_size=size, sigma=sigma)
    np.testing.assert_array_equal(out.numpy(), BLUR[f"{isa}_out_{index}"])


COLOURS = [c for c in OPS if c["name"] in ("rgb_to_hsv", "hsv_to_rgb")]


@pytest.mark.parametrize("case", COLOURS, ids=[case_id(c) for c in COLOURS])
def test_hsv_conversions_equal_keras_to_the_bit(case):
    # TensorFlow's RGBToHSV/HSVToRGB functors, operation for operation
    out = getattr(keras.ops.image, case["name"])(*inputs_of(case), **case["args"])
    np.testing.assert_array_equal(out.numpy(), ARRAYS[f"{case['key']}_out"])
