"""Smoke tests of keras.visualization's plotting functions (Agg backend).

matplotlib draws the figures, so these check that each function runs and
writes a PNG, the arguments it rejects (with Keras's texts), and the grid it
lays out.
"""
import sys

import numpy as np
import pytest

import kerasish as keras

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
vis = keras.visualization


def _png(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return data


def test_plot_image_gallery_writes_a_png_with_titles(tmp_path, monkeypatch):
    titles = []
    real_subplots = plt.subplots

    def recording_subplots(*args, **kwargs):
        fig, axes = real_subplots(*args, **kwargs)
        titles.append((kwargs["nrows"], kwargs["ncols"], axes))
        return fig, axes

    monkeypatch.setattr(plt, "subplots", recording_subplots)
    images = np.random.default_rng(0).uniform(0, 1, (5, 8, 8, 3))
    vis.plot_image_gallery(images, y_true=np.array([0, 1, 2, 0, 1]),
                           y_pred=np.array([0, 2, 2, 1, 1]), label_map={0: "a", 1: "b"},
                           value_range=(0, 1), path=tmp_path / "g.png")
    _png(tmp_path / "g.png")
    rows, cols, axes = titles[0]
    assert (rows, cols) == (3, 1)  # Keras: ceil(sqrt(5)) rows, 5 // 3 columns
    assert axes.reshape(rows, cols)[1, 0].get_title() == "Label: b  Pred: Unknown"


def test_plot_image_gallery_channels_first(tmp_path):
    vis.plot_image_gallery(np.zeros((2, 3, 6, 5)), data_format="channels_first",
                           path=tmp_path / "cf.png")
    _png(tmp_path / "cf.png")


def test_plot_image_gallery_errors():
    with pytest.raises(ValueError, match="expects either `path` to be set"):
        vis.plot_image_gallery(np.zeros((1, 4, 4, 3)), path="x.png", show=True)
    with pytest.raises(ValueError, match="a `label_map` must also be provided"):
        vis.plot_image_gallery(np.zeros((1, 4, 4, 3)), y_true=np.array([0]))
    with pytest.raises(ValueError, match="requires you to batch"):
        vis.plot_image_gallery(np.zeros((4, 4, 3)), show=False)


def test_plot_image_gallery_without_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="^The `plot_image_gallery` function requires the "
                                          "`matplotlib` package"):
        vis.plot_image_gallery(np.zeros((1, 4, 4, 3)))


def test_plot_segmentation_mask_gallery_lays_out_image_true_pred(tmp_path, monkeypatch):
    shown = {}

    def spy(gallery, *args, **kwargs):
        shown.update(rows=kwargs["rows"], cols=kwargs["cols"], gallery=gallery)

    monkeypatch.setattr(
        sys.modules["kerasish.visualization.plot_segmentation_mask_gallery"],
        "plot_image_gallery", spy)
    images = np.full((2, 4, 4, 3), 100.0)
    masks = np.zeros((2, 4, 4, 1), "int32")
    masks[:, :2] = 1
    vis.plot_segmentation_mask_gallery(images, 2, y_true=masks, y_pred=masks[::-1])
    assert (shown["rows"], shown["cols"]) == (2, 3)
    gallery = shown["gallery"]
    assert gallery.shape == (6, 4, 4, 3)
    np.testing.assert_array_equal(gallery[0], images[0])
    np.testing.assert_array_equal(
        gallery[1], vis.draw_segmentation_masks(images, masks, num_classes=2)[0])


def test_plot_segmentation_mask_gallery_writes_a_png(tmp_path):
    masks = np.random.default_rng(0).integers(0, 3, (2, 6, 6, 1))
    vis.plot_segmentation_mask_gallery(np.zeros((2, 6, 6, 3)), 3, y_true=masks,
                                       path=tmp_path / "m.png")
    _png(tmp_path / "m.png")


def test_plot_bounding_box_gallery_draws_both_sets(tmp_path, monkeypatch):
    drawn = []

    def recording_draw(images, boxes, **kwargs):
        drawn.append((kwargs["color"], kwargs["class_mapping"], kwargs["text_thickness"]))
        return np.asarray(images)

    module = sys.modules["kerasish.visualization.plot_bounding_box_gallery"]
    monkeypatch.setattr(module, "draw_bounding_boxes", recording_draw)
    boxes = {"boxes": np.array([[[1., 1., 5., 5.]]]), "labels": np.array([[0]])}
    vis.plot_bounding_box_gallery(np.zeros((1, 8, 8, 3)), "xyxy", y_true=boxes, y_pred=boxes,
                                  class_mapping={0: "a"}, prediction_mapping={0: "p"},
                                  legend=True, path=tmp_path / "b.png")
    assert drawn == [((0, 188, 212), {0: "a"}, None), ((255, 235, 59), {0: "p"}, None)]
    _png(tmp_path / "b.png")
    with pytest.raises(ValueError, match="Only pass `legend` OR `legend_handles`"):
        vis.plot_bounding_box_gallery(np.zeros((1, 8, 8, 3)), "xyxy", legend=True,
                                      legend_handles=["x"])
    with pytest.raises(ValueError, match="must be batched 4D tensor"):
        vis.plot_bounding_box_gallery(np.zeros((8, 8, 3)), "xyxy")
