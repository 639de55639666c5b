"""Sharded weights (`save_weights(..., max_shard_size=...)`): Keras 3.15.1's files,
names, split and json map (Keras's own map for EfficientNetB0 is compared in
tests/applications/test_sharded_efficientnet.py)."""
import json
import os

import numpy as np
import pytest

import kerasish as keras


def _mlp():
    model = keras.Sequential([keras.Input((100,)), keras.layers.Dense(1000),
                              keras.layers.Dense(10)])
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape).astype("float32") for w in model.weights])
    return model


def test_split_follows_keras_rule(tmp_path):
    """Dense(1000) kernel 400,000 B, bias 4,000 B; Dense(10) kernel 40,000 B, bias 40 B.
    With 0.0004 GB (429,496.7 B) shards: the kernel fills shard 0, its bias still fits,
    the second kernel does not: shard 1 takes the rest."""
    model = _mlp()
    path = tmp_path / "m.weights.json"
    model.save_weights(str(path), max_shard_size=0.0004)
    config = json.loads(path.read_text())
    assert config == {"metadata": {"total_size": 444040.0},
                      "weight_map": {"/layers/dense/vars": ["m_00000.weights.h5"],
                                     "/layers/dense_1/vars": ["m_00001.weights.h5"]}}
    # 401,000 B shards: dense's bias no longer fits beside its kernel, its group spans
    # two shards (overwriting the files above)
    model.save_weights(str(path), max_shard_size=401_000 / 1024 ** 3)
    config = json.loads(path.read_text())
    assert config["weight_map"] == {
        "/layers/dense/vars": ["m_00000.weights.h5", "m_00001.weights.h5"],
        "/layers/dense_1/vars": ["m_00001.weights.h5"]}
    fresh = _mlp()
    fresh.set_weights([np.zeros(w.shape, "float32") for w in fresh.weights])
    fresh.load_weights(str(path))
    for got, want in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(got, want)


def test_errors_and_renaming(tmp_path):
    model = _mlp()
    with pytest.raises(ValueError, match=r"The size of 0 is 390.62 KB which exceeds the "
                                         r"maximum shard size 104.86 KB"):
        model.save_weights(str(tmp_path / "a.weights.json"), max_shard_size=0.0001)
    with pytest.raises(ValueError, match="must end in `.weights.json` when `max_shard_size`"):
        model.save_weights(str(tmp_path / "a.json"), max_shard_size=1)
    with pytest.warns(UserWarning, match="requires `\\*.json` as the extension"):
        model.save_weights(str(tmp_path / "b.weights.h5"), max_shard_size=1)
    assert sorted(os.listdir(tmp_path)) == ["b.weights.json", "b_00000.weights.h5"]
    (tmp_path / "b_00000.weights.h5").unlink()
    with pytest.raises(FileNotFoundError, match="b_00000.weights.h5"):
        model.load_weights(str(tmp_path / "b.weights.json"))
    (tmp_path / "c.weights.json").write_text("{}")
    with pytest.raises(ValueError, match="no 'weight_map'"):
        model.load_weights(str(tmp_path / "c.weights.json"))
    with pytest.raises(FileExistsError):
        model.save_weights(str(tmp_path / "b.weights.json"), overwrite=False,
                           max_shard_size=1)
