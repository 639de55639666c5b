"""`keras.applications.imagenet_utils`: ImageNet class names and input preprocessing."""
import json

import numpy as np

from kerasish import config, ops
from kerasish.utils import file_utils

CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
_CLASS_INDEX_MD5 = "c2c37ea517e94d9795004a39431a14cb"
_class_index = {}  # filled once from Keras's `imagenet_class_index.json`


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
    """Keras's ImageNet preprocessing of a batch of RGB images in [0, 255].

    As in Keras, a numpy float array is changed in place (and returned; other
    numpy dtypes are first cast to `floatx()`), and a tensor gives a new tensor
    of its dtype.

    Args:
        x: numpy array or tensor, 3D or 4D, channels last or first.
        data_format: "channels_last" or "channels_first"; None:
            `keras.config.image_data_format()`.
        mode: "caffe" (RGB -> BGR, ImageNet means subtracted), "tf" (scaled to
            [-1, 1]) or "torch" (scaled to [0, 1], then ImageNet mean/std).

    Returns:
        the preprocessed array or tensor.

    Raises:
        ValueError: an unknown `mode` or `data_format`.

    Example:
        >>> preprocess_input(np.full((1, 2, 2, 3), 255.0), mode="tf")[0, 0, 0]
        array([1., 1., 1.])
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                         f"Received: mode={mode}")
    if data_format is None:
        data_format = config.image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Expected data_format to be one of `channels_first` or "
                         f"`channels_last`. Received: data_format={data_format}")
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _mean_std(mode):
    if mode == "torch":
        return [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    return [103.939, 116.779, 123.68], None


def _preprocess_numpy(x, data_format, mode):
    """Keras's numpy path: in place on float arrays, channel by channel."""
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(config.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    first = data_format == "channels_first"
    if mode == "torch":
        x /= 255.0
    elif first:
        x = x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]  # RGB -> BGR (a view)
    else:
        x = x[..., ::-1]
    mean, std = _mean_std(mode)
    for channel in range(3):
        index = ((channel,) if x.ndim == 3 else (slice(None), channel)) if first \
            else (Ellipsis, channel)
        x[index] -= mean[channel]
        if std is not None:
            x[index] /= std[channel]
    return x


def _preprocess_tensor(x, data_format, mode):
    """Keras's tensor path: a new tensor of `x`'s dtype."""
    ndim = len(x.shape)
    if mode == "tf":
        return x / 127.5 - 1.0
    first = data_format == "channels_first"
    if mode == "torch":
        x = x / 255.0
    elif first and ndim == 3:
        x = ops.stack([x[i, ...] for i in (2, 1, 0)], axis=0)
    elif first:
        x = ops.stack([x[:, i, :] for i in (2, 1, 0)], axis=1)
    else:
        x = ops.stack([x[..., i] for i in (2, 1, 0)], axis=-1)
    mean, std = _mean_std(mode)
    if first:
        shape = (3, 1, 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)
    else:
        shape = (1,) * (ndim - 1) + (3,)
    x = x + ops.reshape(ops.convert_to_tensor(-np.array(mean), dtype=x.dtype), shape)
    if std is not None:
        x = x / ops.reshape(ops.convert_to_tensor(np.array(std), dtype=x.dtype), shape)
    return x
