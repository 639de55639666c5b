"""Loss values against Keras 3 documentation examples, hand computations and
numbers measured with Keras 3.15.1 (torch backend) on the same inputs."""
import math
import warnings

import numpy as np
import pytest

import kerasish as keras

Y_T = [[0, 1], [0, 0]]
Y_P = [[0.6, 0.4], [0.4, 0.6]]
REG_T = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32")
REG_P = np.array([[1.5, 1.0, 3.5], [3.0, 5.5, 8.0]], "float32")
SW = np.array([0.25, 2.0], "float32")
BIN_T = np.array([[0., 1., 1.], [1., 0., 0.]], "float32")
BIN_P = np.array([[0.1, 0.8, 0.4], [0.7, 0.3, 0.95]], "float32")
LOGITS = np.array([[-2.0, 1.5, 0.3], [0.8, -0.4, 3.0]], "float32")
ONE_HOT = np.array([[0., 1., 0.], [0., 0., 1.]], "float32")
PROBS = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]], "float32")


def close(actual, expected, tol=2e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-5, atol=tol)


# (class, kwargs, y_true, y_pred, per-sample, sum_over_batch_size, sum with SW,
#  mean_with_sample_weight with SW) -- measured with Keras 3.15.1.
KERAS_TABLE = [
    ("MeanSquaredError", {}, REG_T, REG_P, [0.5, 1.75], 1.125, 3.625, 1.611111),
    ("MeanAbsoluteError", {}, REG_T, REG_P, [0.666667, 1.166667], 0.916667, 2.5, 1.111111),
    ("MeanAbsolutePercentageError", {}, REG_T, REG_P, [38.888885, 22.777779], 30.833332,
     55.277779, 24.567902),
    ("MeanSquaredLogarithmicError", {}, REG_T, REG_P, [0.076023, 0.039786], 0.057904,
     0.098578, 0.043813),
    ("Huber", {"delta": 1.0}, REG_T, REG_P, [0.25, 0.708333], 0.479167, 1.479167, 0.657407),
    ("LogCosh", {}, REG_T, REG_P, [0.22467, 0.626299], 0.425485, 1.308766, 0.581674),
    ("CosineSimilarity", {}, REG_T, REG_P, [-0.950382, -0.981336], -0.965859, -2.200267,
     -0.977897),
    ("BinaryCrossentropy", {}, BIN_T, BIN_P, [0.414932, 1.236361], 0.825646, 2.576454, 1.145091),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.2}, BIN_T, LOGITS,
     [0.420899, 1.250901], 0.8359, 2.607027, 1.158679),
    ("BinaryFocalCrossentropy", {"apply_class_balancing": True, "gamma": 2.0}, BIN_T, BIN_P,
     [0.028496, 0.686612], 0.357554, 1.380349, 0.613488),
    ("CategoricalCrossentropy", {"label_smoothing": 0.1}, ONE_HOT, PROBS, [0.685001, 2.23327],
     1.459136, 4.637791, 2.06124),
    ("CategoricalCrossentropy", {"from_logits": True}, ONE_HOT, LOGITS, [0.286225, 0.134685],
     0.210455, 0.340926, 0.151523),
    ("CategoricalFocalCrossentropy", {"alpha": [0.2, 0.3, 0.5], "gamma": 1.5}, ONE_HOT, PROBS,
     [0.000172, 0.982991], 0.491581, 1.966025, 0.873789),
    ("KLDivergence", {}, ONE_HOT, PROBS, [0.051292, 2.302582], 1.176937, 4.617988, 2.052439),
    ("Poisson", {}, REG_T, REG_P, [0.612082, -2.964947], -1.176432, -5.776873, -2.567499),
    ("Hinge", {}, BIN_T, LOGITS, [0.233333, 1.6], 0.916667, 3.258333, 1.448148),
    ("SquaredHinge", {}, BIN_T, LOGITS, [0.163333, 5.466667], 2.815, 10.974167, 4.877408),
]


@pytest.mark.parametrize("name,kwargs,y_true,y_pred,per_sample,mean,weighted_sum,weighted_mean",
                         KERAS_TABLE, ids=[f"{row[0]}-{i}" for i, row in enumerate(KERAS_TABLE)])
def test_matches_keras_under_every_reduction(name, kwargs, y_true, y_pred, per_sample, mean,
                                              weighted_sum, weighted_mean):
    cls = getattr(keras.losses, name)
    close(cls(reduction=None, **kwargs)(y_true, y_pred), per_sample, 3e-6)
    close(cls(reduction="none", **kwargs)(y_true, y_pred), per_sample, 3e-6)
    close(cls(**kwargs)(y_true, y_pred), mean, 3e-6)
    close(cls(reduction="mean", **kwargs)(y_true, y_pred), mean, 3e-6)
    close(cls(reduction="sum", **kwargs)(y_true, y_pred, sample_weight=SW), weighted_sum, 5e-6)
    close(cls(reduction="mean_with_sample_weight", **kwargs)(y_true, y_pred, sample_weight=SW),
          weighted_mean, 3e-6)


def test_binary_crossentropy_docstring_examples():
    y_true = np.array([[0, 1], [0, 0]])
    y_pred = np.array([[-18.6, 0.51], [2.94, -12.8]])
    bce = keras.losses.BinaryCrossentropy(from_logits=True)
    close(bce(np.array([0, 1, 0, 0]), np.array([-18.6, 0.51, 2.94, -12.8])), 0.8654, 1e-4)
    close(bce(y_true, y_pred), 0.8654, 1e-4)
    close(bce(y_true, y_pred, sample_weight=[0.8, 0.2]), 0.243, 1e-3)
    close(keras.losses.BinaryCrossentropy(from_logits=True, reduction="sum")(y_true, y_pred),
          1.730, 1e-3)
    close(keras.losses.BinaryCrossentropy(from_logits=True, reduction=None)(y_true, y_pred),
          [0.235, 1.496], 1e-3)
    close(keras.losses.binary_crossentropy(Y_T, Y_P), [0.916, 0.714], 1e-3)


def test_binary_crossentropy_from_huge_logits_is_finite_and_exact():
    value = keras.losses.binary_crossentropy([[1.0, 0.0]], [[-1e4, 1e4]], from_logits=True)
    close(value, [1e4], 1e-2)


def test_binary_focal_crossentropy_docstring_examples():
    y_true, y_pred = np.array([0, 1, 0, 0]), np.array([-18.6, 0.51, 2.94, -12.8])
    loss = keras.losses.BinaryFocalCrossentropy
    close(loss(gamma=2, from_logits=True)(y_true, y_pred), 0.691, 1e-3)
    close(loss(apply_class_balancing=True, gamma=2, from_logits=True)(y_true, y_pred), 0.51, 1e-2)
    y_true, y_pred = np.array([[0, 1], [0, 0]]), np.array([[-18.6, 0.51], [2.94, -12.8]])
    close(loss(gamma=3, from_logits=True)(y_true, y_pred), 0.647, 1e-3)
    close(loss(apply_class_balancing=True, gamma=3, from_logits=True)(y_true, y_pred), 0.482, 1e-3)
    close(loss(gamma=3, from_logits=True)(y_true, y_pred, sample_weight=[0.8, 0.2]), 0.133, 1e-3)
    close(loss(gamma=4, from_logits=True, reduction="sum")(y_true, y_pred), 1.222, 1e-3)
    close(loss(gamma=5, from_logits=True, reduction=None)(y_true, y_pred), [0.0017, 1.1561], 1e-4)
    close(keras.losses.binary_focal_crossentropy(Y_T, Y_P, gamma=2), [0.330, 0.206], 1e-3)


def test_categorical_crossentropy_docstring_examples():
    y_true, y_pred = [[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
    cce = keras.losses.CategoricalCrossentropy()
    close(cce(y_true, y_pred), 1.177, 1e-3)
    close(cce(y_true, y_pred, sample_weight=np.array([0.3, 0.7])), 0.814, 1e-3)
    close(keras.losses.CategoricalCrossentropy(reduction="sum")(y_true, y_pred), 2.354, 1e-3)
    close(keras.losses.categorical_crossentropy(y_true, y_pred), [0.0513, 2.303], 1e-3)
    # hand computation: -log(0.95) and -log(0.1)
    close(keras.losses.categorical_crossentropy(y_true, y_pred), [-math.log(0.95), -math.log(0.1)])


def test_categorical_focal_crossentropy_docstring_examples():
    y_true, y_pred = [[0., 1., 0.], [0., 0., 1.]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
    cce = keras.losses.CategoricalFocalCrossentropy()
    close(cce(y_true, y_pred), 0.23315276, 1e-6)
    close(cce(y_true, y_pred, sample_weight=np.array([0.3, 0.7])), 0.1632, 1e-4)
    close(keras.losses.CategoricalFocalCrossentropy(reduction="sum")(y_true, y_pred), 0.46631, 1e-5)
    close(keras.losses.CategoricalFocalCrossentropy(reduction=None)(y_true, y_pred),
          [3.2058331e-05, 4.6627346e-01], 1e-6)
    close(keras.losses.categorical_focal_crossentropy([[0, 1, 0], [0, 0, 1]],
                                                      [[0.05, 0.9, 0.05], [0.1, 0.85, 0.05]]),
          [2.63401289e-04, 6.75912094e-01], 1e-6)


def test_sparse_categorical_crossentropy_docstring_examples():
    y_pred = [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
    scce = keras.losses.SparseCategoricalCrossentropy()
    close(scce([1, 2], y_pred), 1.177, 1e-3)
    close(scce([1, 2], y_pred, sample_weight=np.array([0.3, 0.7])), 0.814, 1e-3)
    close(keras.losses.SparseCategoricalCrossentropy(reduction=None)([[1], [2]], y_pred),
          [0.0513, 2.303], 1e-3)
    close(keras.losses.sparse_categorical_crossentropy([1, 2], y_pred), [0.0513, 2.303], 1e-3)


def test_sparse_categorical_crossentropy_ignore_class_masks_the_mean():
    logits = np.log(np.array([[[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]],
                              [[0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]], "float32"))
    labels = np.array([[1, -1], [2, 0]])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    expected = [-math.log(0.5), -math.log(0.8), -math.log(0.3)]
    close(loss(labels, logits), sum(expected) / 3)   # divided by the 3 valid entries
    per_entry = keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, ignore_class=-1, reduction=None)(labels, logits)
    close(per_entry, [[expected[0], 0.0], [expected[1], expected[2]]])
    close(keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1,
                                                     reduction="sum")(labels, logits),
          sum(expected))


def test_sparse_categorical_crossentropy_rejects_labels_out_of_range():
    with pytest.raises(ValueError, match=r"labels must be in \[0, 3\)"):
        keras.losses.SparseCategoricalCrossentropy()([1, 3], [[0.2, 0.3, 0.5]] * 2)


def test_regression_function_examples():
    close(keras.losses.huber(Y_T, Y_P), [0.18, 0.13])
    close(keras.losses.Huber()(Y_T, Y_P), 0.155)
    close(keras.losses.log_cosh([[0., 1.], [0., 0.]], [[1., 1.], [0., 0.]]),
          [math.log(math.cosh(1.0)) / 2, 0.0])
    close(keras.losses.LogCosh()([[0., 1.], [0., 0.]], [[1., 1.], [0., 0.]]), 0.108, 1e-3)
    close(keras.losses.cosine_similarity([[0., 1.], [1., 1.], [1., 1.]],
                                         [[1., 0.], [1., 1.], [-1., -1.]]), [0.0, -1.0, 1.0])
    close(keras.losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]]), [0.5])
    close(keras.losses.mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 4.0]]), [25.0])
    # y_true == 0 is floored at epsilon: |0 - 1| / 1e-7 * 100 / 2
    close(keras.losses.mean_absolute_percentage_error([[0.0, 1.0]], [[1.0, 1.0]]), [5e8], 1.0)
    expected_msle = (math.log(2.0) - math.log(1.0 + 1e-7)) ** 2 / 2
    close(keras.losses.mean_squared_logarithmic_error([[0.0, 1.0]], [[1.0, 1.0]]), [expected_msle])


def test_huber_switches_from_quadratic_to_linear_at_delta():
    values = keras.losses.Huber(delta=2.0, reduction=None)([[0.0], [0.0]], [[1.0], [5.0]])
    close(values, [0.5, 2.0 * 5.0 - 0.5 * 4.0])


def test_probabilistic_function_examples():
    close(keras.losses.kl_divergence(Y_T, Y_P), [-math.log(0.4), 0.0], 1e-5)
    close(keras.losses.KLDivergence()(Y_T, Y_P), 0.458, 1e-3)
    close(keras.losses.poisson([[0, 1], [0, 0]], [[1, 1], [0, 0]]), [1.0, 0.0], 1e-6)
    close(keras.losses.Poisson()([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.5, 1e-6)


def test_hinge_family_examples():
    # y_true 0/1 -> -1/1: rows give mean(max(1 - t * p, 0)) = (1.6 + 0.6) / 2, (1.4 + 1.6) / 2
    close(keras.losses.hinge(Y_T, Y_P), [1.1, 1.5])
    close(keras.losses.Hinge()(Y_T, Y_P), 1.3)
    close(keras.losses.squared_hinge(Y_T, Y_P), [(1.6 ** 2 + 0.6 ** 2) / 2, (1.4 ** 2 + 1.6 ** 2) / 2])
    close(keras.losses.SquaredHinge()(Y_T, Y_P), 1.86)
    close(keras.losses.categorical_hinge(Y_T, Y_P), [1.2, 1.6])
    close(keras.losses.CategoricalHinge()(Y_T, Y_P), 1.4)
    # labels that are not all 0/1 are used as they are
    close(keras.losses.hinge([[-1.0, 1.0, 0.5]], [[0.3, -0.2, 0.9]]), [(1.3 + 1.2 + 0.55) / 3])


def test_dice_and_tversky():
    y_true = [[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]]
    y_pred = [[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]]
    close(keras.losses.dice(y_true, y_pred, axis=(1, 2, 3)), [0.5, 0.75757575])
    close(keras.losses.dice(y_true, y_pred), 0.6164384)
    close(keras.losses.Dice(axis=(1, 2, 3), reduction=None)(np.array(y_true), np.array(y_pred)),
          [0.5, 0.75757575])
    close(keras.losses.Dice()(BIN_T, BIN_P), 0.392)
    close(keras.losses.Tversky(alpha=0.3, beta=0.7)(BIN_T, BIN_P), 0.401575)
    close(keras.losses.tversky(y_true, y_pred), keras.losses.dice(y_true, y_pred))


def test_rank_one_targets_are_matched_to_column_predictions():
    y_true = np.array([0.0, 1.0, 1.0])
    y_pred = np.array([[0.2], [0.7], [0.9]])
    expected = -(math.log(0.8) + math.log(0.7) + math.log(0.9)) / 3
    close(keras.losses.BinaryCrossentropy()(y_true, y_pred), expected)
    close(keras.losses.BinaryCrossentropy()(y_true[:, None], y_pred[:, 0]), expected)
    close(keras.losses.MeanSquaredError()(y_true, y_pred), (0.04 + 0.09 + 0.01) / 3)


def test_categorical_generalized_cross_entropy():
    # (1 - p ** q) / q with p the probability of the true class
    values = keras.losses.categorical_generalized_cross_entropy(
        [0, 1], [[0.7, 0.3], [0.2, 0.8]], q=0.5)
    close(values, [(1 - 0.7 ** 0.5) / 0.5, (1 - 0.8 ** 0.5) / 0.5])
    loss = keras.losses.CategoricalGeneralizedCrossEntropy(q=0.5, reduction="sum")
    close(loss([0, 1], [[0.7, 0.3], [0.2, 0.8]], sample_weight=[2.0, 0.0]),
          2 * (1 - 0.7 ** 0.5) / 0.5)
    with pytest.raises(ValueError, match="q must be in the interval"):
        keras.losses.CategoricalGeneralizedCrossEntropy(q=1.0)


def test_integer_inputs_cast_constants_to_y_pred_dtype_as_keras():
    # Keras 3.15.1 with int y_pred: epsilon, delta and 1/2 are cast to int32, so
    # MAPE([[0, 1], [0, 0]], [[1, 1], [0, 0]]) is float64 [inf, nan] (MeanAbsolutePercentageError
    # docstring: nan) and huber truncates 1/2 to 0.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mape = keras.losses.mean_absolute_percentage_error([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        assert mape.dtype == "float64"
        assert np.isposinf(mape.numpy()[0]) and np.isnan(mape.numpy()[1])
        metric = keras.metrics.MeanAbsolutePercentageError()
        metric.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        assert np.isnan(float(metric.result()))
    huber = keras.losses.huber([[0, 1], [0, 0]], [[1, 1], [0, 0]])
    assert huber.dtype == "float32" and huber.numpy().tolist() == [0.0, 0.0]
    assert keras.losses.huber([[0.0, 1.0], [2.0, 0.0]], [[1, 1], [0, 3]]).numpy().tolist() == \
        [0.0, 2.5]
    # float inputs are unchanged: [[0, 1], [2, 0]] vs [[1., 1.], [0., 3.]] -> [0.25, 2.0]
    assert keras.losses.huber([[0, 1], [2, 0]], [[1.0, 1.0], [0.0, 3.0]]).numpy().tolist() == \
        [0.25, 2.0]
