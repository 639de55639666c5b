"""kerasish.ops cross-entropies: Keras formulas, logits stability, gradients, bad labels."""
import re

import numpy as np
import pytest
from scipy import special

from kerasish import GradientTape, ops
from kerasish.backend import epsilon
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(9)
LOGITS = RNG.standard_normal((4, 3))
PROBS = special.softmax(LOGITS, axis=-1)
LABELS = np.array([0, 2, 1, 2])
ONEHOT = np.eye(3)[LABELS]
BINARY = (RNG.uniform(size=(4, 3)) > 0.5).astype(float)


def _clip(p):
    return np.clip(p, epsilon(), 1 - epsilon())


def test_binary_crossentropy_matches_keras_formula():
    p = special.expit(LOGITS)
    ref = -(BINARY * np.log(_clip(p)) + (1 - BINARY) * np.log(1 - _clip(p)))
    np.testing.assert_allclose(ops.binary_crossentropy(BINARY, p).numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(ops.binary_crossentropy(BINARY, LOGITS, from_logits=True).numpy(),
                               ref, rtol=1e-6)
    np.testing.assert_allclose(float(ops.binary_crossentropy([1.0], [0.5])[0]), np.log(2), rtol=1e-6)


def test_categorical_and_sparse_match_reference():
    ref = -np.sum(ONEHOT * special.log_softmax(LOGITS, axis=-1), axis=-1)
    np.testing.assert_allclose(ops.categorical_crossentropy(ONEHOT, LOGITS, from_logits=True).numpy(), ref)
    np.testing.assert_allclose(ops.categorical_crossentropy(ONEHOT, PROBS).numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(ops.sparse_categorical_crossentropy(LABELS, LOGITS, from_logits=True).numpy(), ref)
    np.testing.assert_allclose(ops.sparse_categorical_crossentropy(LABELS, PROBS).numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(ops.sparse_categorical_crossentropy(LABELS[:, None], PROBS).numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(  # unnormalised probabilities are renormalised, as in Keras
        ops.categorical_crossentropy(ONEHOT, PROBS * 3.0).numpy(), ref, rtol=1e-6)
    moved = ops.categorical_crossentropy(ONEHOT.T, LOGITS.T, from_logits=True, axis=0)
    np.testing.assert_allclose(moved.numpy(), ref)
    np.testing.assert_allclose(
        ops.sparse_categorical_crossentropy(LABELS, LOGITS.T, from_logits=True, axis=0).numpy(), ref)
    assert ops.sparse_categorical_crossentropy(LABELS.astype("float32"), PROBS).shape == (4,)


@pytest.mark.parametrize("from_logits", [False, True])
def test_gradients(from_logits):
    out = LOGITS if from_logits else PROBS
    soft = ONEHOT * 0.85 + 0.05   # rows sum to 1
    check_gradients(lambda o: ops.categorical_crossentropy(soft, o, from_logits=from_logits), [out])
    check_gradients(lambda o: ops.sparse_categorical_crossentropy(LABELS, o, from_logits=from_logits), [out])
    bout = LOGITS if from_logits else special.expit(LOGITS)
    check_gradients(lambda o: ops.binary_crossentropy(BINARY, o, from_logits=from_logits), [bout])
    check_gradients(lambda t: ops.categorical_crossentropy(t, out, from_logits=from_logits), [ONEHOT * 0.5])


@pytest.mark.parametrize("from_logits", [False, True])
def test_second_order(from_logits):
    out = LOGITS[:2] if from_logits else PROBS[:2]
    check_second_order(lambda o: ops.categorical_crossentropy(ONEHOT[:2], o, from_logits=from_logits), [out])
    check_second_order(lambda o: ops.sparse_categorical_crossentropy(LABELS[:2], o, from_logits=from_logits), [out])
    bout = LOGITS[:2] if from_logits else special.expit(LOGITS[:2])
    check_second_order(lambda o: ops.binary_crossentropy(BINARY[:2], o, from_logits=from_logits), [bout])


def test_logits_of_1e4_give_finite_losses_and_gradients():
    logits = ops.convert_to_tensor(np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]], "float32"))
    targets = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], "float32")
    with GradientTape(persistent=True) as tape:
        tape.watch(logits)
        losses = [ops.binary_crossentropy(targets, logits, from_logits=True),
                  ops.categorical_crossentropy(targets, logits, from_logits=True),
                  ops.sparse_categorical_crossentropy(np.array([1, 0]), logits, from_logits=True)]
    for loss in losses:
        grad = tape.gradient(loss, logits)
        assert np.all(np.isfinite(loss.numpy())) and np.all(np.isfinite(grad.numpy()))
    np.testing.assert_allclose(losses[0].numpy()[0], [1e4, 1e4, np.log(2)], rtol=1e-6)
    np.testing.assert_allclose(losses[1].numpy(), [2e4, 2e4 + np.log(2)], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(losses[2], logits).numpy()[0], [1.0, -1.0, 0.0], atol=1e-6)


def test_bad_labels_raise_instead_of_producing_nan():
    with pytest.raises(ValueError, match=r"ops.sparse_categorical_crossentropy: received 1 NaN"):
        ops.sparse_categorical_crossentropy(np.array([0.0, np.nan, 1.0, 2.0]), LOGITS, from_logits=True)
    with pytest.raises(ValueError, match=r"labels must be in \[0, 3\).*max 3"):
        ops.sparse_categorical_crossentropy(np.array([0, 3, 1, 1]), LOGITS)
    # Keras 3.15.1's texts (TensorFlow backend)
    with pytest.raises(ValueError, match=re.escape(
            "Arguments `target` and `output` must have the same shape up until the last "
            "dimension: target.shape=(3,), output.shape=(4, 3)")):
        ops.sparse_categorical_crossentropy(np.array([0, 1, 1]), LOGITS)
    with pytest.raises(ValueError, match=re.escape(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
            "target.shape=(4, 3), output.shape=(4, 3)")):
        ops.sparse_categorical_crossentropy(ONEHOT, LOGITS)
    with pytest.raises(ValueError, match=re.escape(
            "Arguments `target` and `output` must have the same shape. Received: "
            "target.shape=(4, 2), output.shape=(4, 3)")):
        ops.categorical_crossentropy(ONEHOT[:, :2], LOGITS)
    with pytest.raises(ValueError, match=re.escape(
            "Arguments `target` and `output` must have the same rank (ndim). Received: "
            "target.shape=(4,), output.shape=(4, 3)")):
        ops.categorical_crossentropy(ONEHOT[:, 0], LOGITS)
    with pytest.raises(ValueError, match=re.escape(
            "Arguments `target` and `output` must have the same shape. Received: "
            "target.shape=(4, 1), output.shape=(4, 3)")):
        ops.binary_crossentropy(BINARY[:, :1], LOGITS)


def test_fused_backward_skips_unwatched_targets_but_serves_watched_ones():
    logits = ops.convert_to_tensor(LOGITS)
    target = ops.convert_to_tensor(ONEHOT)
    with GradientTape(persistent=True) as tape:
        tape.watch([logits, target])
        loss = ops.categorical_crossentropy(target, logits, from_logits=True)
    gt = tape.gradient(loss, target)
    np.testing.assert_allclose(gt.numpy(), -special.log_softmax(LOGITS, axis=-1))


def _loss_and_grad(fn, x):
    x = ops.convert_to_tensor(np.asarray(x, "float32"))
    with GradientTape() as tape:
        tape.watch(x)
        loss = fn(x)
    return loss.numpy(), tape.gradient(loss, x).numpy()


def test_softmax_and_sigmoid_outputs_are_scored_from_their_logits():
    # Keras on TensorFlow (`_get_logits`): a softmax's or sigmoid's output is replaced by
    # its logits, so saturated predictions give the exact loss and a gradient (values
    # printed by Keras 3.15.1; clipped probabilities would give 16.1 and no gradient).
    loss, grad = _loss_and_grad(lambda z: ops.binary_crossentropy(
        np.array([[1.0, 0.0]]), ops.sigmoid(z)), [[-40.0, 40.0]])
    np.testing.assert_array_equal(loss, [[40.0, 40.0]])
    np.testing.assert_array_equal(grad, [[-1.0, 1.0]])
    target = np.array([[1.0, 1.0, 0.0]])
    for fn in (lambda z: ops.categorical_crossentropy(target, ops.softmax(z)),
               lambda z: ops.categorical_crossentropy(target, z, from_logits=True)):
        loss, grad = _loss_and_grad(fn, [[1.0, 2.0, 3.0]])
        np.testing.assert_allclose(loss, [3.815211772918701], rtol=3e-7)
        # TensorFlow's gradient is softmax(z) - target even when the target does not
        # sum to 1 (the exact derivative would be softmax(z) * 2 - target)
        np.testing.assert_allclose(grad, [[-0.9099694490432739, -0.7552715539932251,
                                           0.6652409434318542]], rtol=1e-6)


def test_from_logits_on_a_softmax_output_warns_as_keras():
    probs = ops.softmax(ops.convert_to_tensor([[1.0, 2.0, 3.0]]))
    with pytest.warns(UserWarning) as record:
        loss = ops.sparse_categorical_crossentropy([1], probs, from_logits=True)
    assert str(record[0].message) == (
        '"`sparse_categorical_crossentropy` received `from_logits=True`, but the `output` '
        "argument was produced by a Softmax activation and thus does not represent logits. "
        "Was this intended?")
    np.testing.assert_allclose(loss.numpy(), [1.4076059644443801], rtol=1e-6)


def test_sparse_crossentropy_of_probabilities_is_tensorflows_kernel_on_their_log():
    # Keras 3.15.1 on TensorFlow scores probabilities as the sparse softmax kernel on
    # log(clip(p)) (no division by the row sums); values recorded from Keras
    p = np.array([[0.3630426228046417, 0.5915575623512268, 0.04539981484413147],
                  [0.09269394725561142, 0.021509675309062004, 0.8857964277267456],
                  [0.2962389886379242, 0.3312077224254608, 0.37255334854125977],
                  [0.3915203809738159, 0.22608600556850433, 0.3823935389518738]], "float32")
    out = ops.sparse_categorical_crossentropy(np.array([0, 2, 1, 1]), p)
    np.testing.assert_array_equal(ops.convert_to_numpy(out), np.array(
        [1.013235092163086, 0.1212681457400322, 1.10500967502594, 1.486839771270752], "float32"))
