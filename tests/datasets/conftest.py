"""Fixtures of the dataset-loader tests: the shared data folder and a private cache."""
from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


@pytest.fixture
def data_dir():
    """The project's shared data folder (`shared/data` beside the repo), or skip."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"shared data folder not found at {DATA_DIR.resolve()}")
    return DATA_DIR


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    """Every test gets an empty download cache, so ~/.keras is never touched."""
    root = tmp_path / "keras_home"
    monkeypatch.setenv("KERASISH_HOME", str(root))
    monkeypatch.delenv("KERAS_HOME", raising=False)
    return root
