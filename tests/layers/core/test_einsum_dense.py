"""EinsumDense: matmul fast path vs einsum, Keras's variance-scaling fans, shapes and errors
(numbers against real Keras are in tests/layers/attention/test_attention_keras_fixtures.py)."""
import numpy as np
import pytest

from kerasish import layers, ops
from kerasish.layers.core.einsum_dense import _matmul_plan, analyze_equation
from kerasish.testing import check_gradients

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("equation,output_shape,shape", [
    ("abc,cde->abde", (None, 2, 3), (2, 4, 5)),
    ("abcd,cde->abe", (None, 6), (2, 3, 4, 5)),
    ("abc,dc->abd", (None, 3), (2, 4, 5)),
    ("...b,bc->...c", 4, (2, 3, 5)),
    ("abc,cd->adb", (3, None), (2, 4, 5)),
])
def test_matmul_plan_matches_einsum_with_gradients(equation, output_shape, shape):
    layer = layers.EinsumDense(equation, output_shape, dtype="float64")
    x = RNG.normal(size=shape)
    layer(x)
    assert _matmul_plan(equation, len(shape)) is not None
    np.testing.assert_allclose(layer(x).numpy(), ops.einsum(equation, x, layer.kernel).numpy(),
                               rtol=1e-12)
    check_gradients(lambda x, k: layer(x), [x, layer.kernel])


def test_unusual_equations_fall_back_to_einsum():
    assert _matmul_plan("abc,bcd->abd", 3) is None  # b in input, kernel and output
    layer = layers.EinsumDense("abc,bcd->abd", (4, 6), dtype="float64")
    x = RNG.normal(size=(2, 4, 5))
    np.testing.assert_allclose(layer(x).numpy(), np.einsum("abc,bcd->abd", x,
                                                           layer.kernel.numpy()), rtol=1e-12)


def test_variance_scaling_uses_einsum_fans():
    # kernel (256, 8, 32): Keras's fans are 256 in, 8 * 32 out; glorot limit sqrt(6 / 512)
    layer = layers.EinsumDense("abc,cde->abde", (None, 8, 32))
    layer.build((None, 4, 256))
    kernel = layer.kernel.numpy()
    limit = np.sqrt(6.0 / (256 + 256))
    assert np.abs(kernel).max() <= limit
    assert np.abs(kernel).max() > 0.95 * limit
    assert np.abs(kernel.std() - limit / np.sqrt(3)) < 0.05 * limit


def test_analyze_equation_shapes_and_errors():
    # Keras 3.15.1 gives exactly these (the None of output_shape is kept, as there)
    assert analyze_equation("ab...,bc->ac...", "c", (2, 5, 3), (4, None))[:3] == \
        ([5, 4], [4, 1], [2, 4, None, 3])
    # Keras 3.15.1's texts, to the letter (/tmp/probe15/ed_err.py)
    expected = [
        ("ab,bc", (5,), None, "Invalid einsum equation 'ab,bc'. Equations must be in the form "
         "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."),
        ("abc,cd->abd", 5, "d", "Input shape and output shape do not match at shared "
         "dimension 'b'. Input shape is 4, and output shape is 5."),
        ("abc,cd->abe", (None, 5), None, "Dimension 'e' was specified in the output 'abe' but "
         "has no corresponding dim in the input spec 'abc' or weight spec 'abe'"),
        ("abc,cde->abd", (None, 5), None, "Weight dimension 'e' did not have a match in either "
         "the input spec 'abc' or the output spec 'abd'. For this layer, the weight must be "
         "fully specified."),
        ("abc,cd->abd", (None, 5), "x", "Bias dimension 'x' was requested, but is not part of "
         "the output spec 'abd'"),
    ]
    for equation, output_shape, bias_axes, message in expected:
        with pytest.raises(ValueError) as info:
            layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)(np.zeros((2, 4, 6)))
        assert str(info.value) == message
    with pytest.raises(NotImplementedError, match="LoRA"):
        layers.EinsumDense("ab,bc->ac", 3, lora_rank=2)


def test_config_round_trip():
    layer = layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="de", activation="relu")
    clone = layers.EinsumDense.from_config(layer.get_config())
    assert clone.equation == "abc,cde->abde" and clone.partial_output_shape == (None, 2, 3)
    assert clone.compute_output_shape((7, 4, 5)) == (7, None, 2, 3)  # as Keras


def test_config_keys_in_keras_order():
    # The keys Keras 3.15.1 printed for EinsumDense("ab,bc->ac", (3,)).get_config().
    config = layers.EinsumDense("ab,bc->ac", (3,)).get_config()
    assert list(config) == [
        "name", "trainable", "dtype", "output_shape", "equation", "activation", "bias_axes",
        "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
        "activity_regularizer", "kernel_constraint", "bias_constraint", "quantization_config"]
    config = layers.EinsumDense("ab,bc->ac", (3,), activity_regularizer="l2").get_config()
    assert config["activity_regularizer"]["class_name"] == "L2"
