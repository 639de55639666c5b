"""keras.distribution maps DataParallel onto MirroredStrategy; the rest says what to use."""
import numpy as np
import pytest

import kerasish as keras

dist = keras.distribution


def _model():
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_data_parallel_trains_like_mirrored_strategy():
    x, y = np.random.default_rng(0).normal(size=(2, 16, 4))[0], np.ones((16, 2))
    strategy = keras.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    with strategy.scope():
        expected = _model()
    expected.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    dist.set_distribution(dist.DataParallel(devices=["cpu:0", "cpu:1"]))
    try:
        model = _model()
        assert model.distribute_strategy.num_replicas_in_sync == 2
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    finally:
        dist.set_distribution(None)
    assert dist.distribution() is None and not keras.distribute.has_strategy()
    for a, b in zip(model.get_weights(), expected.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_mesh_and_devices():
    assert dist.list_devices("cpu") == ["cpu:0"] and dist.get_device_count("cpu") == 1
    mesh = dist.DeviceMesh((2,), ["batch"], ["cpu:0", "cpu:1"])
    assert dist.DataParallel(device_mesh=mesh).devices == ["cpu:0", "cpu:1"]
    with pytest.raises(ValueError, match="does not match the number of devices"):
        dist.DeviceMesh((3,), ["batch"], ["cpu:0"])


def test_what_kerasish_does_not_do_is_named():
    with pytest.raises(NotImplementedError, match="DataParallel or kerasish.distribute"):
        dist.ModelParallel(layout_map=None)
    with pytest.raises(NotImplementedError, match="mpiexec"):
        dist.initialize(num_processes=2)
    with pytest.raises(ValueError, match="supports DataParallel"):
        dist.set_distribution("nope")
    with pytest.raises(NotImplementedError, match="no sharded tensors"):
        dist.distribute_tensor(np.ones(2), dist.TensorLayout(["batch"]))
