"""plot_model / model_to_dot draw what real Keras 3.15.1 draws (fixtures from real Keras)."""
import json
import os
import shutil
import sys

import pytest

import kerasish as keras

pytest.importorskip("pydot", reason="the `plot` extra (pydot) is not installed")

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "plot")
sys.path.insert(0, FIXTURES)
import models  # noqa: E402

sys.path.remove(FIXTURES)
with open(os.path.join(FIXTURES, "keras_dots.json")) as f:
    CASES = json.load(f)["cases"]


def _names(model):
    found, stack = {}, [model]
    while stack:
        layer = stack.pop()
        found[str(id(layer))] = layer.name
        stack.extend(getattr(layer, "layers", []))
        stack.extend(getattr(layer, "_operations", []))
    return found


def _describe(dot, names):
    def nodes_of(graph):
        return [[names[n.get_name()], n.get_label()] for n in graph.get_nodes()
                if n.get_name() in names]
    return {
        "attributes": {k: str(v) for k, v in sorted(dot.get_attributes().items())},
        "nodes": nodes_of(dot),
        "clusters": [[sub.get_name(), sub.get_label(), nodes_of(sub)]
                     for sub in dot.get_subgraphs()],
        "edges": sorted([names[e.get_source()], names[e.get_destination()]]
                        for e in dot.get_edges()),
    }


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['model']}-{sorted(c['options'])}")
def test_dot_matches_keras(case):
    keras.backend.clear_session()
    model = getattr(models, case["model"])(keras)
    dot = keras.utils.model_to_dot(model, **case["options"])
    assert _describe(dot, _names(model)) == case["dot"]


def test_unbuilt_model_is_refused():
    model = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="has not yet been built"):
        keras.utils.model_to_dot(model)


def test_unknown_argument_is_refused():
    model = models.sequential(keras)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        keras.utils.model_to_dot(model, colour=True)
    with pytest.raises(ValueError, match="layer_range"):
        keras.utils.model_to_dot(model, layer_range=["a", "b"])


def test_missing_pydot_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", None)
    with pytest.raises(ImportError, match=r"You must install pydot \(`pip install pydot`\)"):
        keras.utils.plot_model(models.sequential(keras), "x.png")


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's `dot` program is not installed (apt-get install graphviz)")
@pytest.mark.parametrize("extension, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"),
                                              ("pdf", b"%PDF")])
def test_plot_model_renders(tmp_path, extension, magic):
    path = tmp_path / f"model.{extension}"
    keras.utils.plot_model(models.nested(keras), str(path), show_shapes=True,
                           expand_nested=True)
    assert path.read_bytes().startswith(magic)
