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
