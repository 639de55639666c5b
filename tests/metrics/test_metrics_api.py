"""The Metric base (device state, reset, __call__), lookup, naming and configs."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.autodiff.tensor import Tensor


def close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-5, atol=tol)


class CountAbove(keras.metrics.Metric):
    def __init__(self, limit, name="count_above", **kwargs):
        super().__init__(name=name, **kwargs)
        self.limit = limit
        self.count = self.add_variable((), "zeros", name="count")

    def update_state(self, values):
        hits = keras.ops.cast(keras.ops.greater(values, self.limit), self.dtype)
        self.count.assign_add(keras.ops.sum(hits))

    def result(self):
        return keras.ops.convert_to_tensor(self.count)


def test_custom_metric_state_reset_and_call():
    m = CountAbove(0.5)
    close(m([0.2, 0.7, 0.9]), 2.0)
    close(m([0.6]), 3.0)
    m.reset_state()
    close(m.result(), 0.0)
    assert [v.path for v in m.variables] == ["count_above/count"]


def test_metric_variables_are_non_trainable_device_variables():
    m = keras.metrics.Mean()
    assert [v.path for v in m.variables] == ["mean/total", "mean/count"]
    assert all(isinstance(v, keras.Variable) and not v.trainable for v in m.variables)
    assert all(v.dtype == "float32" for v in m.variables)
    assert keras.metrics.Mean(dtype="float64").result().dtype == "float64"
    auc = keras.metrics.AUC()
    assert [v.shape for v in auc.variables] == [(200,)] * 4


def test_inner_metrics_contribute_their_variables():
    class Pair(keras.metrics.Metric):
        def __init__(self):
            super().__init__(name="pair")
            self.first = keras.metrics.Mean(name="first")
            self.second = keras.metrics.Sum(name="second")

        def update_state(self, values):
            self.first.update_state(values)
            self.second.update_state(values)

        def result(self):
            return {"mean": self.first.result(), "sum": self.second.result()}

    m = Pair()
    assert [v.path for v in m.variables] == ["first/total", "first/count", "second/total"]
    m.update_state([1.0, 3.0])
    m.reset_state()
    close(m.result()["sum"], 0.0)


def test_forgetting_super_init_is_reported():
    class Broken(keras.metrics.Metric):
        def __init__(self):
            self.total = self.add_variable((), "zeros")

    with pytest.raises(RuntimeError, match="super"):
        Broken()


def test_update_and_result_never_read_values_back_to_the_host(monkeypatch):
    metrics = [keras.metrics.Mean(), keras.metrics.AUC(), keras.metrics.AUC(curve="PR"),
               keras.metrics.Precision(top_k=2), keras.metrics.Recall(thresholds=[0.2, 0.7]),
               keras.metrics.BinaryAccuracy(), keras.metrics.F1Score(average="macro"),
               keras.metrics.Hinge(), keras.metrics.RootMeanSquaredError(),
               keras.metrics.SparseTopKCategoricalAccuracy(k=2), keras.metrics.R2Score(),
               keras.metrics.SensitivityAtSpecificity(0.5), keras.metrics.AUC(multi_label=True)]
    y_true = keras.ops.convert_to_tensor(np.array([[1, 0, 1], [0, 1, 0]], "float32"))
    y_pred = keras.ops.convert_to_tensor(np.array([[0.8, 0.3, 0.4], [0.1, 0.6, 0.7]], "float32"))
    labels = keras.ops.convert_to_tensor(np.array([0, 2]))

    def forbidden(*args, **kwargs):
        raise AssertionError("a metric read a device value back to the host")

    for name in ("numpy", "__array__", "__float__", "__int__", "__bool__", "item", "tolist"):
        monkeypatch.setattr(Tensor, name, forbidden)
    results = []
    for m in metrics:
        if isinstance(m, keras.metrics.SparseTopKCategoricalAccuracy):
            m.update_state(labels, y_pred)
        elif isinstance(m, keras.metrics.Mean) and type(m) is keras.metrics.Mean:
            m.update_state(y_pred)
        else:
            m.update_state(y_true, y_pred)
        results.append(m.result())
    monkeypatch.undo()
    assert all(isinstance(r, Tensor) for r in results)


def test_get_resolves_classes_snake_case_and_aliases():
    assert isinstance(keras.metrics.get("AUC"), keras.metrics.AUC)
    assert isinstance(keras.metrics.get("auc"), keras.metrics.AUC)
    assert isinstance(keras.metrics.get("binary_accuracy"), keras.metrics.BinaryAccuracy)
    assert isinstance(keras.metrics.get("root_mean_squared_error"),
                      keras.metrics.RootMeanSquaredError)
    assert isinstance(keras.metrics.get("f1_score"), keras.metrics.F1Score)
    for alias, cls in [("mse", "MeanSquaredError"), ("MAE", "MeanAbsoluteError"),
                       ("mape", "MeanAbsolutePercentageError"),
                       ("MSLE", "MeanSquaredLogarithmicError"), ("bce", "BinaryCrossentropy")]:
        metric = keras.metrics.get(alias)
        assert type(metric).__name__ == cls
    assert keras.metrics.get("mse").name == "mean_squared_error"
    assert keras.metrics.get(None) is None
    fn = keras.metrics.binary_accuracy
    assert keras.metrics.get(fn) is fn
    configured = keras.metrics.get({"class_name": "AUC", "config": {"curve": "PR"}})
    assert configured.curve == "PR"


def test_get_unknown_name_gives_kerass_message():
    with pytest.raises(ValueError, match="^Could not interpret metric identifier: accurracy$"):
        keras.metrics.get("accurracy")


@pytest.mark.parametrize("y_true_shape,y_pred_shape,expected", [
    ((8, 1), (8, 1), "BinaryAccuracy"), ((8,), (8, 1), "BinaryAccuracy"),
    ((8,), (8, 5), "SparseCategoricalAccuracy"), ((8, 1), (8, 5), "SparseCategoricalAccuracy"),
    ((8, 5), (8, 5), "CategoricalAccuracy"),
])
def test_resolve_accuracy_follows_keras_shape_rule(y_true_shape, y_pred_shape, expected):
    assert keras.metrics.resolve_accuracy(y_true_shape, y_pred_shape).__name__ == expected


def test_get_for_compile_names_metrics_like_keras():
    acc = keras.metrics.get_for_compile("accuracy", np.zeros(4), np.zeros((4, 3)))
    assert type(acc).__name__ == "SparseCategoricalAccuracy" and acc.name == "accuracy"
    acc = keras.metrics.get_for_compile("acc", (4, 1), (4, 1))
    assert type(acc).__name__ == "BinaryAccuracy" and acc.name == "acc"
    mse = keras.metrics.get_for_compile("mse")
    assert type(mse).__name__ == "MeanSquaredError" and mse.name == "mse"
    wrapped = keras.metrics.get_for_compile(keras.metrics.binary_accuracy)
    assert isinstance(wrapped, keras.metrics.MeanMetricWrapper)
    assert wrapped.name == "binary_accuracy"
    auc = keras.metrics.AUC(name="my_auc")
    assert keras.metrics.get_for_compile(auc) is auc and auc.name == "my_auc"
    with pytest.raises(ValueError, match="y_true"):
        keras.metrics.get_for_compile("accuracy")


def test_default_names_and_directions():
    assert keras.metrics.Precision().name == "precision"
    assert keras.metrics.Precision().name == "precision_1"
    assert keras.metrics.TruePositives().name == "true_positives"
    assert keras.metrics.AUC().name == "auc"
    assert keras.metrics.LogCoshError().name == "logcosh"
    up = [keras.metrics.Accuracy(), keras.metrics.AUC(), keras.metrics.Precision(),
          keras.metrics.F1Score(), keras.metrics.R2Score(), keras.metrics.CosineSimilarity()]
    down = [keras.metrics.MeanSquaredError(), keras.metrics.RootMeanSquaredError(),
            keras.metrics.BinaryCrossentropy(), keras.metrics.Hinge(), keras.metrics.KLDivergence()]
    assert all(m._direction == "up" for m in up)
    assert all(m._direction == "down" for m in down)
    assert not hasattr(keras.metrics.Mean(), "_direction")


CONFIGURED = [
    keras.metrics.Mean(name="loss"), keras.metrics.BinaryAccuracy(threshold=0.3),
    keras.metrics.SparseTopKCategoricalAccuracy(k=3), keras.metrics.AUC(curve="PR", num_thresholds=50),
    keras.metrics.AUC(thresholds=[0.2, 0.4], multi_label=True),
    keras.metrics.Precision(thresholds=[0.3, 0.6], class_id=1), keras.metrics.Recall(top_k=2),
    keras.metrics.FalseNegatives(thresholds=0.3), keras.metrics.F1Score(average="weighted"),
    keras.metrics.FBetaScore(beta=0.5, threshold=0.4), keras.metrics.R2Score(num_regressors=2),
    keras.metrics.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1),
    keras.metrics.PrecisionAtRecall(0.7, num_thresholds=20, class_id=0),
    keras.metrics.MeanMetricWrapper(keras.losses.huber, name="hub", delta=2.0),
]


@pytest.mark.parametrize("metric", CONFIGURED, ids=lambda m: type(m).__name__)
def test_config_round_trip(metric):
    config = metric.get_config()
    rebuilt = type(metric).from_config(config)
    assert rebuilt.get_config() == config
    serialized = keras.metrics.serialize(metric)
    assert serialized["module"] == "keras.metrics"
    assert keras.metrics.deserialize(serialized).get_config() == config


def test_auc_label_weights_config_is_a_tensor_as_keras():
    # Keras 3.15.1: `AUC(label_weights=[0.2, 0.5, 1.0]).get_config()["label_weights"]` is the
    # tensor `ops.array(label_weights, dtype)`, printed
    # `<tf.Tensor: shape=(3,), dtype=float32, numpy=array([0.2, 0.5, 1. ], dtype=float32)>`,
    # and serialized as a `__tensor__` entry.
    metric = keras.metrics.AUC(multi_label=True, label_weights=[0.2, 0.5, 1.0])
    weights = metric.get_config()["label_weights"]
    assert repr(weights) == ("<tf.Tensor: shape=(3,), dtype=float32, "
                             "numpy=array([0.2, 0.5, 1. ], dtype=float32)>")
    assert keras.metrics.serialize(metric)["config"]["label_weights"] == {
        "class_name": "__tensor__",
        "config": {"value": [0.20000000298023224, 0.5, 1.0], "dtype": "float32"}}
    rebuilt = keras.metrics.AUC.from_config(metric.get_config())
    np.testing.assert_array_equal(rebuilt.label_weights.numpy(), weights.numpy())


def test_keras_config_keys():
    assert keras.metrics.Mean().get_config() == {"name": "mean", "dtype": "float32"}
    assert keras.metrics.AUC().get_config() == {
        "name": "auc", "dtype": "float32", "num_thresholds": 200, "curve": "ROC",
        "summation_method": "interpolation", "multi_label": False, "num_labels": None,
        "label_weights": None, "from_logits": False}
    assert keras.metrics.Precision().get_config() == {
        "name": "precision", "dtype": "float32", "thresholds": None, "top_k": None,
        "class_id": None}


def test_r2_score_result_is_float32_as_keras():
    # Keras 3.15.1 printed float32 () -0.2728-style results; a float64 leaked
    # from the nan-safe division before.
    metric = keras.metrics.R2Score(class_aggregation=None)
    metric.update_state(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
                        np.array([[0.8, 0.3], [0.1, 0.6], [0.5, 0.9]]))
    assert metric.result().dtype == "float32"
    metric.reset_state()
    assert metric.result().dtype == "float32"


def test_metric_and_seed_generator_in_a_layer_build_like_keras():
    # Printed by Keras 3.15.1: a Mean and a SeedGenerator made in a layer's build()
    # get the layer's scope in their variable paths, and the Mean updated in the
    # layer's call does not break the functional (symbolic) call.
    class Tracked(keras.layers.Layer):
        def build(self, shape):
            self.m = keras.metrics.Mean(name="mm")
            self.sg = keras.random.SeedGenerator(3)
            self.w = self.add_weight(shape=(shape[-1],), name="w")

        def call(self, x):
            self.m.update_state(x)
            return x * self.w

    model = keras.Sequential([keras.Input((2,)), Tracked(name="l")], name="sequential")
    layer = model.layers[0]
    assert [v.path for v in layer.m.variables] == ["sequential/l/mm/total",
                                                   "sequential/l/mm/count"]
    assert layer.sg.state.path.startswith("sequential/l/seed_generator")
    assert layer.sg.state.path.endswith("/seed_generator_state")
    assert float(layer.m.count.numpy()) == 0.0   # the symbolic call counted nothing
    model(np.ones((4, 2)))
    assert float(layer.m.count.numpy()) == 4.0
