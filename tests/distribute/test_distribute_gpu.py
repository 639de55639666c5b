"""GPU paths (cupy, NCCL): run only on a machine with CUDA GPUs."""
import numpy as np
import pytest

import kerasish as keras
import scenarios
from kerasish.backend import devices

GPUS = devices.list_devices("gpu")
pytestmark = pytest.mark.gpu


@pytest.mark.skipif(len(GPUS) < 2, reason="needs cupy and at least 2 CUDA GPUs "
                                          f"(found {len(GPUS)})")
@pytest.mark.parametrize("ops", [None, "one_device"])
def test_two_gpu_mirrored_fit_matches_single_device(ops):
    cross = keras.distribute.ReductionToOneDevice() if ops else None
    strategy = keras.distribute.MirroredStrategy(GPUS[:2], cross_device_ops=cross)
    with strategy.scope():
        model = scenarios.make_model("adam")
    scenarios.fit(model)
    with keras.device(GPUS[0]):
        reference = scenarios.make_model("adam")
        scenarios.fit(reference)
    np.testing.assert_allclose(scenarios.flat_weights(model), scenarios.flat_weights(reference),
                               rtol=1e-4, atol=1e-5)
    kernel = model.layers[0].kernel
    np.testing.assert_allclose(devices.to_host(kernel._replicas[1]), kernel.numpy(), rtol=1e-6)


@pytest.mark.skipif(len(GPUS) < 1, reason="needs cupy and a CUDA GPU")
def test_one_gpu_strategy_places_variables_on_the_gpu():
    strategy = keras.distribute.OneDeviceStrategy(GPUS[0])
    with strategy.scope():
        model = scenarios.make_model("sgd")
    assert model.layers[0].kernel.device == GPUS[0]
    scenarios.fit(model, epochs=1)
