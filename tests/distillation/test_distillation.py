"""keras.distillation against Keras 3.15.1 (fixtures/distillation/distillation.json, written
by make_distillation.py): the losses, their configs, and Distiller training runs."""
import json
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.distillation import (DistillationLoss, Distiller, FeatureDistillation,
                                   LogitsDistillation)

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "distillation",
                       "distillation.json")) as f:
    FIX = json.load(f)
T, S, TF, SF = (np.array(FIX[k], "float32") for k in ("t_logits", "s_logits", "t_feat",
                                                      "s_feat"))
X, Y = np.array(FIX["x"], "float32"), np.array(FIX["y"], "float32")


@pytest.mark.parametrize("key, loss, teacher, student", [
    ("logits_default", LogitsDistillation(), T, S),
    ("logits_kl_instance", LogitsDistillation(temperature=2.0,
                                              loss=keras.losses.KLDivergence()), T, S),
    ("logits_cce", LogitsDistillation(temperature=4.0, loss="categorical_crossentropy"), T, S),
    ("logits_list", LogitsDistillation(temperature=3.0, loss=["mse", None]),
     [T, TF[:, :5]], [S, SF[:, :5]]),
    ("feature_mse", FeatureDistillation(), TF, SF),
    ("feature_cosine", FeatureDistillation(loss="cosine_similarity"), TF, SF),
    ("feature_list", FeatureDistillation(loss=["mae", "mse"]), [TF, T], [SF, S]),
])
def test_losses_match_keras(key, loss, teacher, student):
    value = float(np.asarray(loss.compute_loss(teacher, student)))
    assert value == pytest.approx(FIX["losses"][key], rel=1e-5)


def test_loss_configs_match_keras_and_round_trip():
    configs = FIX["configs"]
    logits = LogitsDistillation(temperature=2.5)
    assert logits.get_config() == configs["logits"]
    assert LogitsDistillation(loss=keras.losses.KLDivergence()).get_config() == \
        configs["logits_instance"]
    feature = FeatureDistillation(loss="mae", teacher_layer_name="t_hidden",
                                  student_layer_name="s_hidden")
    assert feature.get_config() == configs["feature"]
    for loss in (logits, feature, LogitsDistillation(loss=keras.losses.KLDivergence())):
        clone = type(loss).from_config(loss.get_config())
        assert clone.get_config() == loss.get_config()
        assert float(np.asarray(clone.compute_loss(T[:, :4], S[:, :4]))) == pytest.approx(
            float(np.asarray(loss.compute_loss(T[:, :4], S[:, :4]))))


def _build(prefix, seed):
    inputs = keras.Input((3,), name=f"{prefix}_in")
    hidden = layers.Dense(5, activation="relu", name=f"{prefix}_hidden")(inputs)
    outputs = layers.Dense(4, name=f"{prefix}_out")(hidden)
    model = keras.Model(inputs, outputs, name=prefix)
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(size=w.shape).astype("float32") * 0.5
                       for w in model.get_weights()])
    return model


def _losses(key):
    if key == "logits":
        return LogitsDistillation(temperature=2.0), {}
    return ([LogitsDistillation(temperature=2.0),
             FeatureDistillation(loss="mse", teacher_layer_name="teacher_hidden",
                                 student_layer_name="student_hidden")],
            {"distillation_loss_weights": [1.0, 0.3], "student_loss_weight": 0.3})


@pytest.mark.parametrize("key", ["logits", "features"])
def test_distiller_trains_as_keras(key):
    run = FIX["runs"][key]
    teacher, student = _build("teacher", 1), _build("student", 2)
    teacher_weights = [w.copy() for w in teacher.get_weights()]
    losses, kwargs = _losses(key)
    distiller = Distiller(teacher, student, losses, **kwargs)
    distiller.compile(optimizer=keras.optimizers.SGD(0.1),
                      loss=keras.losses.CategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    before = distiller.compute_loss(x=X, y=Y, y_pred=distiller(X), training=True)
    assert float(np.asarray(before)) == pytest.approx(run["loss_before"], rel=1e-5)
    distiller.reset_metrics()
    history = distiller.fit(X, Y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    for name, values in run["history"].items():
        np.testing.assert_allclose(history[name], values, rtol=1e-5, err_msg=name)
    logs = distiller.evaluate(X, Y, verbose=0, return_dict=True)
    for name, value in run["evaluate"].items():
        assert logs[name] == pytest.approx(value, rel=1e-5), name
    for ours, theirs in zip(student.get_weights(), run["student_weights"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    for ours, before_fit in zip(teacher.get_weights(), teacher_weights):
        np.testing.assert_array_equal(ours, before_fit)   # the teacher is frozen
    assert teacher.trainable is run["teacher_trainable"]
    assert distiller.metrics_names == run["metrics_names"]
    assert len(distiller.trainable_weights) == run["trainable_count"]
    np.testing.assert_allclose(distiller.predict(X, verbose=0), run["predict"], rtol=1e-5,
                               atol=1e-6)


def test_custom_distillation_loss_and_errors():
    class MeanGap(DistillationLoss):
        def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
            return keras.ops.mean(keras.ops.abs(teacher_outputs - student_outputs))

    teacher, student = _build("teacher", 1), _build("student", 2)
    distiller = Distiller(teacher, student, MeanGap(), student_loss_weight=0.0)
    distiller.compile(optimizer="sgd", loss="mse")
    expected = np.abs(np.asarray(teacher(X)) - np.asarray(student(X))).mean()
    assert float(np.asarray(distiller.compute_loss(x=X, y=Y))) == pytest.approx(expected,
                                                                                 rel=1e-5)
    with pytest.raises(ValueError, match="between 0.0 and 1.0"):
        Distiller(teacher, student, MeanGap(), student_loss_weight=1.5)
    with pytest.raises(ValueError, match="Teacher must be a keras.Model"):
        Distiller(layers.Dense(4), student, MeanGap())
    with pytest.raises(ValueError, match="must match number of distillation_losses"):
        Distiller(teacher, student, [MeanGap(), MeanGap()], distillation_loss_weights=[1.0])
    with pytest.raises(ValueError, match="'loss' cannot be `None`"):
        distiller.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="In teacher model"):
        Distiller(teacher, student, FeatureDistillation(teacher_layer_name="nope"))
    with pytest.raises(ValueError, match="temperature must be positive"):
        LogitsDistillation(temperature=0)
    with pytest.raises(ValueError, match="at least one non-`None`"):
        FeatureDistillation(loss=[None])
    wide_in = keras.Input((3,))
    wide = keras.Model(wide_in, layers.Dense(6)(wide_in))
    with pytest.raises(ValueError, match="output shapes are incompatible"):
        Distiller(wide, student, MeanGap())


def test_distiller_config_round_trip():
    teacher, student = _build("teacher", 1), _build("student", 2)
    distiller = Distiller(teacher, student, LogitsDistillation(temperature=2.0),
                          student_loss_weight=0.25)
    config = distiller.get_config()
    assert config["distillation_losses"][0]["module"] == "keras.distillation"   # as Keras
    clone = Distiller.from_config(config)
    assert clone.student_loss_weight == 0.25 and clone.student.name == "student"
    assert clone.distillation_losses[0].temperature == 2.0
