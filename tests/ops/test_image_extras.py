"""ops.image.sobel_edges and extract_patches_3d against Keras 3.15.1
(fixtures/ops/image_extras.npz, make_image_extras.py)."""
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops",
                         "image_extras.npz"))
IMAGES, VOLUMES = F["images"], F["volumes"]


def test_sobel_edges_match_keras():
    np.testing.assert_allclose(ops.image.sobel_edges(IMAGES).numpy(), F["sobel_last"],
                               rtol=1e-6, atol=1e-6)
    first = ops.image.sobel_edges(np.transpose(IMAGES, (0, 3, 1, 2)),
                                  data_format="channels_first").numpy()
    np.testing.assert_allclose(first, F["sobel_first"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("key, volumes, kwargs", [
    ("p3d_2", VOLUMES, dict(size=2)),
    ("p3d_same", VOLUMES, dict(size=(2, 3, 2), strides=(1, 2, 1), padding="same")),
    ("p3d_dilated", VOLUMES, dict(size=2, strides=1, dilation_rate=2)),
    ("p3d_first", np.transpose(VOLUMES, (0, 4, 1, 2, 3)),
     dict(size=2, data_format="channels_first")),
    ("p3d_single", VOLUMES[0], dict(size=3, strides=2)),
])
def test_extract_patches_3d_matches_keras(key, volumes, kwargs):
    np.testing.assert_array_equal(ops.image.extract_patches_3d(volumes, **kwargs).numpy(),
                                  F[key])


def test_symbolic_shapes_and_bad_inputs():
    assert ops.image.sobel_edges(keras.Input((5, 5, 3))).shape == (None, 5, 5, 3, 2)
    assert ops.image.extract_patches_3d(keras.Input((4, 4, 4, 2)), 2).shape == \
        (None, 2, 2, 2, 16)
    with pytest.raises(ValueError, match="sobel_edges.*rank 4"):
        ops.image.sobel_edges(IMAGES[0])
    with pytest.raises(TypeError, match="extract_patches_3d.*size"):
        ops.image.extract_patches_3d(VOLUMES, (2, 2))


def test_extract_patches_with_a_3d_size_extracts_volume_patches():
    # Keras 3.15.1: extract_patches hands a 3-element size to extract_patches_3d
    # (docstring example: (2, 10, 10, 10, 3) volumes, size (3, 3, 3) -> (2, 3, 3, 3, 81))
    v = np.arange(2 * 6 * 5 * 4 * 2, dtype="float32").reshape(2, 6, 5, 4, 2)
    p = ops.image.extract_patches(v, (3, 2, 2))
    assert p.shape == (2, 2, 2, 2, 24)
    assert float(ops.sum(p)) == 90432.0
    assert p.numpy()[1, 1, 1, 1, :6].tolist() == [380.0, 381.0, 382.0, 383.0, 388.0, 389.0]
    assert ops.image.extract_patches(v[0], [2, 2, 2], strides=1).shape == (5, 4, 3, 16)
    assert ops.image.extract_patches(np.zeros((2, 10, 10, 10, 3), "float32"),
                                     (3, 3, 3)).shape == (2, 3, 3, 3, 81)
