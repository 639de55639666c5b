"""Attention layers and EinsumDense against real Keras 3.15.1 (fixtures from
tests/fixtures/attention/make_attention_fixtures.py): weight names/shapes,
outputs, attention scores, output masks and gradients wrt inputs and weights."""
import json
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "attention"
CASES = {c["name"]: c for c in json.loads((HERE / "attention_cases.json").read_text())["cases"]}
ARRAYS = np.load(HERE / "attention_fixtures.npz")
LAYER_CASES = [n for n, c in CASES.items() if "class" in c]
CLASSES = {"GroupQueryAttention": layers.GroupQueryAttention}


def _layer(case):
    cls = CLASSES.get(case["class"]) or getattr(layers, case["class"])
    return cls(**case["config"])


def _tensor(array):
    return keras.ops.convert_to_tensor(array)


def _inputs(name, case):
    tensors = {k: _tensor(ARRAYS[f"{name}/in/{k}"]) for k in case["inputs"]}
    for k in case["keras_masks"]:
        tensors[k]._keras_mask = _tensor(ARRAYS[f"{name}/kmask/{k}"])
    return tensors


def _call(layer, name, case, tensors):
    kwargs = dict(case["call_kwargs"])
    kwargs.update({k: ARRAYS[f"{name}/arg/{k}"] for k in case["extra"]})
    if case["list_input"]:
        if case["n_masks_arg"] is not None:
            kwargs["mask"] = [ARRAYS[f"{name}/maskarg/{i}"] if f"{name}/maskarg/{i}" in ARRAYS
                              else None for i in range(case["n_masks_arg"])]
        return layer([tensors[k] for k in case["inputs"]], **kwargs)
    return layer(**tensors, **kwargs)


def _run(name):
    case = CASES[name]
    layer = _layer(case)
    tensors = _inputs(name, case)
    _call(layer, name, case, tensors)
    assert [(w.path.split("/", 1)[1], list(w.shape)) for w in layer.weights] == \
        [(w["path"].split("/", 1)[1], w["shape"]) for w in case["weights"]]
    layer.set_weights([ARRAYS[f"{name}/w/{i}"] for i in range(len(case["weights"]))])
    tensors = _inputs(name, case)
    with keras.GradientTape(persistent=True) as tape:
        for t in tensors.values():
            tape.watch(t)
        result = _call(layer, name, case, tensors)
        out, scores = result if case["scores"] else (result, None)
        loss = keras.ops.sum(out * ARRAYS[f"{name}/r"])
        if scores is not None:
            loss = loss + keras.ops.sum(scores * ARRAYS[f"{name}/r2"])
    return case, layer, tensors, out, scores, tape, loss


@pytest.mark.parametrize("name", LAYER_CASES)
def test_outputs_and_gradients_match_keras(name):
    case, layer, tensors, out, scores, tape, loss = _run(name)
    np.testing.assert_allclose(out.numpy(), ARRAYS[f"{name}/out"], rtol=1e-4, atol=2e-5)
    if scores is not None:
        np.testing.assert_allclose(scores.numpy(), ARRAYS[f"{name}/scores"], rtol=1e-4, atol=2e-6)
    if f"{name}/out_mask" in ARRAYS:
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(out._keras_mask),
                                      ARRAYS[f"{name}/out_mask"])
    grads = tape.gradient(loss, list(tensors.values()))
    for key, g in zip(tensors, grads):
        expected = ARRAYS.get(f"{name}/gin/{key}")
        if expected is not None:
            np.testing.assert_allclose(g.numpy(), expected, rtol=1e-4, atol=5e-5,
                                       err_msg=f"d loss / d {key}")
    w_grads = tape.gradient(loss, layer.trainable_weights)
    for i, g in enumerate(w_grads):
        expected = ARRAYS[f"{name}/gw/{i}"]
        got = np.zeros_like(expected) if g is None else keras.ops.convert_to_numpy(g)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=5e-5,
                                   err_msg=f"d loss / d {layer.trainable_weights[i].path}")
