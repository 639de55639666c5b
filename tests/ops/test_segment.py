"""kerasish.ops.segment: segment_sum/max/min with dropped and empty segments."""
import numpy as np
import pytest

from kerasish import GradientTape, ops
from kerasish.testing import check_gradients, check_second_order

DATA = np.array([[1.0, 2.0], [3.0, 5.0], [5.0, 1.0], [7.0, 0.5]])
IDS = np.array([0, 0, 2, -1])


def test_segment_sum_values_and_gradient():
    out = ops.segment_sum(DATA, IDS, num_segments=4)
    np.testing.assert_array_equal(out.numpy(), [[4, 7], [0, 0], [5, 1], [0, 0]])
    assert ops.segment_sum(DATA, [1, 0, 1, 0]).shape == (2, 2)
    check_gradients(lambda d: ops.segment_sum(d, IDS, 3), [DATA])
    check_second_order(lambda d: ops.segment_sum(ops.square(d), IDS[:3], 3), [DATA[:3]])
    assert ops.segment_sum(np.array([1, 2, 3]), [0, 1, 1]).numpy().tolist() == [1, 5]


def test_segment_max_min_values_and_tie_gradients():
    out = ops.segment_max(DATA, IDS, num_segments=3)
    # an empty segment holds the dtype's lowest value, as TensorFlow (Keras 3.15.1)
    lowest = np.finfo(DATA.dtype).min
    np.testing.assert_array_equal(out.numpy(), [[3, 5], [lowest, lowest], [5, 1]])
    np.testing.assert_array_equal(ops.segment_min(DATA, IDS, 3).numpy()[[0, 2]], [[1, 2], [5, 1]])
    assert ops.segment_max(np.array([1, 4]), [0, 0]).numpy().tolist() == [4]
    x = ops.convert_to_tensor([2.0, 2.0, 1.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.segment_max(x, [0, 0, 1])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 0.5, 1.0])
    check_gradients(lambda d: ops.segment_max(d, [0, 0, 1, -1], 2), [DATA + np.arange(8).reshape(4, 2) * 0.01])
    check_gradients(lambda d: ops.segment_min(d, [1, 0, 1, 0], 2), [DATA + np.arange(8).reshape(4, 2) * 0.01])


def test_segment_errors_name_the_op():
    with pytest.raises(ValueError, match=r"ops.segment_sum: segment id 2 is out of range"):
        ops.segment_sum(DATA, IDS, num_segments=2)
    # Keras's wording for both checks
    with pytest.raises(ValueError, match=r"ops.segment_max: Argument `segment_ids` and `data` "
                                         r"should have same leading dimension. Got \(3,\) v.s. "
                                         r"\(4, 2\)"):
        ops.segment_max(DATA, [0, 1, 2])
    with pytest.raises(ValueError, match=r"ops.segment_sum: Argument `segment_ids` should be an "
                                         r"1-D vector,"):
        ops.segment_sum(np.array([1.0, 2.0, 3.0, 4.0]), np.array([[0, 0], [1, 1]]))
    with pytest.raises(ValueError, match=r"ops.segment_sum: received 1 NaN"):
        ops.segment_sum(DATA, np.array([0.0, np.nan, 1.0, 1.0]))
    with pytest.raises(TypeError, match=r"ops.segment_sum: indices must be integers"):
        ops.segment_sum(DATA, np.array([0.0, 1.0, 1.0, 1.0]))


def test_empty_segments_as_keras_tensorflow():
    # Keras 3.15.1: unsorted kernels fill empty segments with the lowest/highest finite
    # value, the sorted ones (sorted=True) with 0.
    data = np.array([[1.0, 2.0], [3.0, -4.0], [5.0, 6.0]], "float32")
    big = float(np.finfo(np.float32).max)
    out = ops.segment_min(data, np.array([0, 0, 3]), num_segments=5).numpy()
    np.testing.assert_array_equal(out, [[1, -4], [big, big], [big, big], [5, 6], [big, big]])
    out = ops.segment_max(data, np.array([1, 1, 3]), sorted=True).numpy()
    np.testing.assert_array_equal(out, [[0, 0], [3, 2], [0, 0], [5, 6]])
    ints = ops.segment_min(data.astype("int32"), np.array([0, 0, 3]), sorted=True)
    assert ints.dtype == "int32"
    np.testing.assert_array_equal(ints.numpy(), [[1, -4], [0, 0], [0, 0], [5, 6]])
