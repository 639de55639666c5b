"""Hashing, HashedCrossing, Discretization and CategoryEncoding beyond the fixtures."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.utils.string_hashing import fingerprint64, siphash24


def test_reference_hash_values():
    # FarmHash Fingerprint64("") is the k2 constant; SipHash-2-4 paper test vector
    # (key 00..0f, empty message) is 0x726fdb47dd0e0e31.
    assert fingerprint64(b"") == 0x9AE16A3B2F90404F
    key = (int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little"))
    assert siphash24(key, b"") == 0x726FDB47DD0E0E31
    assert siphash24(key, bytes(range(15))) == 0xA129CA6149BE45E5


def test_hashing_in_dataset_map_and_config():
    layer = keras.layers.Hashing(num_bins=3, salt=5)
    clone = keras.layers.Hashing.from_config(layer.get_config())
    ds = keras.data.Dataset.from_tensor_slices(np.array(["a", "b", "c", "d"])).batch(2)
    got = np.concatenate([b for b in ds.map(clone)])
    np.testing.assert_array_equal(got, layer(np.array(["a", "b", "c", "d"])).numpy())


def test_errors():
    with pytest.raises(ValueError, match="num_bins"):
        keras.layers.Hashing(num_bins=0)
    with pytest.raises(ValueError, match="salt"):
        keras.layers.Hashing(num_bins=2, salt=[1, 2, 3])
    with pytest.raises(ValueError, match="at least two features"):
        keras.layers.HashedCrossing(num_bins=2)(np.array(["a"]))
    with pytest.raises(ValueError, match="same shape"):
        keras.layers.HashedCrossing(num_bins=2)((np.array(["a"]), np.array([1, 2])))
    with pytest.raises(ValueError, match="either `num_bins` or `bin_boundaries`"):
        keras.layers.Discretization()
    with pytest.raises(ValueError, match="use `num_bins` instead"):
        keras.layers.Discretization(bin_boundaries=[0.0]).adapt(np.zeros(3))
    with pytest.raises(ValueError, match="output_mode"):
        keras.layers.CategoryEncoding(num_tokens=3, output_mode="int")


def test_discretization_adapted_config_keeps_boundaries():
    layer = keras.layers.Discretization(num_bins=4)
    layer.adapt(np.arange(100, dtype="float32"))
    clone = keras.layers.Discretization.from_config(layer.get_config())
    assert clone.bin_boundaries == layer.bin_boundaries and len(layer.bin_boundaries) == 3


def test_category_encoding_count_weights():
    layer = keras.layers.CategoryEncoding(num_tokens=3, output_mode="count")
    out = layer(np.array([[0, 1, 1]]), count_weights=np.array([[0.5, 1.0, 2.0]]))
    np.testing.assert_allclose(out.numpy(), [[0.5, 3.0, 0.0]])   # real Keras's output


# Real Keras 3.15.1 on TensorFlow (/tmp/probe4/ce_neg.py): an index >= num_tokens
# is dropped; a negative one is dropped by one_hot but is an error for
# multi_hot/count (TensorFlow's bincount: "Input 'in' must be non-negative").
def test_category_encoding_out_of_range_indices():
    one_hot = keras.layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    assert one_hot(np.array([[-1], [2]])).numpy().tolist() == [[0, 0, 0, 0], [0, 0, 1, 0]]
    count = keras.layers.CategoryEncoding(num_tokens=4, output_mode="count")
    assert count(np.array([[5], [2]])).numpy().tolist() == [[0, 0, 0, 0], [0, 0, 1, 0]]
    out = count(np.array([[7, 2, 2]]), count_weights=np.array([[0.5, 1.0, 0.25]]))
    np.testing.assert_allclose(out.numpy(), [[0.0, 0.0, 1.25, 0.0]])
    for mode in ["multi_hot", "count"]:
        layer = keras.layers.CategoryEncoding(num_tokens=4, output_mode=mode)
        with pytest.raises(ValueError, match="non-negative"):
            layer(np.array([-1, 2]))
    with pytest.raises(ValueError, match="non-negative"):
        count(np.array([[-1, 2]]), count_weights=np.array([[0.5, 1.0]]))


@pytest.mark.parametrize("shape, spec, eager", [
    ((3,), (None, 4), (1, 3, 4)), ((1,), (None, 4), (1, 4)), ((), (4,), (2, 4))])
def test_one_hot_spec_is_kerass_rule(shape, spec, eager):
    """Keras 3.15.1 (probe12 session, hs.py): the symbolic shape replaces the last axis
    with `num_bins` (a (batch,) input gives `(num_bins,)`), while on tensors one_hot
    adds an axis unless the last one is 1."""
    layer = keras.layers.Hashing(4, output_mode="one_hot")
    assert layer(keras.Input(shape, dtype="int64")).shape == spec
    data = {(3,): np.array([[1, 2, 3]]), (1,): np.array([[1]]), (): np.array([1, 2])}[shape]
    assert tuple(layer(data).shape) == eager
    assert layer.compute_output_shape((None, 3)) == (None, 4)
