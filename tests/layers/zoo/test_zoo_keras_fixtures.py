"""The rest of the layer zoo against real Keras 3.15.1 (fixtures from
tests/fixtures/zoo/make_zoo_fixtures.py): weight names/shapes, outputs,
weights after the call, activity losses and gradients."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "zoo"
CASES = {c["name"]: c for c in json.loads((HERE / "zoo_cases.json").read_text())["cases"]}
ARRAYS = np.load(HERE / "zoo_fixtures.npz")


def _short(path):
    """The path below the layer, without auto-name counters (Keras ran all cases in one session)."""
    return re.sub(r"_\d+(?=/|$)", "", path.split("/", 1)[1])


def _layer(case):
    if case["wrapped"]:
        inner_cls, inner_cfg = case["wrapped"]
        return getattr(layers, case["class"])(getattr(layers, inner_cls)(**inner_cfg),
                                              **case["config"])
    return getattr(layers, case["class"])(**case["config"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_keras(name):
    case = CASES[name]
    layer = _layer(case)
    x = keras.ops.convert_to_tensor(ARRAYS[f"{name}/x"])
    kwargs = dict(case["call_kwargs"])
    if case["has_mask"]:
        kwargs["mask"] = ARRAYS[f"{name}/mask"]
    layer(x, **{k: v for k, v in kwargs.items() if k != "training"})
    assert [(_short(w.path), list(w.shape)) for w in layer.weights] == \
        [(_short(w["path"]), w["shape"]) for w in case["weights"]]
    layer.set_weights([ARRAYS[f"{name}/w/{i}"] for i in range(len(case["weights"]))])
    with keras.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = layer(x, **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        loss = sum(keras.ops.sum(o * ARRAYS[f"{name}/r/{i}"]) for i, o in enumerate(outs))
    assert len(outs) == case["n_out"]
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.numpy(), ARRAYS[f"{name}/out/{i}"], rtol=1e-4, atol=1e-5,
                                   err_msg=f"output {i}")
    for i, w in enumerate(layer.weights):
        np.testing.assert_allclose(w.numpy(), ARRAYS[f"{name}/after/{i}"], rtol=1e-5, atol=1e-6,
                                   err_msg=f"{w.path} after the call")
    if f"{name}/loss" in ARRAYS:
        np.testing.assert_allclose(sum(float(v) for v in layer.losses), ARRAYS[f"{name}/loss"],
                                   rtol=1e-5)
    if f"{name}/gx" in ARRAYS:
        np.testing.assert_allclose(tape.gradient(loss, x).numpy(), ARRAYS[f"{name}/gx"],
                                   rtol=1e-4, atol=2e-5, err_msg="d loss / d x")
    grads = tape.gradient(loss, layer.trainable_weights)
    for i, g in enumerate(grads):
        key = f"{name}/gw/{i}"
        if key in ARRAYS:
            np.testing.assert_allclose(keras.ops.convert_to_numpy(g), ARRAYS[key], rtol=1e-4,
                                       atol=2e-5, err_msg=layer.trainable_weights[i].path)
