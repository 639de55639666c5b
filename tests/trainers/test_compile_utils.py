"""Compiled losses/metrics: Keras 3's `compile_metrics` container, names and orders.

Every expected value below was printed by Keras 3.15.1 (TensorFlow backend) on the
same models with the same weights.
"""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


def _fixed(model):
    for i, w in enumerate(model.weights):
        w.assign(np.random.RandomState(i).uniform(-0.1, 0.1, tuple(w.shape)).astype("float32"))
    return model


def _two_output_model():
    inputs = keras.Input((5,), name="inp")
    h = layers.Dense(8, activation="relu")(inputs)
    reg = layers.Dense(1, name="reg")(h)
    cls = layers.Dense(3, activation="softmax", name="cls")(h)
    return _fixed(keras.Model(inputs, [reg, cls]))


def _data():
    rs = np.random.RandomState(0)
    x = rs.rand(64, 5).astype("float32")
    y1 = rs.rand(64, 1).astype("float32")
    y2 = keras.utils.to_categorical(rs.randint(3, size=64), 3)
    return x, y1, y2


def test_metrics_names_and_evaluate_order_follow_keras():
    x, y1, y2 = _data()
    model = _two_output_model()
    model.compile("sgd", loss=["mse", "categorical_crossentropy"],
                  metrics={"cls": "accuracy", "reg": ["mae", "mse"]})
    assert model.metrics_names == ["loss", "compile_metrics"]   # per-output trackers come later
    results = model.evaluate(x, [y1, y2], verbose=0)
    assert model.metrics_names == ["loss", "compile_metrics", "reg_loss", "cls_loss"]
    # Keras: loss, then the names it can match (reg_loss, cls_loss), then the rest sorted.
    np.testing.assert_allclose(results, [1.4159, 0.3178, 1.0982, 0.3594, 0.4976, 0.3178],
                               atol=1e-4)
    logs = model.evaluate(x, [y1, y2], verbose=0, return_dict=True)
    assert sorted(logs) == ["cls_accuracy", "cls_loss", "loss", "reg_loss", "reg_mae", "reg_mse"]
    compile_metrics = model.metrics[1]
    assert compile_metrics.name == "compile_metrics"
    assert [m.name for m in compile_metrics.metrics] == ["mae", "mse", "accuracy"]


def test_a_metrics_list_is_one_entry_per_output():
    x, y1, y2 = _data()
    model = _two_output_model()
    model.compile("sgd", loss=["mse", "categorical_crossentropy"], metrics=["mae", "mse"])
    assert sorted(model.evaluate(x, [y1, y2], verbose=0, return_dict=True)) == [
        "cls_loss", "cls_mse", "loss", "reg_loss", "reg_mae"]
    model.compile("sgd", loss=["mse", "categorical_crossentropy"], metrics=["mae"])
    with pytest.raises(ValueError, match="Invalid `metrics`"):
        model.evaluate(x, [y1, y2], verbose=0)


def test_single_output_names_duplicates_and_weighted():
    x, _, y2 = _data()
    y = y2.argmax(-1)
    inputs = keras.Input((5,))
    model = keras.Model(inputs, layers.Dense(3, activation="softmax")(inputs))
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["acc"],
                  weighted_metrics=["acc"])
    assert sorted(model.evaluate(x, y, verbose=0, return_dict=True)) == [
        "acc", "loss", "weighted_acc"]
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy", "accuracy"])
    assert sorted(model.evaluate(x, y, verbose=0, return_dict=True)) == [
        "accuracy", "accuracy_1", "loss"]
    # Compiling again without metrics keeps the previous ones, as in Keras.
    model.compile("adam", "sparse_categorical_crossentropy")
    assert model.metrics_names == ["loss", "compile_metrics"]
    # Keras lists values by the sub-metrics' own names, then the unmatched keys:
    # loss, accuracy, accuracy, accuracy_1.
    assert len(model.evaluate(x, y, verbose=0)) == 4


def test_unbuilt_compile_metrics_result_raises_like_keras():
    model = keras.Sequential([keras.Input((5,)), layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    with pytest.raises(ValueError, match="has not yet been built"):
        model.metrics[1].result()


def test_loss_dict_must_name_every_list_output():
    x, y1, y2 = _data()
    model = _two_output_model()
    model.compile("sgd", loss={"cls": "categorical_crossentropy"})
    with pytest.raises(ValueError, match=r"Expected keys \['reg', 'cls'\] in loss dict"):
        model.fit(x, [y1, y2], verbose=0)


def test_custom_train_step_iterating_self_metrics():
    class CustomModel(keras.Model):
        def train_step(self, data):
            x, y = data
            with keras.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            self.optimizer.apply(tape.gradient(loss, self.trainable_variables),
                                 self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    model = _fixed(CustomModel(inputs, layers.Dense(1)(inputs)))
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    rs = np.random.RandomState(0)
    x, y = rs.random_sample((256, 32)), rs.random_sample((256, 1))
    history = model.fit(x, y, epochs=3, verbose=0, shuffle=False)
    # The nested {"compile_metrics": {"mae": ...}} logs are flattened, as Keras's pythonify_logs.
    assert sorted(history.history) == ["loss", "mae"]
    np.testing.assert_allclose(history.history["loss"], [0.1281, 0.0947, 0.0890], atol=2e-4)
    np.testing.assert_allclose(history.history["mae"], [0.2975, 0.2598, 0.2531], atol=2e-4)


def test_metric_attributes_are_tracked_and_reset_each_epoch():
    class Tracked(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = keras.metrics.Mean(name="my_loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")

        def train_step(self, data):
            x, y = data
            with keras.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = keras.losses.MeanSquaredError()(y, y_pred)
            self.optimizer.apply(tape.gradient(loss, self.trainable_variables),
                                 self.trainable_variables)
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"my_loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    inputs = keras.Input(shape=(32,))
    model = Tracked(inputs, layers.Dense(1)(inputs))
    assert model.metrics_names == ["my_loss", "mae"]      # before compile: only tracked ones
    model.compile(optimizer="adam")
    assert model.metrics_names == ["loss", "my_loss", "mae"]
    _fixed(model)
    rs = np.random.RandomState(0)
    x, y = rs.random_sample((256, 32)), rs.random_sample((256, 1))
    history = model.fit(x, y, epochs=3, verbose=0, shuffle=False)
    # Per-epoch means (the trackers are reset at each epoch start), as in Keras.
    np.testing.assert_allclose(history.history["my_loss"], [0.1281, 0.0947, 0.0890], atol=2e-4)
    np.testing.assert_allclose(history.history["mae"], [0.2975, 0.2598, 0.2531], atol=2e-4)


def test_targets_for_only_the_outputs_with_a_loss():
    inputs = keras.Input((2,))
    x = keras.layers.Dense(3, kernel_initializer="ones")(inputs)
    partial = keras.Model(inputs, [x, x, x])
    partial.compile(loss=["mse", None, None])
    full = keras.Model(inputs, [x, x, x])
    full.compile(loss=["mse", "mse", "mse"])
    x_data, y_data = np.ones((8, 2)), np.full((8, 3), 0.5)
    partial_loss = partial.evaluate(x_data, y_data, verbose=0, return_dict=True)["loss"]
    full_loss = full.evaluate(x_data, [y_data] * 3, verbose=0, return_dict=True)["loss"]
    np.testing.assert_allclose(partial_loss, 2.25)           # (2 - 0.5) ** 2, one output
    np.testing.assert_allclose(3 * partial_loss, full_loss)


def test_per_output_losses_count_each_batch_once_as_keras():
    # Keras 3.15.1 (TF) printed these with batches of 24, 24 and 16: its per-output
    # trackers weigh every batch equally (the total `loss` weighs by batch size),
    # so reg_loss + cls_loss != loss here.
    x, y1, y2 = _data()
    model = _two_output_model()
    model.compile(keras.optimizers.SGD(0.1), loss=["mse", "categorical_crossentropy"])
    history = model.fit(x, [y1, y2], batch_size=24, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [1.3424, 1.2079], atol=1e-4)
    np.testing.assert_allclose(history.history["reg_loss"], [0.2451, 0.1119], atol=1e-4)
    np.testing.assert_allclose(history.history["cls_loss"], [1.0968, 1.0962], atol=1e-4)
    logs = model.evaluate(x, [y1, y2], batch_size=24, verbose=0, return_dict=True)
    np.testing.assert_allclose([logs["loss"], logs["reg_loss"], logs["cls_loss"]],
                               [1.1786, 0.0841, 1.0932], atol=1e-4)


@pytest.mark.parametrize("loss, order", [
    ({"r": "mse", "c": "categorical_crossentropy"}, ["r_loss", "c_loss"]),
    ({"c": "categorical_crossentropy", "r": "mse"}, ["c_loss", "r_loss"])])
def test_dict_outputs_list_their_losses_in_the_loss_dict_order(loss, order):
    # Keras 3.15.1: [1.4759, 0.3775 (r), 1.0983 (c), 0.3594] for the first order.
    x, y1, y2 = _data()
    inputs = keras.Input((5,), name="inp")
    h = layers.Dense(8, activation="relu")(inputs)
    model = _fixed(keras.Model(inputs, {"r": layers.Dense(1, name="reg")(h),
                                        "c": layers.Dense(3, activation="softmax", name="cls")(h)}))
    model.compile("sgd", loss=loss, metrics={"c": "accuracy"})
    results = model.evaluate(x, {"r": y1, "c": y2}, verbose=0)
    assert model.metrics_names == ["loss", "compile_metrics"] + order
    by_name = {"r_loss": 0.3775, "c_loss": 1.0983}
    np.testing.assert_allclose(results, [1.4759] + [by_name[n] for n in order] + [0.3594],
                               atol=1e-4)


def test_unknown_loss_name_fails_in_fit_not_compile():
    # Keras 3.15.1 (TensorFlow; /tmp/probe4/err3.py and probes2 err2.py):
    # compile(loss="msee") returns, fit/evaluate raise "Could not interpret
    # loss identifier: msee" (CompileLoss resolves its losses when built).
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    model.compile(optimizer="adam", loss="msee")
    for run in (lambda: model.fit(np.ones((2, 3)), np.ones((2, 1)), verbose=0),
                lambda: model.evaluate(np.ones((2, 3)), np.ones((2, 1)), verbose=0)):
        with pytest.raises(ValueError, match="^Could not interpret loss identifier: msee$"):
            run()
    model.compile(optimizer="adam", loss=["mse"])
    assert model.fit(np.ones((2, 3)), np.ones((2, 1)), verbose=0).history["loss"]


@pytest.mark.parametrize("name", ["ce", "crossentropy"])
def test_crossentropy_shortcut_is_a_loss_only(name):
    # Keras 3.15.1 picks a cross-entropy for loss="ce" but rejects the string as a
    # metric: "Could not interpret metric identifier: ce".
    x, _, y2 = _data()
    inputs = keras.Input((5,))
    model = keras.Model(inputs, layers.Dense(3, activation="softmax")(inputs))
    model.compile("sgd", loss=name)
    assert model.evaluate(x, y2, verbose=0) > 0
    model.compile("sgd", loss="categorical_crossentropy", metrics=[name])
    with pytest.raises(ValueError, match=f"Could not interpret metric identifier: {name}"):
        model.evaluate(x, y2, verbose=0)


def test_loss_weights_must_match_the_losses_as_keras():
    # Keras 3.15.1 raises this on the first batch of fit.
    x, y1, _ = _data()
    inputs = keras.Input((5,))
    model = keras.Model(inputs, layers.Dense(2)(inputs))
    model.compile("sgd", loss="mse", loss_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"^`loss_weights` must match the number of losses, got "
                                         r"1 losses and 2 weights\.$"):
        model.fit(x, y1, verbose=0)
    model.compile("sgd", loss="mse", loss_weights=[2.0])   # one weight for one loss is fine
    model.fit(x, y1, verbose=0)
