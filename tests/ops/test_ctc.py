"""ctc_loss / ctc_decode / losses.CTC against Keras 3.15.1 (fixtures/ops/ctc.json)."""
import json
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops",
                                      "ctc.json")))


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: f"blank{c['mask_index']}")
def test_loss_and_decoders_match_keras(case):
    logits = np.array(case["logits"], "float32")
    lengths = np.array(case["output_length"])
    loss = ops.ctc_loss(np.array(case["labels"]), logits, np.array(case["label_length"]),
                        lengths, mask_index=case["mask_index"])
    np.testing.assert_allclose(loss.numpy(), case["loss"], rtol=1e-5)
    decoded, scores = ops.ctc_decode(logits, lengths, mask_index=case["mask_index"])
    np.testing.assert_array_equal(decoded.numpy(), case["greedy"][0])
    np.testing.assert_allclose(scores.numpy(), case["greedy"][1], rtol=1e-6)
    decoded, scores = ops.ctc_decode(logits, lengths, strategy="beam_search", beam_width=5,
                                     top_paths=2, mask_index=case["mask_index"])
    np.testing.assert_array_equal(decoded.numpy(), case["beam"][0])
    np.testing.assert_allclose(scores.numpy(), case["beam"][1], rtol=1e-5)


def test_ctc_loss_class():
    case = FIXTURE["ctc_class"]
    loss = keras.losses.CTC()(np.array(case["y_true"]), np.array(case["y_pred"], "float32"))
    np.testing.assert_allclose(float(loss), case["loss"], rtol=1e-6)
    assert keras.losses.CTC.from_config(keras.losses.CTC(name="c").get_config()).name == "c"


def test_ctc_loss_gradients():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((2, 5, 4))
    labels, label_len, out_len = np.array([[1, 2, 2], [3, 1, 0]]), np.array([3, 2]), np.array([5, 4])
    check_gradients(lambda v: ops.ctc_loss(labels, v, label_len, out_len), [logits])
    check_second_order(lambda v: ops.ctc_loss(labels, v, label_len, out_len), [logits])


def test_half_precision_computes_in_float32():
    labels, logits = np.array([[1, 2, 1]]), np.random.rand(1, 3, 3).astype("float16")
    assert ops.ctc_loss(labels, logits, np.array([3]), np.array([3])).dtype == "float32"


def test_bad_arguments():
    with pytest.raises(ValueError, match="ops.ctc_decode: Invalid strategy"):
        ops.ctc_decode(np.zeros((1, 2, 3)), [2], strategy="best")
    with pytest.raises(ValueError, match="ops.ctc_loss: expects `target`"):
        ops.ctc_loss(np.zeros((2, 3)), np.zeros((1, 4, 3)), [1, 1], [4])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("strategy", ["greedy", "beam_search"])
def test_ctc_decode_scores_are_at_least_float32(dtype, strategy):
    # Keras: scores in result_type(inputs, "float32")
    logits = [[[0.4, 0.8, 0.4], [0.2, 0.8, 0.3], [0.9, 0.4, 0.5]]]
    low = ops.cast(ops.convert_to_tensor(logits), dtype)
    decoded, scores = ops.ctc_decode(low, ops.convert_to_tensor([3]), strategy=strategy)
    assert decoded.dtype == "int32" and scores.dtype == "float32"
    _, reference = ops.ctc_decode(ops.cast(low, "float32"), ops.convert_to_tensor([3]),
                                  strategy=strategy)
    np.testing.assert_allclose(scores.numpy(), reference.numpy(), rtol=1e-6)


def test_gradient_with_a_blank_label_inside_the_length_is_tensorflows():
    # Zero-padded labels passed with their full length (keras-io OCR-style CTC layers):
    # TensorFlow's CTC gradient (softmax - occupancy) counts the states of a label
    # equal to the blank for no class. Gradient printed by Keras 3.15.1 (TF backend);
    # kerasish's exact derivative gave 0.185383 / -0.274627 / -0.782875 at class 0.
    logits = keras.Variable(np.random.RandomState(0).randn(2, 4, 3).astype("float32"))
    labels = np.array([[1, 0], [2, 1]], "int32")
    with keras.GradientTape() as tape:
        loss = ops.ctc_loss(labels, logits, np.array([2, 2]), np.array([4, 3]), mask_index=0)
        total = ops.sum(loss)
    np.testing.assert_allclose(ops.convert_to_numpy(loss), [1.57394, 1.412821], rtol=1e-5)
    expected = [[[0.030937, -0.297334, 0.266397], [0.346955, -0.208541, 0.023158],
                 [0.305006, 0.067164, 0.207464], [-0.12655, 0.166321, 0.616555]],
                [[0.392679, 0.233895, -0.626575], [0.146263, -0.180982, 0.034718],
                 [0.083161, -0.124766, 0.041605], [0.0, 0.0, 0.0]]]
    np.testing.assert_allclose(ops.convert_to_numpy(tape.gradient(total, logits)), expected,
                               atol=2e-6)
