"""IoU-family metrics against results recorded from Keras 3.15.1 (fixtures/metrics/iou.json)."""
import json
import os
import warnings

import numpy as np
import pytest

import kerasish as keras

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "metrics", "iou.json")
CASES = json.load(open(FIXTURE))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['class']}-{i}" for i, c in enumerate(CASES)])
def test_matches_keras(case):
    metric = getattr(keras.metrics, case["class"])(**case["kwargs"])
    weight = case["sample_weight"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # float weights on an int matrix
        metric.update_state(np.array(case["y_true"]), np.array(case["y_pred"]),
                            sample_weight=None if weight is None else np.array(weight))
    np.testing.assert_allclose(np.asarray(metric.total_cm), case["confusion_matrix"], rtol=1e-6)
    np.testing.assert_allclose(float(metric.result()), case["result"], rtol=1e-6)
    config = metric.get_config()
    assert {k: v for k, v in config.items() if k != "name"} == \
        {k: v for k, v in case["config"].items() if k != "name"}
    clone = type(metric).from_config(config)
    assert clone.get_config() == config


def test_int_state_warns_on_float_weights_and_truncates():
    metric = keras.metrics.MeanIoU(num_classes=2)
    assert metric.dtype == "int64" and metric.name.startswith("mean_io_u")
    with pytest.warns(UserWarning, match=r"weight.*float.*int.*casting"):
        metric.update_state([0, 1], [0, 1], sample_weight=np.array([0.5, 1.5]))
    assert np.asarray(metric.total_cm).tolist() == [[0, 0], [0, 1]]


def test_list_weights_do_not_warn_and_update_returns_the_matrix():
    # Keras 3.15.1, IoU docstring: a float list weight is cast silently (no warning),
    # and update_state returns the confusion matrix: [[1, 1], [1, 1]], then [[0, 0], [0, 0]].
    metric = keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    returned = metric.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    assert np.asarray(returned).tolist() == [[1, 1], [1, 1]]
    metric.reset_state()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        returned = metric.update_state([0, 0, 1, 1], [0, 1, 0, 1],
                                       sample_weight=[0.3, 0.3, 0.3, 0.1])
    assert np.asarray(returned).tolist() == [[0, 0], [0, 0]]
    binary = keras.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.5)
    assert np.asarray(binary.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])).tolist() == \
        [[2, 0], [1, 1]]


def test_empty_result_and_reset():
    metric = keras.metrics.IoU(num_classes=2, target_class_ids=[0, 1])
    assert float(metric.result()) == 0.0
    metric.update_state([0, 1], [0, 0])
    metric.reset_state()
    assert np.asarray(metric.total_cm).sum() == 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="Target class id 2 is out of range"):
        keras.metrics.IoU(num_classes=2, target_class_ids=[0, 2])
    with pytest.raises(ValueError, match="IoU: `num_classes` must be a positive integer"):
        keras.metrics.IoU(num_classes=0, target_class_ids=[0])


def test_in_compile_and_fit():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="softmax")])
    model.compile("sgd", "sparse_categorical_crossentropy",
                  metrics=[keras.metrics.MeanIoU(num_classes=2, sparse_y_pred=False)])
    x, y = np.random.rand(8, 3), np.random.randint(0, 2, 8)
    logs = model.fit(x, y, epochs=1, verbose=0).history
    assert 0.0 <= logs["mean_io_u"][0] <= 1.0
