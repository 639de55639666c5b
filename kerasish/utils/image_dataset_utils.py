"""`keras.utils.image_dataset_from_directory` on `kerasish.data.Dataset`.

Files decode to the pixels TensorFlow's decoders give: JPEGs with libjpeg-turbo's
fast integer DCT and fancy upsampling (TensorFlow's defaults) through simplejpeg,
other formats with Pillow (both in the `image` extra).
"""
import io
import warnings

import numpy as np

from kerasish.backend import config
from kerasish.data.constants import AUTOTUNE
from kerasish.data.dataset import Dataset
from kerasish.ops import image as image_ops
from kerasish.utils import dataset_utils, image_utils

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}
_CALLER = "image_dataset_from_directory"


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, format="tf",
                                 verbose=True):
    """A Dataset of (images, labels) from a folder with one subfolder per class.

    Keras's file order, class names, seeded shuffle of the file list and
    validation split; images are decoded with Pillow and resized with
    `ops.image.resize` (float32; uint8 for "nearest", as tf.image.resize).
    `image_size=None` keeps the files' sizes (then a batch needs equal sizes).

    Args:
        directory: the root folder.
        labels: "inferred", None, or a list of integer labels in file order.
        label_mode: "int", "categorical", "binary" or None.
        class_names: explicit class (subfolder) order.
        color_mode: "rgb", "rgba" or "grayscale".
        batch_size: batch size, or None for single images.
        image_size: (height, width) or None.
        shuffle, seed: shuffle the files (seed needed with `validation_split`).
        validation_split, subset: fraction kept for validation; "training",
            "validation" or "both".
        interpolation: resize method.
        follow_links: follow symbolic links to folders.
        crop_to_aspect_ratio, pad_to_aspect_ratio: keep the aspect ratio.
        data_format: "channels_last" or "channels_first".
        format: only "tf" (a `kerasish.data.Dataset`).
        verbose: print how many files were found.

    Returns:
        A Dataset with `class_names` and `file_paths` attributes (two for "both").

    Example:
        >>> ds = keras.utils.image_dataset_from_directory("photos", image_size=(64, 64))
    """
    num_channels = _check_arguments(labels, label_mode, class_names, color_mode, image_size,
                                    interpolation, format, crop_to_aspect_ratio,
                                    pad_to_aspect_ratio)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    if data_format not in (None, "channels_first", "channels_last"):
        raise ValueError(f"{_CALLER}: the `data_format` argument must be one of "
                         "{'channels_first', 'channels_last'}. Received: "
                         f"data_format={data_format}")
    dataset_utils.check_validation_split(_CALLER, validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, ALLOWLIST_FORMATS, class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose, caller=_CALLER)
    if not paths:
        raise ValueError(f"{_CALLER}: no images found in directory {directory}. Allowed "
                         f"formats: {ALLOWLIST_FORMATS}")
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'{_CALLER}: when passing `label_mode="binary"`, there must be '
                         f"exactly 2 class_names. Received: class_names={class_names}")
    options = dict(image_size=image_size, num_channels=num_channels, label_mode=label_mode,
                   num_classes=len(class_names) if class_names else 0,
                   interpolation=interpolation, crop=crop_to_aspect_ratio,
                   pad=pad_to_aspect_ratio,
                   data_format=data_format or config.image_data_format(),
                   batch_size=batch_size, seed=seed, class_names=class_names)
    subsets = ["training", "validation"] if subset == "both" else [subset]
    datasets = []
    for part in subsets:
        part_paths, part_labels = dataset_utils.training_or_validation_split(
            paths, labels, validation_split, part)
        if not part_paths:
            raise ValueError(f"{_CALLER}: no {part or ''} images found in directory "
                             f"{directory}. Allowed formats: {ALLOWLIST_FORMATS}")
        datasets.append(_make_dataset(part_paths, part_labels,
                                      shuffle=shuffle and not (subset == "both"
                                                               and part == "validation"),
                                      **options))
    # Keras returns a list here (audio_dataset_from_directory returns a tuple).
    return datasets if subset == "both" else datasets[0]


def _check_arguments(labels, label_mode, class_names, color_mode, image_size, interpolation,
                     format, crop, pad):
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(f"{_CALLER}: `labels` argument should be a list/tuple of integer "
                             "labels, of the same size as the number of image files in the "
                             'target directory, "inferred", or None. Received: '
                             f"labels={labels}")
        if class_names:
            raise ValueError(f'{_CALLER}: you can only pass `class_names` if `labels="inferred"`. '
                             f"Received: labels={labels}, and class_names={class_names}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f'{_CALLER}: `label_mode` argument must be one of "int", "categorical", '
                         f'"binary", or None. Received: label_mode={label_mode}')
    if color_mode not in _CHANNELS:
        raise ValueError(f'{_CALLER}: `color_mode` must be one of {{"rgb", "rgba", "grayscale"}}. '
                         f"Received: color_mode={color_mode}")
    if image_size is not None and not isinstance(image_size, int) and (
            not isinstance(image_size, (list, tuple)) or len(image_size) != 2):
        raise ValueError(f"{_CALLER}: invalid `image_size` value. Expected a tuple of 2 "
                         f"integers. Received: image_size={image_size}")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{_CALLER}: argument `interpolation` should be one of "
                         f"{_INTERPOLATIONS}. Received: interpolation={interpolation}")
    if format != "tf":
        raise ValueError(f'{_CALLER}: `format` must be "tf" (a kerasish.data.Dataset). '
                         f"Received: format={format}")
    if crop and pad:
        raise ValueError(f"{_CALLER}: only one of `crop_to_aspect_ratio` and "
                         "`pad_to_aspect_ratio` can be set to `True`.")
    return _CHANNELS[color_mode]


def _make_dataset(paths, labels, image_size, num_channels, label_mode, num_classes,
                  interpolation, crop, pad, data_format, batch_size, shuffle, seed,
                  class_names):
    color_mode = {3: "rgb", 4: "rgba", 1: "grayscale"}[num_channels]

    def load(path):
        return load_image(str(path), image_size, color_mode, interpolation, crop, pad,
                          data_format)

    images = Dataset.from_tensor_slices(np.array(paths)).map(load)
    dataset = images
    if label_mode is not None:
        encoded = dataset_utils.encode_labels(labels, label_mode, num_classes)
        dataset = Dataset.zip((images, Dataset.from_tensor_slices(encoded)))
    if shuffle:
        dataset = dataset.shuffle(batch_size * 8 if batch_size else 1024, seed=seed)
    if batch_size is not None:
        if image_size is None:
            _check_same_sizes(paths, color_mode)
        dataset = dataset.batch(batch_size)
    # As Keras, the pipeline ends with a prefetch (so `split_dataset` takes its elements,
    # batches or not, as the samples, as Keras does)
    dataset = dataset.prefetch(AUTOTUNE)
    dataset.class_names = class_names
    dataset.file_paths = list(paths)
    return dataset


def _check_same_sizes(paths, color_mode):
    """Batching needs one image size: say which files differ (image_size=None)."""
    sizes = {}
    for path in paths:
        sizes.setdefault(image_utils.load_img(path, color_mode=color_mode).size, path)
    if len(sizes) > 1:
        found = ", ".join(f"{w}x{h} (e.g. {p})" for (w, h), p in list(sizes.items())[:3])
        raise ValueError(f"{_CALLER}: the images have different sizes ({found}), so they "
                         "cannot be batched with `image_size=None`. Pass `image_size=(height, "
                         "width)` to resize them, or `batch_size=None`.")


def load_image(path, image_size, color_mode, interpolation, crop, pad, data_format):
    """One image file as an array (height, width, channels), resized like Keras."""
    img = decode_image(path, color_mode)
    if image_size is not None:
        img = _resize(img, tuple(image_size), interpolation, crop, pad)
    if data_format == "channels_first":
        img = img.transpose(2, 0, 1)
    return img


def decode_image(path, color_mode):
    """uint8 array (height, width, channels) as TensorFlow's decoders give it.

    JPEGs decode as `tf.io.decode_image` does (libjpeg-turbo, fast integer
    DCT, fancy upsampling; grayscale is the JPEG's own luma channel). Pillow
    decodes other formats; grayscale from a colour PNG is libpng's
    `(9797 R + 19234 G + 3737 B) >> 15`, a 16-bit PNG keeps its high byte and a
    PNG without alpha read as rgba gets `2**bit_depth - 1`, as TensorFlow.
    """
    with open(path, "rb") as f:
        data = f.read()
    if data[:3] == b"\xff\xd8\xff":
        array = _decode_jpeg(data, path, color_mode)
        if array is not None:
            return array
    img = image_utils._pil().open(io.BytesIO(data))
    gray_from_colour = color_mode == "grayscale" and img.mode not in ("L", "I;16", "I")
    if gray_from_colour and img.format == "JPEG":
        img.draft("L", img.size)   # libjpeg's own luma channel
    img.load()
    if img.mode in ("I;16", "I;16B", "I") and img.format == "PNG":
        return _sixteen_bit_png(img, color_mode)
    if gray_from_colour and img.format == "PNG":
        rgb = np.asarray(img.convert("RGB"), dtype="int64")
        gray = (9797 * rgb[..., 0] + 19234 * rgb[..., 1] + 3737 * rgb[..., 2]) >> 15
        return gray.astype("uint8")[..., None]
    added_alpha = color_mode == "rgba" and img.format == "PNG" and \
        img.mode not in ("RGBA", "LA", "PA") and "transparency" not in img.info
    array = np.asarray(image_utils._convert_mode(img, color_mode), dtype="uint8")
    if added_alpha:
        # TensorFlow's PNG decoder fills a missing alpha with 2**bit_depth - 1 of the
        # file's (pre-expansion) bit depth (IHDR byte 24): 1 for a 1-bit PNG, 15 for 4 bits
        array = array.copy()
        array[..., 3] = min((1 << data[24]) - 1, 255)
    return array[..., None] if array.ndim == 2 else array


def _sixteen_bit_png(img, color_mode):
    """A 16-bit grayscale PNG as TensorFlow reads it: the high byte (png_set_strip_16)."""
    gray = (np.asarray(img, dtype="int64") >> 8).astype("uint8")[..., None]
    channels = _CHANNELS[color_mode]
    if channels == 1:
        return gray
    out = np.repeat(gray, 3, axis=-1)
    return out if channels == 3 else np.concatenate([out, np.full_like(gray, 255)], axis=-1)


_JPEG_COLORSPACES = {"rgb": "RGB", "rgba": "RGBA", "grayscale": "GRAY"}


def _decode_jpeg(data, path, color_mode):
    """TensorFlow's JPEG pixels, or None when simplejpeg is missing or cannot
    decode the file (CMYK, say): Pillow then decodes it, whose default (accurate)
    DCT differs from TensorFlow's by a few levels, so a missing simplejpeg warns."""
    try:
        import simplejpeg
    except ImportError:
        warnings.warn(f"{_CALLER}: JPEG files are decoded with Pillow because simplejpeg is "
                      "not installed; their pixel values differ from Keras's (TensorFlow's "
                      "fast-DCT decoder) by a few levels. Install the `image` extra "
                      "(`pip install kerasish[image]`) for the same pixels.", stacklevel=4)
        return None
    try:
        array = simplejpeg.decode_jpeg(data, colorspace=_JPEG_COLORSPACES[color_mode],
                                       fastdct=True, fastupsample=False)
    except ValueError:
        return None
    return array[..., None] if array.ndim == 2 else array


def _resize(img, size, interpolation, crop, pad):
    source = img if interpolation == "nearest" else img.astype("float32")
    if crop:
        return image_utils.smart_resize(source, size, interpolation=interpolation)
    if pad:
        return _resize_with_pad(source, size, interpolation)
    return image_ops.resize(source, size, interpolation=interpolation).numpy()


def _resize_with_pad(img, size, interpolation):
    """tf.image.resize_with_pad: scale to fit inside `size`, then centre on zeros."""
    height, width = np.float32(img.shape[0]), np.float32(img.shape[1])
    target_h, target_w = size
    ratio = max(width / np.float32(target_w), height / np.float32(target_h))
    float_h, float_w = height / ratio, width / ratio
    new_h, new_w = int(np.floor(float_h)), int(np.floor(float_w))
    top = max(0, int(np.floor((np.float32(target_h) - float_h) / 2)))
    left = max(0, int(np.floor((np.float32(target_w) - float_w) / 2)))
    resized = image_ops.resize(img, (new_h, new_w), interpolation=interpolation).numpy()
    out = np.zeros((target_h, target_w, img.shape[2]), dtype=resized.dtype)
    out[top:top + new_h, left:left + new_w] = resized
    return out
