"""kerasish.ops.patches against Keras 3.15.1 (fixtures/ops/patches.json); gradients by finite differences."""
import json
import os

import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops",
                                      "patches.json")))
X, Y, Z = (np.array(FIXTURE[k], "float32") for k in "xyz")
GEOMETRY = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))


def test_match_keras():
    np.testing.assert_array_equal(
        ops.depth_to_space(X, 2, data_format="channels_first").numpy(), FIXTURE["d2s_cf"])
    np.testing.assert_array_equal(
        ops.space_to_depth(Y, 2, data_format="channels_first").numpy(), FIXTURE["s2d_cf"])
    patches = ops.unfold(Z, **GEOMETRY)
    np.testing.assert_array_equal(patches.numpy(), FIXTURE["unfold"])
    np.testing.assert_allclose(ops.fold(patches, (5, 6), **GEOMETRY).numpy(), FIXTURE["fold"],
                               rtol=1e-6)


def test_channels_last_known_layout_and_round_trips():
    x = np.arange(48, dtype="float32").reshape(1, 2, 2, 12)
    out = ops.depth_to_space(x, 2).numpy()
    assert out.shape == (1, 4, 4, 3)
    assert out[0, 0, :2].tolist() == [[0, 1, 2], [3, 4, 5]] and out[0, 1, 0].tolist() == [6, 7, 8]
    np.testing.assert_array_equal(ops.space_to_depth(out, 2).numpy(), x)
    image = np.arange(32, dtype="float32").reshape(1, 2, 4, 4)
    np.testing.assert_array_equal(
        ops.fold(ops.unfold(image, 2, stride=2), (4, 4), 2, stride=2).numpy(), image)
    assert ops.unfold(np.arange(8.0).reshape(1, 1, 2, 4), 2).numpy()[0].tolist() == \
        [[0, 1, 2], [1, 2, 3], [4, 5, 6], [5, 6, 7]]


def test_bad_arguments():
    with pytest.raises(ValueError, match="ops.depth_to_space: `block_size` must be at least 2"):
        ops.depth_to_space(X, 1)
    with pytest.raises(ValueError, match="ops.space_to_depth: expects a 4-D input"):
        ops.space_to_depth(np.ones((1, 3, 3, 1)), 2)
    with pytest.raises(ValueError, match="ops.unfold: expects a 4D input"):
        ops.unfold(np.ones((3, 3)), 2)
    with pytest.raises(ValueError, match="ops.fold: expects a 3D input"):
        ops.fold(np.ones((1, 2, 3, 4)), (4, 4), 2)


def test_gradients():
    z = np.random.default_rng(2).standard_normal((1, 2, 4, 5))
    check_gradients(lambda v: ops.square(ops.unfold(v, **GEOMETRY)), [z])
    check_second_order(lambda v: ops.square(ops.unfold(v, 2, stride=2)), [z[..., :4]])
    cols = np.random.default_rng(3).standard_normal((1, 2 * 6, 9))  # 3 x 3 positions
    check_gradients(lambda v: ops.square(ops.fold(v, (4, 5), **GEOMETRY)), [cols])
    check_gradients(lambda v: ops.square(ops.depth_to_space(v, 2)),
                    [np.random.default_rng(4).standard_normal((1, 2, 2, 8))])
