"""keras.ops on KerasTensors: shape rules (unknown sizes stay None), dispatch without patching.

Expected shapes are Keras 3.15.1's (its `ops/*_test.py` StaticShape/DynamicShape cases).
"""
import numpy as np
import pytest

from kerasish import ops
from kerasish.autodiff.keras_tensor import KerasTensor as KT
from kerasish.ops import symbolic


@pytest.fixture(autouse=True)
def _no_evaluation():
    """Every op in these tests must answer from its shape rule, never by evaluation."""
    symbolic.EVALUATED.clear()
    yield
    assert not symbolic.EVALUATED, f"evaluated instead of traced: {symbolic.EVALUATED}"


def test_ops_dispatch_where_they_are_defined():
    # no namespace is patched after import: the public function is the defined one
    from kerasish.ops import image, linalg, numpy as knp, reduction
    assert ops.sum is reduction.sum is knp.sum and ops.matmul is linalg.matmul
    assert image.resize(KT((None, 8, 8, 3)), (4, 4)).shape == (None, 4, 4, 3)


def test_broadcasting_keeps_unknown_sizes():
    assert ops.add(KT((None, 3)), KT((2, None))).shape == (2, 3)
    assert ops.greater(KT((None, 3)), KT((2, None))).dtype == "bool"
    assert ops.where(KT((2, None, 1), "bool"), KT((None, 1)), KT((None, 3))).shape == (2, None, 3)
    with pytest.raises(ValueError, match="ops.add"):
        ops.add(KT((2, 3)), KT((2, 2)))


def test_elementwise_dtypes_follow_the_eager_rules():
    assert ops.divide(KT((None,), "int32"), KT((None,), "int32")).dtype == "float32"
    assert ops.add(KT((None,), "int8"), 1).dtype == "int8"
    assert ops.exp(KT((None,), "int32")).dtype == "float32"
    assert ops.isnan(KT((None,))).dtype == "bool"


def test_contractions():
    x, y, z = KT((None, 3)), KT((3, 2)), KT((None, None, 2))
    assert ops.matmul(x, y).shape == (None, 2)
    assert ops.dot(x, 2).shape == (None, 3)
    assert ops.dot(x, z).shape == (None, None, 2)
    assert ops.einsum("ij,jk->ikj", x, KT((3, 4))).shape == (None, 4, 3)
    assert ops.einsum("ii", x).shape == ()
    assert ops.inner(KT((None,)), KT((3,))).shape == ()
    assert ops.matmul(KT((None, 2), "int8"), KT((2, 2), "int8")).dtype == "int32"
    with pytest.raises(ValueError, match="matmul"):
        ops.matmul(KT((None, 3)), KT((2, 4)))


def test_concatenate_split_stack():
    assert ops.concatenate([KT((None, 3)), KT((2, 4))], axis=1).shape == (2, 7)
    assert ops.concatenate([KT((None, 3)), KT((None, 3))], axis=0).shape == (None, 3)
    with pytest.raises(ValueError, match="concatenate"):
        ops.concatenate([KT((2, 3)), KT((3, 3))], axis=1)
    pieces = ops.split(KT((None, 3, 3)), [1, 3], axis=1)
    assert [p.shape for p in pieces] == [(None, 1, 3), (None, 2, 3), (None, 0, 3)]
    assert [p.shape for p in ops.split(KT((3, 3, None)), [1, 3], axis=2)] == \
        [(3, 3, 1), (3, 3, 2), (3, 3, None)]
    assert [p.shape for p in ops.array_split(KT((None, 4)), 2)] == [(None, 4)] * 2
    assert ops.dstack([KT((None,)), KT((None,))]).shape == (1, None, 2)
    assert [t.shape for t in ops.unstack(KT((2, None, None)), num=3, axis=1)] == [(2, None)] * 3
    with pytest.raises(ValueError, match="Cannot infer argument `num`"):
        ops.unstack(KT((2, None)), axis=1)


def test_reshape_slice_and_indexing():
    assert ops.reshape(KT((None, 20)), (-1, 4, 5)).shape == (None, 4, 5)
    assert ops.reshape(KT((6, 20)), (-1, 4)).shape == (30, 4)
    assert ops.reshape(KT((None, 20)), KT((2,), "int32")).shape == (None, None)
    with pytest.raises(ValueError, match="reshape"):
        ops.reshape(KT((3, 3)), (3, 2))
    assert ops.slice(KT((None, 3)), (1, 1), (-1, -1)).shape == (None, 2)
    assert ops.slice(KT((3, 3)), KT((2,), "int32"), (-1, -1)).shape == (None, None)
    x = KT((None, 5, 16))
    assert x[:, 1:3].shape == (None, 2, 16) and x[..., None, 0].shape == (None, 5, 1)
    assert x[:, :-1].shape == (None, 4, 16)
    assert x[1:].shape == (None, 5, 16)  # a slice of an unknown size stays unknown


def test_reductions_and_axes():
    assert ops.sum(KT((None, 3), "int8"), axis=1).dtype == "int32"
    assert ops.argmax(KT((None, 3)), axis=1).shape == (None,)
    assert ops.max(KT((None, 3)), axis=0, keepdims=True).shape == (1, 3)
    assert ops.trace(KT((None, 3))).shape == ()
    for fn in (lambda a: ops.sort(a, axis=10), lambda a: ops.cumsum(a, axis=10),
               lambda a: ops.take(a, KT((2,), "int32"), axis=10)):
        with pytest.raises(ValueError, match="axis 10 is out of bounds"):
            fn(KT((3, 4)))


def test_control_flow_specs():
    carry, ys = ops.scan(lambda c, x: (c, c), KT((None,)), KT((6, None)))
    assert (carry.shape, ys.shape) == ((None,), (6, None))
    assert ops.map(lambda x: {"a": x ** 2}, KT((None, 5)))["a"].shape == (None, 5)
    assert ops.while_loop(lambda a: a < 10, lambda a: a + 1, KT((None,))).shape == (None,)
    assert ops.cond(KT((), "bool"), lambda: ops.ones((1, 3)), lambda: ops.zeros((1, 3))).shape \
        == (1, 3)
    with pytest.raises(ValueError, match="cond"):
        ops.cond(KT((), "bool"), lambda: ops.ones((3,)), lambda: ops.zeros((4,)))


def test_real_tensors_take_the_eager_path():
    np.testing.assert_allclose(ops.sum(np.ones((2, 3)), axis=1).numpy(), [3.0, 3.0])
    assert ops.convert_to_tensor(KT((2, None))).shape == (2, None)
    with pytest.raises(ValueError, match="symbolic"):
        ops.convert_to_numpy(KT((2,)))


def test_conv_and_pool_keep_unknown_sizes():
    assert ops.conv(KT((None, None, 8, 3)), KT((3, 3, 3, 4)), padding="same").shape == \
        (None, None, 8, 4)
    assert ops.conv(KT((None, 10, 8, 3)), np.ones((3, 3, 3, 4), "float32"), strides=2).shape == \
        (None, 4, 3, 4)
    assert ops.conv(KT((None, 3, 8, 8)), KT((3, 3, 3, 4)), data_format="channels_first").shape \
        == (None, 4, 6, 6)
    assert ops.conv_transpose(KT((None, 4, None, 3)), KT((3, 3, 5, 3)), strides=2).shape == \
        (None, 9, None, 5)
    assert ops.max_pool(KT((None, None, 8, 3)), 2).shape == (None, None, 4, 3)
    assert ops.average_pool(KT((None, 7, 8, 3)), 2, padding="same").shape == (None, 4, 4, 3)
    with pytest.raises(ValueError, match="larger than the input"):
        ops.conv(KT((None, 2, 2, 3)), KT((3, 3, 3, 4)))


def test_normalization_and_attention_are_shaped_like_their_input():
    assert ops.layer_normalization(KT((None, 8, 16))).shape == (None, 8, 16)
    assert ops.batch_normalization(KT((None, 3, 4)), KT((4,)), KT((4,)), axis=-1).shape == \
        (None, 3, 4)
    with pytest.raises(ValueError, match="`offset` must be a vector of length"):
        ops.batch_normalization(KT((None, 3, 5)), KT((5,)), KT((5,)), axis=-1, offset=KT((3,)))
    assert ops.dot_product_attention(KT((None, None, 8, 16)), KT((None, None, 6, 16)),
                                     KT((None, None, 6, 16))).shape == (None, None, 8, 16)
    assert ops.one_hot(KT((None, 3, 1), "int32"), 5, 1).shape == (None, 5, 3, 1)


def test_unique_and_creation_specs():
    v, idx, inv = ops.unique(KT((2, 4)), axis=0, return_index=True, return_inverse=True)
    assert (v.shape, idx.shape, inv.shape) == ((None, 4), (None,), (2,))
    assert ops.zeros_like(KT((None, 3), "int32")).dtype == "int32"
    assert ops.linspace(KT((None, 3, 4)), KT((2, 3, 4)), 10, axis=1).shape == (2, 10, 3, 4)


def test_fft_specs_need_known_transformed_axes():
    real, imag = ops.fft((KT((None, 8)), KT((None, 8))))
    assert real.shape == imag.shape == (None, 8)
    assert ops.rfft(KT((None, 8)))[0].shape == (None, 5)
    with pytest.raises(ValueError, match="last dimension fully-defined"):
        ops.fft((KT((None,)), KT((None,))))
    with pytest.raises(ValueError, match="last 2 axes fully-defined"):
        ops.fft2((KT((None, None, 3)), KT((None, None, 3))))


def test_segment_reductions_follow_keras():
    assert ops.segment_sum(KT((None, 4)), KT((None,), "int32")).shape == (None, 4)
    assert ops.segment_max(KT((10, 4)), KT((10,), "int32"), num_segments=3).shape == (3, 4)
    with pytest.raises(ValueError, match="same leading dimension"):
        ops.segment_sum(KT((2, 4)), KT((10,), "int32"))


def test_keras_checks_on_symbolic_inputs():
    assert ops.repeat(KT((2, 3)), [2]).shape == (12,)
    assert ops.squeeze(KT((None, 1, 1, 1)), (-1, -2)).shape == (None, 1)
    with pytest.raises(ValueError, match="cannot squeeze axis 0 of size None"):  # as Keras
        ops.squeeze(KT((None, 1)), axis=0)
    with pytest.raises(ValueError, match="Size of `repeats` and dimensions of `x` after "
                                         "flattening should be compatible. Received: 2 and 6"):
        ops.repeat(KT((2, 3)), [1, 1])
    with pytest.raises(ValueError, match="dimensions of `axis 0 of x` should be compatible"):
        ops.repeat(KT((2, 3)), [1, 1, 1], axis=0)
    assert ops.repeat(KT((2, 3)), [1, 2], axis=0).shape == (3, 3)
    for fn in (lambda: ops.broadcast_to(KT((3, 3)), (2, 2, 3)),
               lambda: ops.concatenate([KT((2, 3))] * 2, axis=None),
               lambda: ops.digitize(KT((2, 3)), KT((2, 3, 4)))):
        with pytest.raises(ValueError):
            fn()


def test_quantiles_on_symbolic_inputs_follow_keras():
    # Keras 3.15.1's shape rules (ops_numpy_test *ShapeTest::test_*quantile/percentile)
    for fn in (ops.quantile, ops.percentile, ops.nanquantile, ops.nanpercentile):
        for shape in ((None, 3), (3, 3)):
            x = KT(shape)
            assert fn(x, KT(())).shape == ()
            assert fn(x, KT((2,))).shape == (2,)
            assert fn(x, KT((2,)), axis=1).shape == (2, shape[0])
            assert fn(x, KT((2,)), axis=1, keepdims=True).shape == (2, shape[0], 1)
            assert fn(x, [0.1, 0.5]).shape == (2,) and fn(x, 0.5, keepdims=True).shape == (1, 1)
    assert ops.quantile(KT((None, 3), "int64"), 0.5).dtype == "float32"
    assert ops.quantile(KT((None, 3), "float16"), 0.5).dtype == "float16"


def test_einsum_tensordot_inner_with_unknown_sizes_follow_keras():
    x, y, z = KT((None, 3, 4)), KT((None, 4, 5)), KT((1, 1, 1, 9))
    assert ops.einsum("ijk,jkl->li", x, y).shape == (5, None)
    assert ops.einsum("...,...j->...j", x, y).shape == (None, 3, 4, 5)
    assert ops.einsum("i...,...j", x, y).shape == (3, 4, None, 5)
    assert ops.einsum("i...,...j,...k", x, y, z).shape == (1, 3, 4, None, 5, 9)
    assert ops.einsum("mij,ijk,...", x, y, z).shape == (1, 1, 1, 9, 5, None)
    assert ops.einsum("ii", KT((2, 3))).shape == ()
    assert ops.einsum(",ij", 5, KT((None, 3))).shape == (None, 3)
    with pytest.raises(ValueError, match="Number of dimensions in the subscript"):
        ops.einsum("ijk,jk->ik", KT((None, 3)), KT((3, 4)))
    assert ops.tensordot(x, KT((3, 4)), axes=1).shape == (None, 3, 4)  # int axes: unchecked
    assert ops.tensordot(x, KT((3, 4)), axes=[[0, 1], [1, 0]]).shape == (4,)
    with pytest.raises(ValueError, match=r"Shape mismatch on `x1\[axes\[0\]\]`"):
        ops.tensordot(KT((5, 3)), KT((4,)), axes=[[1], [0]])
    assert ops.inner(KT((5, None)), KT((4, 3))).shape == (5, 4)
    assert ops.inner(KT(()), KT((3,))).shape == (3,)
    with pytest.raises(ValueError, match="last dimension"):
        ops.inner(KT((5, 3)), KT((4,)))


def test_histogram_on_a_symbolic_input():
    counts, edges = ops.histogram(KT((None,)), bins=7)
    assert counts.shape == (7,) and edges.shape == (8,)


def test_searchsorted_dtype_follows_keras():
    assert ops.searchsorted(KT((None,)), KT((2, 3))).dtype == "int64"  # length unknown
    assert ops.searchsorted(KT((5,)), KT((2, 3))).dtype == "int32"


def test_convert_to_tensor_keeps_the_sparse_flag_as_keras():
    dense, sparse = KT((2, None)), KT((2, 3), sparse=True)
    assert ops.convert_to_tensor(dense).shape == (2, None)
    assert not ops.convert_to_tensor(dense, sparse=True).sparse  # cannot make it sparse
    assert ops.convert_to_tensor(sparse).sparse
    assert not ops.convert_to_tensor(sparse, sparse=False).sparse
