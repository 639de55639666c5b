"""Tape gradients of every loss against central differences (float64)."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.testing import check_gradients

RNG = np.random.default_rng(7)
REG_T = RNG.normal(size=(3, 4))
REG_P = RNG.normal(size=(3, 4))
POS_T = RNG.uniform(0.2, 2.0, size=(3, 4))
POS_P = RNG.uniform(0.2, 2.0, size=(3, 4))
BIN_T = RNG.integers(0, 2, size=(3, 4)).astype("float64")
BIN_P = RNG.uniform(0.05, 0.95, size=(3, 4))
LOGITS = RNG.normal(size=(3, 4)) * 2
PROBS = RNG.uniform(0.1, 1.0, size=(3, 4))
PROBS /= PROBS.sum(-1, keepdims=True)
ONE_HOT = np.eye(4)[[0, 3, 1]]
LABELS = np.array([0, 3, 1])
SW = np.array([0.5, 1.0, 2.0])

FUNCTION_CASES = [
    ("mean_squared_error", REG_T, REG_P, {}),
    ("mean_absolute_error", REG_T, REG_P, {}),
    ("mean_absolute_percentage_error", POS_T, POS_P, {}),
    ("mean_squared_logarithmic_error", POS_T, POS_P, {}),
    ("huber", REG_T, REG_P, {"delta": 0.8}),
    ("log_cosh", REG_T, REG_P, {}),
    ("cosine_similarity", REG_T, REG_P, {"axis": -1}),
    ("binary_crossentropy", BIN_T, BIN_P, {}),
    ("binary_crossentropy", BIN_T, LOGITS, {"from_logits": True, "label_smoothing": 0.1}),
    ("binary_focal_crossentropy", BIN_T, BIN_P, {"apply_class_balancing": True, "gamma": 2.5}),
    ("binary_focal_crossentropy", BIN_T, LOGITS, {"from_logits": True}),
    ("categorical_crossentropy", ONE_HOT, PROBS, {"label_smoothing": 0.2}),
    ("categorical_crossentropy", ONE_HOT, LOGITS, {"from_logits": True}),
    ("categorical_focal_crossentropy", ONE_HOT, PROBS, {"alpha": [0.1, 0.2, 0.3, 0.4]}),
    ("categorical_focal_crossentropy", ONE_HOT, LOGITS, {"from_logits": True, "gamma": 1.5}),
    ("kl_divergence", PROBS[::-1].copy(), PROBS, {}),
    ("poisson", POS_T, POS_P, {}),
    ("hinge", BIN_T, LOGITS, {}),
    ("squared_hinge", BIN_T, LOGITS, {}),
    ("categorical_hinge", ONE_HOT, LOGITS, {}),
    ("dice", BIN_T, BIN_P, {"axis": 1}),
    ("tversky", BIN_T, BIN_P, {"alpha": 0.3, "beta": 0.7, "axis": 1}),
]


@pytest.mark.parametrize("name,y_true,y_pred,kwargs", FUNCTION_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(FUNCTION_CASES)])
def test_loss_function_gradient_wrt_predictions(name, y_true, y_pred, kwargs):
    fn = getattr(keras.losses, name)
    check_gradients(lambda t, p: fn(t, p, **kwargs), [y_true, y_pred], wrt=[1])


def test_generalized_cross_entropy_gradient():
    check_gradients(lambda p: keras.losses.categorical_generalized_cross_entropy(
        LABELS, p, q=0.4), [PROBS])


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_categorical_crossentropy_gradient(from_logits):
    y_pred = LOGITS if from_logits else PROBS
    check_gradients(lambda p: keras.losses.sparse_categorical_crossentropy(
        LABELS, p, from_logits=from_logits), [y_pred])


def test_sparse_categorical_crossentropy_ignore_class_gradient_is_zero_on_ignored_rows():
    labels = np.array([0, -1, 1])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1,
                                                      dtype="float64")
    analytic, _ = check_gradients(lambda p: loss(labels, p), [LOGITS])[0]
    np.testing.assert_array_equal(analytic[1], 0.0)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "mean_with_sample_weight"])
@pytest.mark.parametrize("cls,y_true,y_pred", [
    (keras.losses.MeanSquaredError, REG_T, REG_P),
    (keras.losses.CategoricalCrossentropy, ONE_HOT, PROBS),
    (keras.losses.BinaryCrossentropy, BIN_T, BIN_P),
])
def test_loss_class_gradient_with_sample_weight(cls, y_true, y_pred, reduction):
    loss = cls(reduction=reduction, dtype="float64")
    check_gradients(lambda p: loss(y_true, p, sample_weight=SW), [y_pred])


def test_gradient_reaches_targets_too():
    check_gradients(lambda t, p: keras.losses.mean_squared_error(t, p), [REG_T, REG_P])
    check_gradients(lambda t, p: keras.losses.categorical_crossentropy(t, p, from_logits=True),
                    [PROBS, LOGITS])


def test_ignore_class_on_a_softmax_output_scores_probabilities_with_finite_gradients():
    # Keras 3.15.1 replaces the ignored rows' predictions before scoring, so a softmax's
    # output is scored as probabilities there (a saturated row: -log(epsilon) = 16.118,
    # printed by Keras; from its logits it would be 80), and the ignored row, whose
    # probabilities are 0 / 0 in Keras, passes no NaN back (it used to, through where).
    logits = keras.ops.convert_to_tensor(np.array([[-40.0, 40.0, 0.0], [1.0, 2.0, 3.0],
                                                  [0.5, 0.1, 0.2]], "float32"))
    loss = keras.losses.SparseCategoricalCrossentropy(ignore_class=1, reduction=None)
    with keras.GradientTape() as tape:
        tape.watch(logits)
        values = loss(np.array([0, 2, 1]), keras.activations.softmax(logits))
        total = keras.ops.sum(values)
    # exactly Keras 3.15.1's values (the middle row goes through TensorFlow's sparse
    # softmax kernel on log(probabilities))
    np.testing.assert_array_equal(values.numpy(), np.array(
        [16.11809539794922, 0.40760594606399536, 0.0], "float32"))
    grad = tape.gradient(total, logits).numpy()
    assert np.all(np.isfinite(grad))
    np.testing.assert_array_equal(grad[2], 0.0)
