"""The issue's acceptance run: the Keras MNIST MLP program on the shared subset."""
import importlib.util
from pathlib import Path

import pytest


@pytest.mark.slow
def test_mnist_mlp_reaches_95_percent(shared_data):
    path = Path(__file__).resolve().parents[2] / "examples" / "mnist_mlp.py"
    spec = importlib.util.spec_from_file_location("mnist_mlp", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    accuracy = module.main(str(shared_data / "mnist_subset.npz"), epochs=3)
    assert accuracy >= 0.95
