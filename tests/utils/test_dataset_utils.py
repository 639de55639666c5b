"""timeseries_dataset_from_array, split_dataset, image/text_dataset_from_directory against
real Keras 3.15.1 (tests/fixtures/preprocessing/make_utils_fixtures.py), plus bad input."""
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras
from kerasish.backend import devices

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "preprocessing"
INFO = json.loads((FIXTURES / "utils_fixtures.json").read_text(encoding="utf-8"))
ARRAYS = np.load(FIXTURES / "utils_fixtures.npz")
pytest.importorskip("PIL", reason="Pillow (the `image` extra) is needed for image files")
sys.path.insert(0, str(FIXTURES))
from utils_tree import write_audio, write_tree  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write_tree(str(tmp_path_factory.mktemp("tree")))


def _collect(ds, batched):
    xs, ys = zip(*[(np.asarray(x), np.asarray(y)) for x, y in ds])
    return (np.concatenate(xs), np.concatenate(ys)) if batched else (np.stack(xs), np.stack(ys))


@pytest.mark.parametrize("name", ["basic", "strided", "window", "shuffled"])
def test_timeseries_matches_keras(name):
    kwargs = INFO[f"ts_{name}"]
    data = np.arange(50, dtype="float32").reshape(25, 2)
    ds = keras.utils.timeseries_dataset_from_array(data, np.arange(25) * 10, **kwargs)
    x, y = _collect(ds, kwargs["batch_size"] is not None)
    expected_x, expected_y = ARRAYS[f"ts_{name}_x"], ARRAYS[f"ts_{name}_y"]
    if kwargs.get("shuffle"):   # Keras adds a tf.data buffer shuffle: same windows, any order
        order, expected_order = np.argsort(y), np.argsort(expected_y)
        x, y, expected_x, expected_y = x[order], y[order], expected_x[expected_order], \
            expected_y[expected_order]
    np.testing.assert_array_equal(x, expected_x)
    np.testing.assert_array_equal(y, expected_y)


@pytest.mark.parametrize("name", ["fraction", "counts", "shuffled"])
def test_split_dataset_matches_keras(name):
    x, y = np.arange(20).reshape(10, 2), np.arange(10)
    left, right = keras.utils.split_dataset((x, y), **INFO[f"split_{name}"])
    for side, ds in (("left", left), ("right", right)):
        got_x, got_y = zip(*list(ds))
        np.testing.assert_array_equal(np.stack(got_x), ARRAYS[f"split_{name}_{side}_x"])
        np.testing.assert_array_equal(np.stack(got_y), ARRAYS[f"split_{name}_{side}_y"])


def _kwargs(name):
    kwargs = dict(INFO[name]["kwargs"])
    if isinstance(kwargs.get("image_size"), list):
        kwargs["image_size"] = tuple(kwargs["image_size"])
    return kwargs


@pytest.mark.parametrize("name", ["plain", "nearest", "crop", "pad", "gray_categorical",
                                  "shuffled_split", "shuffled_val"])
def test_image_dataset_matches_keras(tree, name):
    case = INFO[f"img_{name}"]
    ds = keras.utils.image_dataset_from_directory(os.path.join(tree, "images"),
                                                  verbose=False, **_kwargs(f"img_{name}"))
    assert ds.class_names == case["class_names"]
    assert [os.path.relpath(p, tree) for p in ds.file_paths] == case["file_paths"]
    if f"img_{name}_x" in ARRAYS:
        x, y = _collect(ds, False)
        expected = ARRAYS[f"img_{name}_x"]
        assert x.dtype == expected.dtype
        np.testing.assert_allclose(x, expected, rtol=1e-5, atol=1e-3)
        np.testing.assert_array_equal(y, ARRAYS[f"img_{name}_y"])


@pytest.mark.parametrize("name", ["plain", "shuffled", "binary"])
def test_text_dataset_matches_keras(tree, name):
    case = INFO[f"txt_{name}"]
    ds = keras.utils.text_dataset_from_directory(os.path.join(tree, "texts"), verbose=False,
                                                 **case["kwargs"])
    texts, labels = zip(*[(str(t), np.asarray(lbl).tolist()) for t, lbl in ds.as_numpy_iterator()])
    assert ds.class_names == case["class_names"]
    if case["kwargs"].get("seed"):
        assert sorted(texts) == sorted(case["texts"])
    else:
        assert list(texts) == case["texts"] and list(labels) == case["labels"]


def test_image_dataset_batches_and_trains(tree):
    ds = keras.utils.image_dataset_from_directory(os.path.join(tree, "images"), image_size=(8, 8),
                                                  batch_size=4, seed=1, verbose=False)
    x, y = next(iter(ds))
    assert x.shape == (4, 8, 8, 3) and x.dtype == np.float32 and y.dtype == np.int32
    model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Rescaling(1 / 255.0),
                              keras.layers.Flatten(), keras.layers.Dense(2)])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    assert len(model.fit(ds, epochs=1, verbose=0).history["loss"]) == 1


def test_image_dataset_errors(tree, tmp_path):
    images = os.path.join(tree, "images")
    with pytest.raises(ValueError, match="image_dataset_from_directory: no images found"):
        keras.utils.image_dataset_from_directory(str(tmp_path), verbose=False)
    with pytest.raises(ValueError, match="different sizes.*image_size"):
        keras.utils.image_dataset_from_directory(images, image_size=None, verbose=False)
    with pytest.raises(ValueError, match="must provide a `seed`"):
        keras.utils.image_dataset_from_directory(images, validation_split=0.2,
                                                 subset="training", verbose=False)
    with pytest.raises(ValueError, match="color_mode"):
        keras.utils.image_dataset_from_directory(images, color_mode="cmyk", verbose=False)
    with pytest.raises(ValueError, match="does not exist"):
        keras.utils.image_dataset_from_directory(str(tmp_path / "missing"), verbose=False)


def test_unbatched_native_sizes(tree):
    ds = keras.utils.image_dataset_from_directory(os.path.join(tree, "images"), image_size=None,
                                                  batch_size=None, shuffle=False, verbose=False)
    assert {np.asarray(x).shape for x, _ in ds} >= {(7, 9, 3), (5, 5, 3)}


def test_timeseries_and_split_errors_are_kerass_texts():
    # Keras 3.15.1's exact texts (recorded with /tmp/probe16/utilerr.py)
    for kwargs, text in [
            (dict(sampling_rate=0), "`sampling_rate` must be higher than 0. Received: "
                                    "sampling_rate=0"),
            (dict(sampling_rate=5), "`sampling_rate` must be lower than the length of the "
                                    "data. Received: sampling_rate=5, for data of length 5"),
            (dict(sequence_stride=0), "`sequence_stride` must be higher than 0. Received: "
                                      "sequence_stride=0"),
            (dict(start_index=3, end_index=2), "`end_index` must be higher than `start_index`. "
                                               "Received: start_index=3, and end_index=2 "),
            (dict(format="x"), '`format` should be either "tf" or "grain". Received: format=x')]:
        with pytest.raises(ValueError) as info:
            keras.utils.timeseries_dataset_from_array(np.arange(5), None, 2, **kwargs)
        assert str(info.value) == text
    x = np.arange(10)
    for kwargs, error, text in [
            (dict(), ValueError, "At least one of the `left_size` or `right_size` must be "
                                 "specified. Received: left_size=None and right_size=None"),
            (dict(left_size=11), ValueError, "`left_size` should be either a positive integer "
                                             "smaller than 10, or a float within the range "
                                             "`[0, 1]`. Received: left_size=11"),
            (dict(right_size=1.5), ValueError, "`right_size` should be either a positive "
                                               "integer and smaller than 10 or a float within "
                                               "the range `[0, 1]`. Received: right_size=1.5"),
            (dict(left_size="a"), TypeError, "Invalid `left_size` Type. Expected: int or float "
                                             "or None, Received: type(left_size)=<class "
                                             "'str'>.  "),
            (dict(left_size=0.01), ValueError, "With `dataset` of length=10, `left_size`=0 and "
                                               "`right_size`=10.Resulting left side dataset "
                                               "split will be empty. Adjust any of the "
                                               "aforementioned parameters"),
            (dict(left_size=5, right_size=6), ValueError, "The sum of `left_size` and "
                                                          "`right_size` should be smaller than "
                                                          "the 10. Received: left_size + "
                                                          "right_size = 11.0and total_length = "
                                                          "10")]:
        with pytest.raises(error) as info:
            keras.utils.split_dataset(x, **kwargs)
        assert str(info.value) == text
    with pytest.raises(TypeError, match="^Unsupported dataset type: <class 'str'>$"):
        keras.utils.split_dataset("abc", left_size=0.5)
    with pytest.raises(ValueError) as info:
        keras.utils.split_dataset((np.arange(10), np.arange(9)), left_size=0.5)
    assert str(info.value) == (
        "Received a tuple of NumPy arrays with different lengths.Mismatch found at index 1, "
        "Expected shape=(10,) Received shape=(9,).Please provide a tuple of NumPy arrays of "
        "the same length.")


def test_split_and_timeseries_reprs_are_kerass():
    # Keras 3.15.1 on TensorFlow 2.21 (recorded): the splits end with `prefetch`, a batched
    # timeseries dataset with `batch`
    left, _ = keras.utils.split_dataset((np.arange(10.0), np.arange(10)), left_size=0.3)
    assert repr(left) == (
        "<_PrefetchDataset element_spec=(TensorSpec(shape=(), dtype=tf.float64, name=None), "
        "TensorSpec(shape=(), dtype=tf.int64, name=None))>")
    data = np.arange(20).reshape(10, 2).astype("float32")
    assert repr(keras.utils.timeseries_dataset_from_array(data, None, 3, batch_size=4)) == (
        "<_BatchDataset element_spec=TensorSpec(shape=(None, None, 2), dtype=tf.float32, "
        "name=None)>")
    assert repr(keras.utils.timeseries_dataset_from_array(data, None, 3, batch_size=None)) == (
        "<_PrefetchDataset element_spec=TensorSpec(shape=(None, 2), dtype=tf.float32, "
        "name=None)>")


def test_text_dataset_errors_are_kerass_texts(tmp_path):
    for name in "abc":
        (tmp_path / name).mkdir()
        (tmp_path / name / "1.txt").write_text(name)
    for kwargs, text in [
            (dict(validation_split=0.3), "If `subset` is set, `validation_split` must be set, "
                                         "and inversely."),
            (dict(validation_split=0.3, subset="nope", seed=1),
             '`subset` must be either "training", "validation" or "both", received: nope'),
            (dict(label_mode="binary"), 'When passing `label_mode="binary"`, there must be '
                                        "exactly 2 class_names. Received: class_names=['a', "
                                        "'b', 'c']"),
            (dict(validation_split=0.3, subset="training"),
             "If using `validation_split` and shuffling the data, you must provide a `seed` "
             "argument, to make sure that there is no overlap between the training and "
             "validation subset."),
            (dict(class_names=["a", "x"]), "The `class_names` passed did not match the names "
                                           "of the subdirectories of the target directory. "
                                           "Expected: ['a', 'b', 'c'] (or a subset of it), but "
                                           "received: class_names=['a', 'x']")]:
        with pytest.raises(ValueError) as info:
            keras.utils.text_dataset_from_directory(str(tmp_path), **kwargs)
        assert str(info.value) == text


def test_image_file_round_trip(tmp_path):
    array = np.random.RandomState(0).randint(0, 256, (4, 5, 3)).astype("float32")
    path = tmp_path / "x.png"
    keras.utils.save_img(path, array, scale=False)
    loaded = keras.utils.img_to_array(keras.utils.load_img(path))
    np.testing.assert_array_equal(loaded, array)
    gray = keras.preprocessing.image.load_img(path, color_mode="grayscale", target_size=(2, 3))
    assert keras.utils.img_to_array(gray).shape == (2, 3, 1)
    assert keras.utils.array_to_img(array, scale=False).size == (5, 4)
    with pytest.raises(ValueError, match="rank 3"):
        keras.utils.array_to_img(np.zeros((2, 2)))


@pytest.mark.parametrize("name", ["padded", "fixed"])
def test_audio_dataset_matches_keras(tmp_path, name):
    case = INFO[f"audio_{name}"]
    root = write_audio(str(tmp_path))
    ds = keras.utils.audio_dataset_from_directory(os.path.join(root, "audio"), verbose=False,
                                                  **case["kwargs"])
    batched = case["kwargs"]["batch_size"] is not None
    x, y = _collect(ds, batched)
    assert ds.class_names == case["class_names"]
    np.testing.assert_array_equal(x, ARRAYS[f"audio_{name}_x"])
    np.testing.assert_array_equal(y.ravel(), ARRAYS[f"audio_{name}_y"].ravel())


def test_audio_dataset_errors(tmp_path):
    with pytest.raises(ValueError, match="no audio files"):
        keras.utils.audio_dataset_from_directory(str(tmp_path), verbose=False)
    with pytest.raises(NotImplementedError, match="ragged"):
        keras.utils.audio_dataset_from_directory(str(tmp_path), ragged=True)


JPEG_ROOT = str(FIXTURES / "jpeg")


@pytest.mark.parametrize("color_mode", ["rgb", "grayscale"])
def test_jpeg_pixels_match_keras(color_mode):
    # TensorFlow decodes JPEGs with libjpeg-turbo's fast integer DCT; Pillow's accurate
    # DCT differed by up to 3 levels (see make_jpeg_fixtures.py for the files).
    pytest.importorskip("simplejpeg", reason="simplejpeg (the `image` extra) decodes JPEGs")
    expected = np.load(FIXTURES / "jpeg_fixtures.npz")
    ds = keras.utils.image_dataset_from_directory(JPEG_ROOT, labels=None, color_mode=color_mode,
                                                  image_size=(9, 7), batch_size=None,
                                                  shuffle=False, verbose=False)
    assert [os.path.basename(p) for p in ds.file_paths] == \
        expected[f"{color_mode}_paths"].tolist()
    np.testing.assert_array_equal(np.stack([np.asarray(x) for x in ds]), expected[color_mode])


def test_jpeg_without_simplejpeg_warns_and_uses_pillow(monkeypatch):
    monkeypatch.setitem(sys.modules, "simplejpeg", None)   # import fails
    with pytest.warns(UserWarning, match=r"simplejpeg is not installed.*kerasish\[image\]"):
        ds = keras.utils.image_dataset_from_directory(JPEG_ROOT, labels=None, image_size=(9, 7),
                                                      batch_size=None, shuffle=False,
                                                      verbose=False)
        pixels = np.stack([np.asarray(x) for x in ds])
    assert pixels.shape == (4, 9, 7, 3)


def _texts_and_labels(ds):
    return [(str(np.asarray(x).item()), int(y)) for x, y in ds.as_numpy_iterator()]


def test_validation_subset_alone_is_shuffled_like_keras(tmp_path, monkeypatch):
    # Keras shuffles subset="validation" (only subset="both" leaves its validation part
    # unshuffled) and returns a list for subset="both". Orders printed by Keras 3.15.1
    # (no keras.utils.set_random_seed call: TF's shuffle seeds depend on it).
    monkeypatch.setattr(devices, "_global_seed", [None])
    for cls, count in (("neg", 5), ("pos", 4)):
        (tmp_path / cls).mkdir()
        for i in range(count):
            (tmp_path / cls / f"{i}.txt").write_text(f"{cls}{i}")
    kwargs = dict(batch_size=None, validation_split=0.5, seed=7, verbose=False)
    val = keras.utils.text_dataset_from_directory(str(tmp_path), subset="validation", **kwargs)
    assert _texts_and_labels(val) == [("neg3", 0), ("neg1", 0), ("pos1", 1), ("neg4", 0)]
    both = keras.utils.text_dataset_from_directory(str(tmp_path), subset="both", **kwargs)
    assert isinstance(both, list)
    assert _texts_and_labels(both[0]) == [("neg0", 0), ("pos0", 1), ("neg2", 0), ("pos3", 1),
                                          ("pos2", 1)]
    assert _texts_and_labels(both[1]) == [("neg3", 0), ("pos1", 1), ("neg1", 0), ("neg4", 0)]



# A 7x6 JPEG (Pillow, quality 90, 4:2:0 chroma) and what Keras 3.15.1's
# image_dataset_from_directory decodes from it (tf.io.decode_image: libjpeg's fast
# integer IDCT, fancy chroma upsampling); Pillow's own decoder differs by a few levels.
JPEG_BASE64 = (
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQ"
    "DQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQU"
    "FBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCAAGAAcDASIAAhEBAxEB/8QAHwAAAQUBAQEB"
    "AQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKB"
    "kaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1"
    "dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl"
    "5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcF"
    "BAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5"
    "OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0"
    "tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDB8Y6Vd3Pw"
    "b0nxG8mlatreoz289reto0GniO2ltxIiypHvaV2LSlyZPvCIg/K4kKKK+w4c4bynH5fGviKCcryW7WkW4pWT"
    "SVkktj7fw8xVTN8hp4zHpVKkm9XGOiSSSStaKSW0Ule7tdtv/9k=")
JPEG_RGB = [
    [[140, 182, 34], [90, 95, 0], [148, 78, 68], [141, 39, 52], [128, 37, 6], [135, 65, 13],
     [114, 74, 22]],
    [[154, 166, 58], [242, 224, 152], [255, 192, 192], [243, 156, 165], [199, 147, 108],
     [127, 88, 31], [154, 105, 62]],
    [[124, 75, 45], [144, 82, 69], [150, 65, 84], [115, 58, 64], [197, 221, 169], [44, 66, 4],
     [155, 89, 63]],
    [[38, 18, 7], [45, 20, 13], [28, 0, 0], [235, 227, 216], [109, 159, 122], [166, 192, 165],
     [86, 3, 23]],
    [[108, 209, 153], [106, 201, 143], [93, 172, 115], [185, 241, 204], [123, 148, 153],
     [69, 43, 91], [120, 23, 116]],
    [[0, 92, 13], [75, 228, 146], [73, 209, 124], [113, 201, 151], [160, 172, 198],
     [124, 72, 157], [151, 45, 177]]]
JPEG_GRAY = [[153, 82, 98, 71, 61, 80, 80], [150, 221, 215, 183, 158, 93, 115],
             [86, 99, 93, 76, 208, 52, 106], [23, 27, 4, 228, 140, 181, 30],
             [172, 166, 142, 220, 141, 56, 63], [34, 173, 159, 169, 171, 97, 92]]


def test_jpeg_is_decoded_as_tensorflow_decodes_it(tmp_path):
    import base64
    (tmp_path / "cls").mkdir()
    (tmp_path / "cls" / "a.jpg").write_bytes(base64.b64decode("".join(JPEG_BASE64)))
    for color_mode, expected in (("rgb", JPEG_RGB), ("grayscale", JPEG_GRAY)):
        ds = keras.utils.image_dataset_from_directory(
            str(tmp_path), image_size=(6, 7), interpolation="nearest", batch_size=None,
            color_mode=color_mode, shuffle=False, verbose=False)
        image = np.asarray(next(iter(ds))[0])
        assert image.dtype == np.uint8
        np.testing.assert_array_equal(image.reshape(np.shape(expected)), expected)


def _decode_one(tmp_path, name, image, color_mode):
    folder = tmp_path / color_mode / "cls"
    folder.mkdir(parents=True)
    image.save(folder / name)
    ds = keras.utils.image_dataset_from_directory(
        str(tmp_path / color_mode), image_size=image.size[::-1], interpolation="nearest",
        batch_size=None, color_mode=color_mode, shuffle=False, verbose=False)
    return np.asarray(next(iter(ds))[0]).reshape(-1).tolist()


def test_png_bit_depths_decode_as_tensorflow(tmp_path):
    # tf.io.decode_image (Keras 3.15.1) outputs: a 16-bit PNG keeps its high byte; a
    # missing alpha is filled with 2**bit_depth - 1 of the file (3 for a 2-bit palette,
    # 1 for a 1-bit image).
    from PIL import Image
    sixteen = Image.fromarray(np.array([[0, 255, 256, 43900, 65535]], "uint16"))
    assert _decode_one(tmp_path, "g.png", sixteen, "grayscale") == [0, 0, 1, 171, 255]
    assert _decode_one(tmp_path, "g.png", sixteen, "rgba") == [
        0, 0, 0, 255, 0, 0, 0, 255, 1, 1, 1, 255, 171, 171, 171, 255, 255, 255, 255, 255]
    rgb = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255]]], "uint8")
    palette = Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=3)
    assert _decode_one(tmp_path / "p", "p.png", palette, "rgba") == [
        255, 0, 0, 3, 0, 255, 0, 3, 0, 0, 255, 3]
    one_bit = Image.fromarray(np.array([[0, 255, 0]], "uint8")).convert("1")
    assert _decode_one(tmp_path / "b", "b.png", one_bit, "rgba") == [
        0, 0, 0, 1, 255, 255, 255, 1, 0, 0, 0, 1]


def test_split_dataset_unbatches_only_a_batch_ended_pipeline_as_keras(tmp_path):
    # Keras 3.15.1 (`is_batched`: the last step is batch()): timeseries datasets end with
    # batch() and are split by samples, then batched again; image/text datasets end with
    # a prefetch, so their batches are the samples. Outputs printed by Keras.
    data = np.arange(40).astype("float32").reshape(20, 2)
    windows = keras.utils.timeseries_dataset_from_array(data, np.arange(20), sequence_length=2,
                                                        batch_size=4)
    assert windows.element_spec[0].shape == (None, None, 2)
    assert windows.element_spec[1].shape == (None,)
    left, right = keras.utils.split_dataset(windows, left_size=3)
    assert [np.asarray(y).tolist() for _, y in left] == [[0, 1, 2]]
    assert [np.asarray(y).tolist() for _, y in right] == [[3, 4, 5, 6], [7, 8, 9, 10],
                                                          [11, 12, 13, 14], [15, 16, 17, 18]]
    for cls, count in (("neg", 5), ("pos", 4)):
        (tmp_path / cls).mkdir()
        for i in range(count):
            (tmp_path / cls / f"{i}.txt").write_text(f"{cls}{i}")
    texts = keras.utils.text_dataset_from_directory(str(tmp_path), batch_size=3, shuffle=False,
                                                    verbose=False)
    left, right = keras.utils.split_dataset(texts, left_size=2)
    assert [np.asarray(y).tolist() for _, y in left] == [[0, 0, 0], [0, 0, 1]]
    assert [np.asarray(y).tolist() for _, y in right] == [[1, 1, 1]]
    unbatched = keras.utils.timeseries_dataset_from_array(np.arange(20.0), None, 2, batch_size=4)
    with pytest.raises(ValueError, match=r"samples must have same shape, Expected shape: "
                                         r"\(4, 2\) Received shape: \(3, 2\) at index 3"):
        keras.utils.split_dataset(unbatched.prefetch(2), left_size=2)


def test_directory_argument_errors_as_keras(tree, tmp_path):
    # Keras 3.15.1: a missing directory is a FileNotFoundError (os.listdir's), class_names
    # with explicit labels and an unknown data_format are refused with these words.
    with pytest.raises(FileNotFoundError):
        keras.utils.text_dataset_from_directory(str(tmp_path / "missing"), verbose=False)
    with pytest.raises(ValueError, match=r'you can only pass `class_names` if '
                                         r'`labels="inferred"`. Received: labels=\[0\], and '
                                         r"class_names=\['a'\]"):
        keras.utils.image_dataset_from_directory(os.path.join(tree, "images"), labels=[0],
                                                 class_names=["a"], verbose=False)
    with pytest.raises(ValueError, match="`data_format` argument must be one of"):
        keras.utils.image_dataset_from_directory(os.path.join(tree, "images"),
                                                 data_format="channels_mid", verbose=False)
