"""kerasish's random numbers against Keras 3.15.1 on TensorFlow (fixtures in tests/fixtures/random).

Uniform floats, ints, dropout masks, shuffles and seeds are bit-exact. Normal
and truncated normal draws go through Box-Muller, whose float32 log/sin/cos
TensorFlow takes from glibc (not correctly rounded); kerasish takes glibc's too
(float32: where the float64 results rounded could differ; float64: always), so
they are bit-exact as well (kerasish/backend/philox.py).
"""
import os
import random as pyrandom
import sys

import numpy as np
import pytest

import kerasish as keras

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "random")
sys.path.insert(0, HERE)
import cases  # noqa: E402


def _fixture(name):
    return np.load(os.path.join(HERE, f"{name}.npz"))


def _run(name):
    keras.backend.clear_session()
    return cases.CASES[name](keras)


@pytest.fixture(scope="module")
def stateless():
    return _fixture("stateless"), _run("stateless")


def test_uniform_int_dropout_shuffle_normal_are_bit_exact(stateless):
    ref, got = stateless
    assert len(ref.files) > 200
    for key in ref.files:
        assert got[key].dtype == ref[key].dtype, key
        np.testing.assert_array_equal(got[key], ref[key], err_msg=key)


def test_seed_generators_and_global_generator_match_keras():
    ref, got = _fixture("generators"), _run("generators")
    for key in ref.files:
        np.testing.assert_array_equal(got[key], ref[key], err_msg=key)


def test_initializers_match_keras():
    ref, got = _fixture("initializers"), _run("initializers")
    for key in ref.files:
        if "Orthogonal" in key:  # TF factors in float32 (Householder), kerasish in float64
            np.testing.assert_allclose(got[key], ref[key], rtol=0, atol=4e-7 * 2, err_msg=key)
        else:   # normal-family ones too: glibc's logf/sincosf where it matters
            np.testing.assert_array_equal(got[key], ref[key], err_msg=key)


# Weights drawn by Orthogonal (recurrent kernels) or a normal-family initializer.
_NOT_BIT_EXACT = {"lstm_w1", "lstm_dropout_w1", "gru_w1", "simple_rnn_w1"}   # Orthogonal


def test_seeded_models_get_keras_initial_weights():
    ref, got = _fixture("models"), _run("models")
    assert sorted(ref.files) == sorted(got)
    for key in ref.files:
        assert got[key].shape == ref[key].shape, key
        if key in _NOT_BIT_EXACT:
            np.testing.assert_allclose(got[key], ref[key], rtol=0, atol=4e-7, err_msg=key)
        else:  # including python_after: the same number of seeds drawn, in the same order
            np.testing.assert_array_equal(got[key], ref[key], err_msg=key)


def test_noise_layers_in_training_draw_keras_masks_and_noise():
    ref, got = _fixture("noise_layers"), _run("noise_layers")
    for key in ref.files:
        if key.startswith(("mha", "attention")):
            # the same dropout mask, matmul/softmax rounding
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-6, atol=1e-6, err_msg=key)
        else:
            np.testing.assert_array_equal(got[key], ref[key], err_msg=key)


def test_image_augmentation_layers_draw_keras_transforms():
    ref, got = _fixture("augmentation"), _run("augmentation")
    for key in ref.files:  # pixel values 0..255: interpolation and colour maths round differently
        np.testing.assert_allclose(got[key], ref[key], rtol=0, atol=1e-4, err_msg=key)


def _assert_fit_matches_keras(name):
    """The loss history, final weights and Python `random`'s position after the fit."""
    ref, got = _fixture(name), _run(name)
    np.testing.assert_allclose(got["loss"], ref["loss"], rtol=2e-6)
    for key in ref.files:
        if key.startswith("w"):
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert got["python_after"] == ref["python_after"]


def test_seeded_fit_with_dropout_matches_keras_history():
    _assert_fit_matches_keras("fit")


def test_seeded_rnn_fit_with_input_and_recurrent_dropout_matches_keras_history():
    # LSTM/GRU with recurrent dropout draw one mask per gate, in Keras's order
    _assert_fit_matches_keras("fit_rnn")


def test_seeded_fit_shuffle_gives_tensorflows_order_every_epoch():
    ref, got = _fixture("fit_shuffle_orders"), _run("fit_shuffle_orders")
    for key in ref.files:
        np.testing.assert_array_equal(got[key], ref[key], err_msg=key)


def test_seeded_fit_shuffle_with_validation_split_matches_keras_history():
    ref, got = _fixture("fit_shuffle"), _run("fit_shuffle")
    np.testing.assert_allclose(got["loss"], ref["loss"], rtol=2e-6)
    np.testing.assert_allclose(got["val_loss"], ref["val_loss"], rtol=2e-6)


def test_set_random_seed_resets_the_global_generator_and_python_random():
    keras.utils.set_random_seed(5)
    a = keras.random.uniform((3,)).numpy()
    first = pyrandom.random()
    keras.utils.set_random_seed(5)
    np.testing.assert_array_equal(keras.random.uniform((3,)).numpy(), a)
    assert pyrandom.random() == first
    with pytest.raises(ValueError, match="integer"):
        keras.utils.set_random_seed(1.5)


def test_seed_generator_rejects_non_int_seed():
    with pytest.raises(ValueError, match="seed"):
        keras.random.SeedGenerator("3")
    with pytest.raises(ValueError, match="Unrecognized|unrecognized"):
        keras.random.SeedGenerator(3, foo=1)
