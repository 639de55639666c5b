"""The issue's acceptance run: the keras-io transformer text classifier on the IMDB subset."""
import importlib.util
from pathlib import Path

import pytest


@pytest.mark.slow
def test_transformer_imdb_reaches_keras_accuracy(shared_data):
    path = Path(__file__).resolve().parents[3] / "examples" / "transformer_imdb.py"
    spec = importlib.util.spec_from_file_location("transformer_imdb", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    accuracy = module.main(str(shared_data / "imdb_subset.npz"), epochs=2)
    assert accuracy >= 0.72  # real Keras measured 0.75 and 0.81 on two seeds
