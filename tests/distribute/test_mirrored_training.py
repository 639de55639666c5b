"""MirroredStrategy on two CPU replicas trains exactly like one device.

The reference is a single-device run with the same global batch and the
same starting weights; the distributed run must reach the same weights (to
float tolerance), losses and metrics, because each replica's loss is scaled
by its share of the global batch and the replicas' gradients are summed.
"""
import numpy as np
import pytest

import kerasish as keras
import scenarios

CPU2 = ["cpu:0", "cpu:1"]


def mirrored_model(optimizer):
    strategy = keras.distribute.MirroredStrategy(CPU2)
    with strategy.scope():
        return scenarios.make_model(optimizer), strategy


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_fit_matches_single_device(optimizer):
    reference = scenarios.make_model(optimizer)
    expected = scenarios.fit(reference)
    model, _ = mirrored_model(optimizer)
    history = scenarios.fit(model)
    np.testing.assert_allclose(scenarios.flat_weights(model), scenarios.flat_weights(reference),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(history["loss"], expected["loss"], rtol=1e-5)
    np.testing.assert_allclose(history["mae"], expected["mae"], rtol=1e-5)
    assert not np.allclose(scenarios.flat_weights(model),
                           np.concatenate([w.ravel() for w in scenarios.initial_weights()]))


def test_uneven_global_batch_is_weighted_exactly():
    # 96 samples, global batch 14 (7 + 7) and a last batch of 12; batch 9 splits 5 + 4.
    for batch_size in (14, 9):
        reference = scenarios.make_model("sgd")
        scenarios.fit(reference, batch_size=batch_size, epochs=1)
        model, _ = mirrored_model("sgd")
        scenarios.fit(model, batch_size=batch_size, epochs=1)
        np.testing.assert_allclose(scenarios.flat_weights(model),
                                   scenarios.flat_weights(reference), rtol=1e-5, atol=1e-6)


def test_evaluate_and_predict_match_and_keep_sample_order():
    x, y = scenarios.data()
    reference = scenarios.make_model("sgd", weights=True)
    model, _ = mirrored_model("sgd")
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=10, verbose=0),
                               reference.evaluate(x, y, batch_size=10, verbose=0), rtol=1e-6)
    np.testing.assert_allclose(model.predict(x, batch_size=10, verbose=0),
                               reference.predict(x, batch_size=10, verbose=0), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(model.predict_on_batch(x[:7]), reference.predict_on_batch(x[:7]),
                               rtol=1e-6, atol=1e-6)


def test_dataset_input_and_train_on_batch_match():
    reference = scenarios.make_model("adam")
    scenarios.fit_dataset(reference)
    model, _ = mirrored_model("adam")
    scenarios.fit_dataset(model)
    np.testing.assert_allclose(scenarios.flat_weights(model), scenarios.flat_weights(reference),
                               rtol=1e-5, atol=1e-6)
    x, y = scenarios.data()
    expected = reference.train_on_batch(x[:10], y[:10], return_dict=True)
    logs = model.train_on_batch(x[:10], y[:10], return_dict=True)
    np.testing.assert_allclose(logs["loss"], expected["loss"], rtol=1e-5)
    np.testing.assert_allclose(scenarios.flat_weights(model), scenarios.flat_weights(reference),
                               rtol=1e-5, atol=1e-6)


def test_custom_training_loop_with_strategy_run():
    reference = scenarios.make_model("sgd")
    expected = scenarios.custom_loop(reference)
    model, strategy = mirrored_model("sgd")
    losses = scenarios.custom_loop(model, strategy)
    np.testing.assert_allclose(losses, expected, rtol=1e-5)
    np.testing.assert_allclose(scenarios.flat_weights(model), scenarios.flat_weights(reference),
                               rtol=1e-5, atol=1e-6)


def test_compute_loss_is_scaled_per_replica_in_custom_steps():
    model, strategy = mirrored_model("sgd")
    x, y = scenarios.data()
    batch = next(iter(strategy.experimental_distribute_dataset(
        keras.data.Dataset.from_tensor_slices((x, y)).batch(8))))

    def step_fn(piece):
        px, py = piece
        return model.compute_loss(x=px, y=py, y_pred=model(px))

    per_replica = strategy.run(step_fn, args=(batch,))
    total = float(strategy.reduce("SUM", per_replica, axis=None))
    expected = float(keras.ops.mean(keras.ops.square(model(x[:8]) - y[:8])))
    np.testing.assert_allclose(total, expected, rtol=1e-5)


def test_batch_norm_statistics_are_per_replica_then_averaged():
    x, y = scenarios.data()

    def build():
        model = keras.Sequential([keras.Input((scenarios.FEATURES,)),
                                  keras.layers.BatchNormalization(momentum=0.5),
                                  keras.layers.Dense(scenarios.OUTPUTS)])
        model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
        return model

    reference = build()
    strategy = keras.distribute.MirroredStrategy(CPU2)
    with strategy.scope():
        model = build()
    model.set_weights(reference.get_weights())
    reference.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    bn, ref_bn = model.layers[0], reference.layers[0]
    # Equal halves: the mean of the replicas' batch means is the global batch mean.
    np.testing.assert_allclose(bn.moving_mean.numpy(), ref_bn.moving_mean.numpy(), rtol=1e-5,
                               atol=1e-6)
    # Each replica normalises with its own statistics (not synchronised): variances differ.
    assert not np.allclose(bn.moving_variance.numpy(), ref_bn.moving_variance.numpy())


def test_one_device_strategy_trains_like_the_default():
    reference = scenarios.make_model("adam")
    scenarios.fit(reference)
    strategy = keras.distribute.OneDeviceStrategy("cpu:0")
    with strategy.scope():
        model = scenarios.make_model("adam")
    scenarios.fit(model)
    np.testing.assert_array_equal(scenarios.flat_weights(model), scenarios.flat_weights(reference))


def test_validation_and_metrics_are_global():
    x, y = scenarios.data()
    reference = scenarios.make_model("sgd")
    expected = reference.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0,
                             validation_data=(x[:40], y[:40])).history
    model, _ = mirrored_model("sgd")
    history = model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0,
                        validation_data=(x[:40], y[:40])).history
    for key in ("loss", "mae", "val_loss", "val_mae"):
        np.testing.assert_allclose(history[key], expected[key], rtol=1e-5)
