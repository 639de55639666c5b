"""`keras.applications.imagenet_utils`: ImageNet class names and input preprocessing."""
import json

import numpy as np

from kerasish import ops
from kerasish.applications import common
from kerasish.utils import file_utils

CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
_CLASS_INDEX_MD5 = "c2c37ea517e94d9795004a39431a14cb"
_class_index = {}  # filled once from Keras's `imagenet_class_index.json`
_TORCH_MEAN = np.array([0.485, 0.456, 0.406], "float32")
_TORCH_STD = np.array([0.229, 0.224, 0.225], "float32")


def decode_predictions(preds, top=5):
    """The `top` ImageNet classes of each prediction, as (class id, description, score).

    The class names come from Keras's `imagenet_class_index.json`, downloaded
    once into `~/.keras/models`.

    Args:
        preds: array (samples, 1000) of class scores.
        top: how many classes per sample.

    Returns:
        a list (one per sample) of lists of `(class_name, class_description,
        score)` tuples, highest score first.

    Raises:
        ValueError: `preds` is not of shape (samples, 1000).

    Example:
        >>> decode_predictions(model.predict(images), top=3)[0]
        [('n02504458', 'African_elephant', 0.83), ...]
    """
    preds = np.asarray(ops.convert_to_numpy(preds) if ops.is_tensor(preds) else preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array "
                         f"of shape (samples, 1000)). Received array with shape: {preds.shape}")
    index = class_index()
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        decoded = [tuple(index[str(i)]) + (pred[i],) for i in best]
        decoded.sort(key=lambda item: item[2], reverse=True)
        results.append(decoded)
    return results


def class_index():
    """{"0": [wordnet id, name], ...}: Keras's ImageNet class index (downloaded once)."""
    if not _class_index:
        path = file_utils.get_file("imagenet_class_index.json", CLASS_INDEX_PATH,
                                   cache_subdir="models", file_hash=_CLASS_INDEX_MD5)
        with open(path) as f:
            _class_index.update(json.load(f))
    return _class_index


def preprocess_input(x, data_format=None, mode="caffe"):
    """Keras's ImageNet preprocessing of a batch of RGB images in [0, 255] (channels_last).

    Args:
        x: array or tensor (..., 3).
        data_format: only "channels_last" (or None).
        mode: "caffe" (RGB -> BGR, ImageNet means subtracted), "tf" (scaled to
            [-1, 1]) or "torch" (scaled to [0, 1], then ImageNet mean/std).

    Returns:
        float32 array.
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                         f"Received: mode={mode}")
    if data_format not in (None, "channels_last"):
        raise NotImplementedError("kerasish's applications preprocess channels_last images "
                                  f"only. Received: data_format={data_format}")
    if mode == "caffe":
        return common.caffe_preprocess(x)
    if mode == "tf":
        return common.tf_preprocess(x)
    x = np.asarray(ops.convert_to_numpy(x) if ops.is_tensor(x) else x, dtype="float32")
    return (x / 255.0 - _TORCH_MEAN) / _TORCH_STD
