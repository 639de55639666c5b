"""Mean-based metrics (reduction, accuracy, regression, probabilistic, hinge)
against the worked examples of the Keras 3 docstrings and hand computations."""
import math
import warnings

import numpy as np
import pytest

import kerasish as keras

Y_T = [[0, 1], [0, 0]]
Y_P = [[0.6, 0.4], [0.4, 0.6]]
REG_P = [[1, 1], [0, 0]]


def close(actual, expected, tol=2e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-5, atol=tol)


def result_of(metric, *args, **kwargs):
    metric.reset_state()
    metric.update_state(*args, **kwargs)
    return metric.result()


def test_mean_and_sum_docstring_examples():
    m = keras.metrics.Mean()
    close(result_of(m, [1, 3, 5, 7]), 4.0)
    close(result_of(m, [1, 3, 5, 7], sample_weight=[1, 1, 0, 0]), 2.0)
    s = keras.metrics.Sum()
    close(result_of(s, [1, 3, 5, 7]), 16.0)
    close(result_of(s, [1, 3, 5, 7], sample_weight=[1, 1, 0, 0]), 4.0)


def test_sum_result_is_a_read_but_confusion_counts_hand_back_the_variable():
    # Keras 3.15.1 (TF): Sum.result() is ops.cast(total) (a read), so a later update leaves
    # it at 3.0; FalsePositives(thresholds=[0.2, 0.9]).result() is the variable itself and
    # shows the later update ([2, 2]).
    s = keras.metrics.Sum()
    s.update_state([1.0, 2.0])
    first = s.result()
    s.update_state([3.0])
    assert float(first) == 3.0
    fp = keras.metrics.FalsePositives(thresholds=[0.2, 0.9])
    fp.update_state([0.0], [1.0])
    first = fp.result()
    fp.update_state([0.0], [1.0])
    np.testing.assert_array_equal(np.asarray(first), [2.0, 2.0])


def test_mean_accumulates_across_batches_and_reduces_extra_axes_per_sample():
    m = keras.metrics.Mean()
    m.update_state([[1.0, 3.0], [5.0, 7.0]])   # per-sample means 2 and 6
    m.update_state(10.0)                       # a scalar counts as one sample
    close(m.total, 18.0)
    close(m.count, 3.0)
    close(m.result(), 6.0)
    m.update_state(4.0, sample_weight=3)       # Python weight: weighted scalar
    close(m.result(), (18.0 + 12.0) / 6.0)


def test_mean_with_per_entry_weights():
    m = keras.metrics.Mean()
    m.update_state([[1.0, 3.0], [5.0, 7.0]], sample_weight=[[1.0, 0.0], [1.0, 1.0]])
    # per sample: mean of weighted values (0.5, 6) and mean of weights (0.5, 1)
    close(m.result(), 6.5 / 1.5)


def test_accuracy_docstring_examples():
    m = keras.metrics.Accuracy()
    close(result_of(m, [[1], [2], [3], [4]], [[0], [2], [3], [4]]), 0.75)
    close(result_of(m, [[1], [2], [3], [4]], [[0], [2], [3], [4]], sample_weight=[1, 1, 0, 0]), 0.5)
    m = keras.metrics.BinaryAccuracy()
    y_true, y_pred = [[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]
    close(result_of(m, y_true, y_pred), 0.75)
    close(result_of(m, y_true, y_pred, sample_weight=[1, 0, 0, 1]), 0.5)
    for cls in (keras.metrics.CategoricalAccuracy,
                lambda: keras.metrics.TopKCategoricalAccuracy(k=1)):
        m = cls()
        y_true, y_pred = [[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]
        close(result_of(m, y_true, y_pred), 0.5)
        close(result_of(m, y_true, y_pred, sample_weight=[0.7, 0.3]), 0.3)
    m = keras.metrics.SparseCategoricalAccuracy()
    y_pred = [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]
    close(result_of(m, [[2], [1]], y_pred), 0.5)
    close(result_of(m, [[2], [1]], y_pred, sample_weight=[0.7, 0.3]), 0.3)
    m = keras.metrics.SparseTopKCategoricalAccuracy(k=1)
    y_pred = [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]
    close(result_of(m, [2, 1], y_pred), 0.5)
    close(result_of(m, [2, 1], y_pred, sample_weight=[0.7, 0.3]), 0.3)


def test_binary_accuracy_threshold_takes_any_value_as_keras():
    m = keras.metrics.BinaryAccuracy(threshold=0.7)
    close(result_of(m, [1, 1, 0], [0.75, 0.65, 0.2]), 2 / 3)
    # Keras 3.15.1 checks no range: threshold=1.5 is kept (recorded: its config below)
    m = keras.metrics.BinaryAccuracy(threshold=1.5)
    assert m.get_config() == {"name": "binary_accuracy", "dtype": "float32", "threshold": 1.5}
    close(result_of(m, [1, 0, 0], [1.75, 1.25, 0.2]), 1.0)


def test_accuracy_functions_return_one_value_per_sample():
    close(keras.metrics.binary_accuracy([[1], [0]], [[0.7], [0.7]]), [[1.0], [0.0]])
    close(keras.metrics.categorical_accuracy([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]]), [1.0, 0.0])
    close(keras.metrics.sparse_categorical_accuracy([[1], [0]], [[0.2, 0.8], [0.3, 0.7]]),
          [1.0, 0.0])
    seq = keras.metrics.sparse_categorical_accuracy([[1, 0]], [[[0.2, 0.8], [0.9, 0.1]]])
    close(seq, [[1.0, 1.0]])


def test_top_k_counts_ties_and_sorted_ids():
    scores = [[0.5, 0.5, 0.2], [0.1, 0.3, 0.6]]
    # label 1 ties with the best score: fewer than k=1 scores are strictly larger
    close(keras.metrics.sparse_top_k_categorical_accuracy([1, 1], scores, k=1), [1.0, 0.0])
    close(keras.metrics.sparse_top_k_categorical_accuracy([1, 1], scores, k=2), [1.0, 1.0])
    close(keras.metrics.top_k_categorical_accuracy([[0, 0, 1], [1, 0, 0]], scores, k=2), [0.0, 0.0])
    sorted_ids = [[2, 1, 0], [0, 2, 1]]
    close(keras.metrics.sparse_top_k_categorical_accuracy([1, 1], sorted_ids, k=2,
                                                          from_sorted_ids=True), [1.0, 0.0])


REGRESSION_DOCS = [
    (keras.metrics.MeanSquaredError, 0.25, 0.5),
    (keras.metrics.MeanAbsoluteError, 0.25, 0.5),
    (keras.metrics.MeanSquaredLogarithmicError, 0.12011322, 0.24022643),
    (keras.metrics.RootMeanSquaredError, 0.5, 0.70710677),
    (keras.metrics.LogCoshError, 0.10844523, 0.21689045),
    (keras.metrics.Poisson, 0.49999997, 0.99999994),
]


@pytest.mark.parametrize("cls,plain,weighted", REGRESSION_DOCS, ids=lambda x: getattr(x, "__name__", ""))
def test_regression_docstring_examples(cls, plain, weighted):
    m = cls()
    close(result_of(m, [[0, 1], [0, 0]], REG_P), plain, 2e-6 * max(1, plain))
    close(result_of(m, [[0, 1], [0, 0]], REG_P, sample_weight=[1, 0]), weighted,
          2e-6 * max(1, weighted))


def test_mape_docstring_example_float_and_int():
    # Keras 3.15.1: the docstring's 250000000.0 holds for float inputs; with the docstring's
    # int lists epsilon is cast to int32 (0) and the result is nan (also weighted [1, 0])
    m = keras.metrics.MeanAbsolutePercentageError()
    close(result_of(m, [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]), 250000000.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(float(result_of(m, [[0, 1], [0, 0]], REG_P)))
        assert np.isnan(float(result_of(m, [[0, 1], [0, 0]], REG_P, sample_weight=[1, 0])))


def test_cosine_similarity_metric_docstring_example():
    m = keras.metrics.CosineSimilarity(axis=1)
    y_true, y_pred = [[0., 1.], [1., 1.]], [[1., 0.], [1., 1.]]
    close(result_of(m, y_true, y_pred), 0.5)
    close(result_of(m, y_true, y_pred, sample_weight=[0.3, 0.7]), 0.7)


PROBABILISTIC_DOCS = [
    (keras.metrics.KLDivergence, Y_T, Y_P, 0.45814306, 0.9162892, [1, 0]),
    (keras.metrics.BinaryCrossentropy, Y_T, Y_P, 0.81492424, 0.9162905, [1, 0]),
    (keras.metrics.CategoricalCrossentropy, [[0, 1, 0], [0, 0, 1]],
     [[0.05, 0.95, 0], [0.1, 0.8, 0.1]], 1.1769392, 1.6271976, np.array([0.3, 0.7])),
    (keras.metrics.SparseCategoricalCrossentropy, [1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]],
     1.1769392, 1.6271976, np.array([0.3, 0.7])),
    (keras.metrics.Hinge, Y_T, Y_P, 1.3, 1.1, [1, 0]),
    (keras.metrics.SquaredHinge, Y_T, Y_P, 1.86, 1.46, [1, 0]),
    (keras.metrics.CategoricalHinge, Y_T, Y_P, 1.4, 1.2, [1, 0]),
]


@pytest.mark.parametrize("cls,y_true,y_pred,plain,weighted,sample_weight", PROBABILISTIC_DOCS,
                         ids=lambda x: getattr(x, "__name__", ""))
def test_probabilistic_and_hinge_docstring_examples(cls, y_true, y_pred, plain, weighted,
                                                    sample_weight):
    m = cls()
    close(result_of(m, y_true, y_pred), plain)
    close(result_of(m, y_true, y_pred, sample_weight=sample_weight), weighted)


def test_sparse_crossentropy_metric_ignore_class():
    y_true = np.array([1, -1, 2])
    y_pred = np.array([[0.05, 0.95, 0], [0.3, 0.3, 0.4], [0.1, 0.8, 0.1]])
    valid_sum = -math.log(0.95) - math.log(0.1)
    m = keras.metrics.SparseCategoricalCrossentropy(ignore_class=-1)
    # As in Keras: without sample weights the ignored entry counts as a zero...
    close(result_of(m, y_true, y_pred), valid_sum / 3, 1e-5)
    # ... with sample weights the mask removes it from the count.
    close(result_of(m, y_true, y_pred, sample_weight=np.ones(3)), valid_sum / 2, 1e-5)


def test_mean_metric_wrapper_of_a_custom_function():
    m = keras.metrics.MeanMetricWrapper(lambda t, p: keras.ops.abs(t - p), name="l1")
    m.update_state(np.array([[1.0, 2.0]]), np.array([[2.0, 4.0]]))
    close(m.result(), 1.5)
    assert m.name == "l1" and not hasattr(m, "_direction")
    wrapped_loss = keras.metrics.MeanMetricWrapper(keras.losses.huber, delta=2.0)
    assert wrapped_loss._direction == "down"
    close(result_of(wrapped_loss, [[0.0]], [[3.0]]), 2.0 * 3.0 - 2.0)


def test_masked_predictions_are_left_out_of_the_mean():
    y_pred = keras.ops.convert_to_tensor([[1.0], [5.0], [9.0]])
    y_pred._keras_mask = keras.ops.convert_to_tensor([True, True, False])
    m = keras.metrics.MeanAbsoluteError()
    m.update_state(np.zeros((3, 1)), y_pred)
    close(m.result(), 3.0)


def test_correlation_metrics_against_numpy():
    y_true = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 0.0, 1.0, 5.0]], "float32")
    y_pred = np.array([[2.0, 4.0, 7.0, 7.5], [1.0, 1.0, 0.0, 3.0]], "float32")
    pearson = [np.corrcoef(t, p)[0, 1] for t, p in zip(y_true, y_pred)]
    close(keras.metrics.pearson_correlation(y_true, y_pred), pearson, 1e-5)
    m = keras.metrics.PearsonCorrelation()
    close(result_of(m, y_true, y_pred, sample_weight=[1.0, 3.0]),
          (pearson[0] + 3 * pearson[1]) / 4, 1e-5)
    t, p = y_true[0], y_pred[0]
    # Keras's formula: mean(2 (t - mean(p)) (p - mean(p)) / (var t + var p + (mean t - mean p)^2))
    norm = t.var() + p.var() + (t.mean() - p.mean()) ** 2
    expected = np.mean(2 * (t - p.mean()) * (p - p.mean()) / (norm + 1e-7))
    close(keras.metrics.concordance_correlation(y_true[:1], y_pred[:1]), [expected], 1e-5)
    close(result_of(keras.metrics.ConcordanceCorrelation(), y_true[:1], y_true[:1]), 1.0, 1e-5)
