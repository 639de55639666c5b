"""callbacks.TensorBoard: files read back with TensorBoard's own EventAccumulator."""
import json
import os
import pstats
import sys

import numpy as np
import pytest

import kerasish as keras

pytest.importorskip("tensorboard", reason="the `tensorboard` extra is not installed")
from google.protobuf import text_format  # noqa: E402
from tensorboard.backend.event_processing import plugin_event_accumulator  # noqa: E402
from tensorboard.plugins.projector import projector_config_pb2  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402


def _run(logdir, run):
    acc = plugin_event_accumulator.EventAccumulator(os.path.join(logdir, run),
                                                    size_guidance={"tensors": 0})
    acc.Reload()
    return acc


def _values(acc, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def _model():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Embedding(12, 4, name="emb"),
                              keras.layers.Flatten(), keras.layers.Dense(3, name="out")])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    rng = np.random.default_rng(0)
    return model, rng.integers(0, 12, (40, 6)), rng.normal(size=(40, 3))


def test_epoch_scalars_equal_history(tmp_path):
    model, x, y = _model()
    history = model.fit(x, y, epochs=3, batch_size=8, validation_split=0.25, verbose=0,
                        callbacks=[keras.callbacks.TensorBoard(str(tmp_path))])
    train, val = _run(str(tmp_path), "train"), _run(str(tmp_path), "validation")
    for tag, key in (("epoch_loss", "loss"), ("epoch_mae", "mae")):
        steps, values = zip(*_values(train, tag))
        assert steps == (0, 1, 2)
        np.testing.assert_allclose(values, history.history[key], rtol=1e-6)
        np.testing.assert_allclose([v for _, v in _values(val, tag)],
                                   history.history["val_" + key], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in _values(train, "epoch_learning_rate")], 0.001)
    evaluation = _values(val, "evaluation_loss_vs_iterations")
    assert [s for s, _ in evaluation] == [4, 8, 12]  # optimizer iterations after each epoch
    assert "batch_loss" not in train.Tags()["tensors"]


def test_graph_is_the_model_json(tmp_path):
    model, x, y = _model()
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.TensorBoard(str(tmp_path))])
    train = _run(str(tmp_path), "train")
    assert train.SummaryMetadata("keras").plugin_data.plugin_name == "graph_keras_model"
    (step, config), = _values(train, "keras")
    assert json.loads(config.item()) == json.loads(model.to_json())


def test_tensorboard_draws_the_conceptual_graph(tmp_path):
    """TensorBoard's own Keras-graph converter reads what we wrote."""
    from tensorboard.plugins.graph import keras_util
    model, x, y = _model()
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.TensorBoard(str(tmp_path))])
    (_, config), = _values(_run(str(tmp_path), "train"), "keras")
    graph = keras_util.keras_model_to_graph_def(json.loads(config.item()))
    nodes = [(node.name, list(node.input)) for node in graph.node]
    first = model.layers[0].input._keras_history[0].name
    expected = [(first, []), ("emb", [first]), ("flatten", ["emb"]), ("out", ["flatten"])]
    assert nodes == [(f"{model.name}/{n}", [f"{model.name}/{i}" for i in inputs])
                     for n, inputs in expected]


@pytest.mark.parametrize("update_freq, expected_steps", [("batch", [1, 2, 3, 4, 5]),
                                                         (2, [2, 4])])
def test_batch_level_logging(tmp_path, update_freq, expected_steps):
    model, x, y = _model()
    model.fit(x, y, epochs=1, batch_size=8, verbose=0, callbacks=[
        keras.callbacks.TensorBoard(str(tmp_path), update_freq=update_freq,
                                    write_steps_per_second=True)])
    train = _run(str(tmp_path), "train")
    assert [s for s, _ in _values(train, "batch_loss")] == expected_steps
    assert [s for s, _ in _values(train, "batch_steps_per_second")] == expected_steps
    assert all(v > 0 for _, v in _values(train, "epoch_steps_per_second"))


def test_histograms_and_images(tmp_path):
    model, x, y = _model()
    model.fit(x, y, epochs=2, verbose=0, callbacks=[
        keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1, write_images=True)])
    train = _run(str(tmp_path), "train")
    tags = train.Tags()["tensors"]
    kernel = model.get_layer("out").kernel
    tag = kernel.path.replace(":", "_")
    assert f"{tag}/histogram" in tags and f"{tag}/image" in tags
    (step, rows) = _values(train, f"{tag}/histogram")[-1]
    assert step == 1 and rows.shape == (30, 3) and rows[:, 2].sum() == kernel.numpy().size
    assert rows[0, 0] == pytest.approx(kernel.numpy().min())
    assert rows[-1, 1] == pytest.approx(kernel.numpy().max())


def test_embedding_projector(tmp_path):
    model, x, y = _model()
    (tmp_path / "labels.tsv").write_text("\n".join(str(i) for i in range(12)))
    model.fit(x, y, epochs=2, verbose=0, callbacks=[
        keras.callbacks.TensorBoard(str(tmp_path), embeddings_freq=1,
                                    embeddings_metadata={"emb": "labels.tsv"})])
    config = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(),
                               projector_config_pb2.ProjectorConfig())
    (entry,) = config.embeddings
    assert entry.tensor_name == "emb/embeddings" and entry.metadata_path == "labels.tsv"
    values = np.loadtxt(tmp_path / entry.tensor_path, delimiter="\t")
    np.testing.assert_allclose(values, model.get_layer("emb").embeddings.numpy(), rtol=1e-7)
    assert (tmp_path / "train" / "keras_embedding.ckpt-1.weights.h5").exists()


def test_unknown_embedding_metadata_name(tmp_path):
    model, x, y = _model()
    with pytest.raises(ValueError, match="Unrecognized `Embedding` layer names.*'nope'"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.TensorBoard(
            str(tmp_path), embeddings_freq=1, embeddings_metadata={"nope": "a.tsv"})])


def test_profile_batch_writes_a_python_profile(tmp_path):
    model, x, y = _model()
    model.fit(x, y, epochs=1, batch_size=8, verbose=0, callbacks=[
        keras.callbacks.TensorBoard(str(tmp_path), profile_batch=(2, 3))])
    path = tmp_path / "train" / "plugins" / "profile" / "batch_2_3.pstats"
    assert pstats.Stats(str(path)).total_calls > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"update_freq": "often"}, "update_freq"), ({"profile_batch": (3, 1)}, "profile_batch"),
    ({"profile_batch": -1}, "profile_batch")])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        keras.callbacks.TensorBoard("logs", **kwargs)


def test_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    monkeypatch.setitem(sys.modules, "tensorboard.compat.proto", None)
    with pytest.raises(ImportError, match=r"kerasish\[tensorboard\]"):
        keras.callbacks.TensorBoard("logs")
