"""Confusion-matrix metrics, F-scores and R2 against Keras 3 documentation
examples, hand counts, and numbers measured with Keras 3.15.1 (torch backend)."""
import numpy as np
import pytest

import kerasish as keras

Y = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 1], "float32")
P = np.array([0.1, 0.4, 0.35, 0.8, 0.65, 0.9, 0.55, 0.2, 0.05, 0.7], "float32")
SW = np.array([1, 2, 0.5, 1, 1, 0.3, 2, 1, 1, 0.7], "float32")
Y2 = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0]], "float32")
P2 = np.array([[0.9, 0.2, 0.6], [0.3, 0.7, 0.4], [0.2, 0.1, 0.8], [0.6, 0.4, 0.5],
               [0.45, 0.85, 0.3]], "float32")


def close(actual, expected, tol=2e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-5, atol=tol)


def two_batches(metric, y_true, y_pred, sample_weight=None):
    for part in (slice(0, 3), slice(3, None)):
        metric.update_state(y_true[part], y_pred[part],
                            sample_weight=None if sample_weight is None else sample_weight[part])
    return metric.result()


# (class, kwargs, data, unweighted, weighted): Keras 3.15.1 on the same two batches.
KERAS_TABLE = [
    ("AUC", {}, "Y", 0.583333, 0.742686),
    ("AUC", {"curve": "PR"}, "Y", 0.610136, 0.76886),
    ("AUC", {"summation_method": "minoring"}, "Y", 0.583333, 0.742686),
    ("AUC", {"curve": "PR", "summation_method": "majoring"}, "Y", 0.671825, 0.819576),
    ("AUC", {"num_thresholds": 5}, "Y", 0.666667, 0.804576),
    ("AUC", {"thresholds": [0.3, 0.5, 0.75]}, "Y", 0.666667, 0.804576),
    ("AUC", {"multi_label": True}, "Y2", 0.944444, 0.904762),
    ("AUC", {"multi_label": True, "label_weights": [1.0, 2.0, 0.5]}, "Y2", 0.976191, 0.959184),
    ("AUC", {"label_weights": [1.0, 2.0, 0.5]}, "Y2", 0.950658, 0.948936),
    ("AUC", {"multi_label": True, "curve": "PR"}, "Y2", 0.968035, 0.94402),
    ("AUC", {}, "Y2", 0.928571, 0.909774),
    ("Precision", {"thresholds": [0.3, 0.5, 0.7]}, "Y", [0.714286, 0.8, 0.5],
     [0.693333, 0.94, 0.769231]),
    ("Recall", {"thresholds": [0.3, 0.5, 0.7]}, "Y", [0.833333, 0.666667, 0.166667],
     [0.83871, 0.758065, 0.16129]),
    ("Precision", {"top_k": 1}, "Y2", 1.0, 1.0),
    ("Recall", {"top_k": 2}, "Y2", 0.875, 0.894737),
    ("Precision", {"class_id": 2}, "Y2", 1.0, 1.0),
    ("Recall", {"class_id": 1, "thresholds": 0.4}, "Y2", 0.666667, 0.75),
    ("Precision", {"top_k": 2, "class_id": 0}, "Y2", 0.5, 0.571429),
    ("TruePositives", {"thresholds": [0.0, 0.5, 1.0]}, "Y", [6.0, 4.0, 0.0], [6.2, 4.7, 0.0]),
    ("FalsePositives", {"thresholds": [0.15, 0.5]}, "Y", [3.0, 1.0], [3.3, 0.3]),
    ("TrueNegatives", {}, "Y2", 7.0, 7.0),
    ("FalseNegatives", {}, "Y2", 2.0, 3.0),
    ("SensitivityAtSpecificity", {"specificity": 0.7}, "Y", 0.666667, 0.758065),
    ("SpecificityAtSensitivity", {"sensitivity": 0.6}, "Y", 0.75, 0.930233),
    ("PrecisionAtRecall", {"recall": 0.5}, "Y", 0.8, 0.94),
    ("RecallAtPrecision", {"precision": 0.75}, "Y", 0.666667, 0.758065),
    ("F1Score", {}, "Y2", [1.0, 0.8, 0.5], [1.0, 0.857143, 0.25]),
    ("F1Score", {"threshold": 0.5}, "Y2", [1.0, 0.8, 0.8], [1.0, 0.857143, 0.6]),
    ("F1Score", {"average": "micro", "threshold": 0.5}, "Y2", 0.857143, 0.8125),
    ("F1Score", {"average": "macro", "threshold": 0.5}, "Y2", 0.866667, 0.819048),
    ("F1Score", {"average": "weighted", "threshold": 0.5}, "Y2", 0.85, 0.792481),
    ("FBetaScore", {"beta": 0.5, "average": "macro", "threshold": 0.35}, "Y2", 0.834586, 0.842746),
    ("R2Score", {}, "Y2", 0.465278, 0.339673),
    ("R2Score", {"class_aggregation": None}, "Y2", [0.58125, 0.564583, 0.25],
     [0.550179, 0.443125, 0.025714]),
    ("R2Score", {"class_aggregation": "variance_weighted_average"}, "Y2", 0.465278, 0.3345),
    ("R2Score", {"num_regressors": 1}, "Y2", 0.424145, 0.288878),
]


@pytest.mark.parametrize("name,kwargs,data,plain,weighted", KERAS_TABLE,
                         ids=[f"{row[0]}-{i}" for i, row in enumerate(KERAS_TABLE)])
def test_matches_keras(name, kwargs, data, plain, weighted):
    y_true, y_pred = (Y, P) if data == "Y" else (Y2, P2)
    sample_weight = SW if data == "Y" else SW[:5]
    cls = getattr(keras.metrics, name)
    close(two_batches(cls(**kwargs), y_true, y_pred), plain)
    close(two_batches(cls(**kwargs), y_true, y_pred, sample_weight), weighted)


def test_confusion_count_docstring_examples():
    for cls, y_true, y_pred in [(keras.metrics.FalsePositives, [0, 1, 0, 0], [0, 0, 1, 1]),
                                (keras.metrics.FalseNegatives, [0, 1, 1, 1], [0, 1, 0, 0]),
                                (keras.metrics.TrueNegatives, [0, 1, 0, 0], [1, 1, 0, 0]),
                                (keras.metrics.TruePositives, [0, 1, 1, 1], [1, 0, 1, 1])]:
        m = cls()
        m.update_state(y_true, y_pred)
        close(m.result(), 2.0)
        m.reset_state()
        m.update_state(y_true, y_pred, sample_weight=[0, 0, 1, 0])
        close(m.result(), 1.0)


def test_precision_and_recall_docstring_examples():
    for cls in (keras.metrics.Precision, keras.metrics.Recall):
        m = cls()
        m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        close(m.result(), 2 / 3)
        m.reset_state()
        m.update_state([0, 1, 1, 1], [1, 0, 1, 1], sample_weight=[0, 0, 1, 0])
        close(m.result(), 1.0)
    m = keras.metrics.Precision(top_k=2)   # ties go to the first two entries
    m.update_state([0, 0, 1, 1], [1, 1, 1, 1])
    close(m.result(), 0.0)
    m = keras.metrics.Precision(top_k=4)
    m.update_state([0, 0, 1, 1], [1, 1, 1, 1])
    close(m.result(), 0.5)


def test_precision_is_zero_before_any_update():
    close(keras.metrics.Precision().result(), 0.0)
    close(keras.metrics.AUC().result(), 0.0)


def test_auc_docstring_example_and_hand_computation():
    m = keras.metrics.AUC(num_thresholds=3)
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    # thresholds [-eps, 0.5, 1 + eps]: tp = [2, 1, 0], fp = [2, 0, 0], fn = [0, 1, 2], tn = [0, 2, 2]
    close(m.true_positives, [2, 1, 0])
    close(m.false_positives, [2, 0, 0])
    close(m.false_negatives, [0, 1, 2])
    close(m.true_negatives, [0, 2, 2])
    close(m.result(), 0.75)
    m.reset_state()
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], sample_weight=[1, 0, 0, 1])
    close(m.result(), 1.0)


def test_auc_predictions_at_zero_and_one_fall_in_the_end_buckets():
    m = keras.metrics.AUC(num_thresholds=4)
    m.update_state([0, 1, 1, 0], [0.0, 1.0, 1.0, 0.0])
    close(m.true_positives, [2, 2, 2, 0])
    close(m.false_positives, [2, 0, 0, 0])
    close(m.result(), 1.0)


def test_auc_from_logits_equals_auc_of_probabilities():
    logits = np.log(P / (1 - P))
    plain, from_logits = keras.metrics.AUC(), keras.metrics.AUC(from_logits=True)
    plain.update_state(Y, P)
    from_logits.update_state(Y, logits)
    close(from_logits.result(), plain.result(), 1e-6)


def test_auc_multi_label_variables_are_built_on_first_update():
    m = keras.metrics.AUC(multi_label=True)
    assert m.variables == []
    m.update_state(Y2, P2)
    assert [v.shape for v in m.variables] == [(200, 3)] * 4
    assert keras.metrics.AUC(multi_label=True, num_labels=3).variables[0].shape == (200, 3)
    with pytest.raises(ValueError, match="num_labels"):
        keras.metrics.AUC(num_labels=3)


def test_auc_rejects_bad_arguments():
    with pytest.raises(ValueError, match="num_thresholds"):
        keras.metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="curve"):
        keras.metrics.AUC(curve="XYZ")
    with pytest.raises(ValueError, match="summation"):
        keras.metrics.AUC(summation_method="trapezoid")


def test_threshold_trade_off_docstring_examples():
    y_true, y_pred = [0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]
    m = keras.metrics.SensitivityAtSpecificity(0.5)
    m.update_state(y_true, y_pred)
    close(m.result(), 0.5)
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=[1, 1, 2, 2, 1])
    close(m.result(), 1 / 3)
    m = keras.metrics.SpecificityAtSensitivity(0.5)
    m.update_state(y_true, y_pred)
    close(m.result(), 2 / 3)
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=[1, 1, 2, 2, 2])
    close(m.result(), 0.5)
    m = keras.metrics.PrecisionAtRecall(0.5)
    m.update_state(y_true, y_pred)
    close(m.result(), 0.5)
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=[2, 2, 2, 1, 1])
    close(m.result(), 1 / 3)
    m = keras.metrics.RecallAtPrecision(0.8)
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    close(m.result(), 0.5)
    m.reset_state()
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], sample_weight=[1, 0, 0, 1])
    close(m.result(), 1.0)
    with pytest.raises(ValueError, match="recall"):
        keras.metrics.PrecisionAtRecall(1.5)


def test_f_score_docstring_examples():
    y_true = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], np.int32)
    y_pred = np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32)
    m = keras.metrics.FBetaScore(beta=2.0, threshold=0.5)
    m.update_state(y_true, y_pred)
    close(m.result(), [0.3846154, 0.90909094, 0.8333334])
    m = keras.metrics.F1Score(threshold=0.5)
    m.update_state(y_true, y_pred)
    close(m.result(), [0.5, 0.8, 0.6666667])


def test_f_score_argument_checks():
    with pytest.raises(ValueError, match="average"):
        keras.metrics.F1Score(average="median")
    with pytest.raises(ValueError, match="beta"):
        keras.metrics.FBetaScore(beta=2)
    with pytest.raises(ValueError, match="threshold"):
        keras.metrics.F1Score(threshold=1.5)
    with pytest.raises(ValueError, match="2D inputs"):
        keras.metrics.F1Score().update_state([1, 0], [0.3, 0.6])


def test_r2_docstring_example():
    m = keras.metrics.R2Score()
    m.update_state(np.array([[1], [4], [3]], "float32"), np.array([[2], [4], [4]], "float32"))
    close(m.result(), 0.57142854)


def test_fbeta_refuses_an_undefined_output_dim_in_keras_words():
    fbeta = keras.metrics.FBetaScore(beta=1.0)
    with pytest.raises(ValueError, match=r"FBetaScore expects 2D inputs with shape \(batch_size, "
                                         r"output_dim\), with output_dim fully defined \(not "
                                         r"None\)\. Received input shapes: y_pred\.shape=\(2, "
                                         r"None\) and y_true\.shape=\(2, None\)\."):
        fbeta._build((2, None), (2, None))


@pytest.mark.parametrize("samples, message", [
    (1, "More independent predictors than datapoints in adjusted R2 score. "
        "Falling back to standard R2 score."),
    (2, "Division by zero in Adjusted R2 score. Falling back to standard R2 score."),
])
def test_r2_adjusted_fallback_warnings_are_kerass_two_texts(samples, message):
    # Keras 3.15.1 (regression_metrics.R2Score.result) warns with one of two texts.
    m = keras.metrics.R2Score(num_regressors=1)
    m.update_state(np.ones((samples, 1), "float32"), np.zeros((samples, 1), "float32"))
    with pytest.warns(UserWarning) as record:
        m.result()
    assert [str(w.message) for w in record] == [message]


def test_r2_squares_residuals_with_tensorflows_pow_eagerly():
    # Keras 3.15.1 eagerly: `(y_true - y_pred) ** 2` is TensorFlow's Pow (not a square);
    # recorded: R2Score() -> -0.4087948501110077; with class_aggregation=None and
    # num_regressors=1 (adjusted) the values below.
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, (20, 3)).astype("float32")
    y_pred = rng.uniform(0.0, 1.0, (20, 3)).astype("float32")
    m = keras.metrics.R2Score()
    m.update_state(y_true, y_pred)
    assert float(m.result()) == -0.4087948501110077
    m = keras.metrics.R2Score(class_aggregation=None, num_regressors=1)
    m.update_state(y_true, y_pred)
    assert m.result().numpy().tolist() == [-0.275862455368042, -0.6763429641723633,
                                           -0.34704768657684326]
