"""Devices: parsing, scopes, placement, and the optional GPU."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.backend import devices

needs_gpu = pytest.mark.skipif(not devices.cupy_available(), reason="needs cupy and a CUDA GPU")


@pytest.mark.parametrize("spec, name", [("cpu:0", "cpu:0"), ("CPU", "cpu:0"), ("/device:CPU:1", "cpu:1"),
                                        ("cpu:1", "cpu:1")])
def test_parse_cpu_names_to_singletons(spec, name):
    dev = devices.get_device(spec)
    assert dev.name == name and dev is devices.get_device(name) and dev.xp is np


def test_gpu_specs_parse_and_fail_clearly_without_cupy():
    if devices.cupy_available():
        assert devices.get_device("GPU:0").name == "gpu:0"
        return
    for spec in ("GPU:0", "gpu", "cuda:0", "/gpu:0"):
        with pytest.raises(RuntimeError, match="'gpu:0' needs cupy and a CUDA GPU"):
            devices.get_device(spec)


@pytest.mark.parametrize("spec", ["tpu:0", "cpu:x", "mps"])
def test_bad_device_names(spec):
    with pytest.raises(ValueError, match="device"):
        devices.get_device(spec)


def test_device_scope_places_new_tensors_and_nests():
    assert devices.scope_device() is None and devices.current_device().name == "cpu:0"
    with keras.device("cpu:1") as dev:
        assert dev.name == "cpu:1" and devices.current_device() is dev
        a = ops.ones((2,))
        b = ops.convert_to_tensor(np.zeros(2))
        with keras.device("cpu:0"):
            c = ops.ones((2,))
        v = keras.Variable([1.0])
    assert (a.device, b.device, c.device, v.device) == ("cpu:1", "cpu:1", "cpu:0", "cpu:1")
    assert devices.scope_device() is None
    with keras.device("cpu:0"):
        moved = ops.convert_to_tensor(a * 1.0)
        both = a + c
    assert moved.device == "cpu:1" and both.device == "cpu:0"


def test_helpers():
    assert devices.list_devices("cpu") == ["cpu:0"]
    assert devices.is_array(np.ones(1)) and not devices.is_array([1])
    assert devices.xp_of(np.ones(1)) is np and devices.device_of_array(np.ones(1)).name == "cpu:0"
    assert keras.backend.backend() == "numpy"
    assert devices.to_host(np.ones(2)).tolist() == [1.0, 1.0]


@pytest.mark.gpu
@needs_gpu
def test_gpu_tensors_round_trip():  # pragma: no cover - needs a GPU
    with keras.device("gpu:0"):
        x = ops.ones((3,)) * 2.0
    assert x.device == "gpu:0" and x.numpy().tolist() == [2.0, 2.0, 2.0]
