"""`keras.utils.image_dataset_from_directory` on `kerasish.data.Dataset` (Pillow decodes)."""
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

    Grayscale from colour follows TensorFlow: a JPEG's own luma channel
    (libjpeg), and for PNG libpng's `(9797 R + 19234 G + 3737 B) >> 15`. JPEGs
    are decoded with libjpeg's fast integer IDCT and upsampled as libjpeg-turbo
    does (`_decode_jpeg_as_tensorflow`).
    """
    pil_image = image_utils._pil()
    with open(path, "rb") as f:
        img = pil_image.open(f)
        gray_from_colour = color_mode == "grayscale" and img.mode not in ("L", "I;16", "I")
        if img.format == "JPEG":
            decoded = _decode_jpeg_as_tensorflow(img, color_mode)
            if decoded is not None:
                return decoded
        if gray_from_colour and img.format == "JPEG":
            img.draft("L", img.size)   # libjpeg's own luma channel, as TensorFlow decodes
        img.load()
        if img.mode in ("I;16", "I;16B", "I") and img.format == "PNG":
            # a 16-bit grayscale PNG: TensorFlow keeps the high byte (png_set_strip_16)
            gray = (np.asarray(img, dtype="int64") >> 8).astype("uint8")[..., None]
            channels = _CHANNELS[color_mode]
            if channels == 1:
                return gray
            out = np.repeat(gray, 3, axis=-1)
            return out if channels == 3 else np.concatenate(
                [out, np.full_like(gray, 255)], axis=-1)
        if gray_from_colour and img.format == "PNG":
            rgb = np.asarray(img.convert("RGB"), dtype="int64")
            gray = (9797 * rgb[..., 0] + 19234 * rgb[..., 1] + 3737 * rgb[..., 2]) >> 15
            return gray.astype("uint8")[..., None]
        added_alpha = color_mode == "rgba" and img.format == "PNG" and \
            img.mode not in ("RGBA", "LA", "PA") and "transparency" not in img.info
        img = image_utils._convert_mode(img, color_mode)
        array = np.asarray(img, dtype="uint8")
        if added_alpha:
            # TensorFlow's PNG decoder fills a missing alpha with 2**bit_depth - 1 of the
            # file's (pre-expansion) bit depth: 1 for a 1-bit PNG, 15 for a 4-bit palette
            f.seek(24)   # the IHDR bit depth
            bit_depth = f.read(1)[0]
            array = array.copy()
            array[..., 3] = min((1 << bit_depth) - 1, 255)
    return array[..., None] if array.ndim == 2 else array


def _fast_dct(img, mode):
    """Makes Pillow decode `img` (an unloaded JPEG) in `mode` with libjpeg's fast integer
    IDCT, TensorFlow's `decode_jpeg` default; Pillow's "draft" flag also turns fancy
    upsampling off. Returns False where Pillow does not allow it."""
    img.draft(mode, img.size)
    if not img.decoderconfig or img.decoderconfig[0] != 1:
        return False
    img.decoderconfig = (1, 1)
    return True


def _fancy_h2v1(chroma):
    """libjpeg's h2v1 fancy upsampling of a (rows, n) plane: 3/4 nearer + 1/4 further."""
    left = np.concatenate([chroma[:, :1], chroma[:, :-1]], axis=1)
    right = np.concatenate([chroma[:, 1:], chroma[:, -1:]], axis=1)
    out = np.empty((chroma.shape[0], 2 * chroma.shape[1]), np.int64)
    out[:, 0::2] = (3 * chroma + left + 1) >> 2
    out[:, 1::2] = (3 * chroma + right + 2) >> 2
    out[:, 0], out[:, -1] = chroma[:, 0], chroma[:, -1]
    return out


def _fancy_h2v2(chroma):
    """libjpeg's h2v2 fancy upsampling (triangle filter over the neighbour rows, edge rows
    repeated); each output row pair first mixes in the row above, then the row below."""
    out = np.empty((2 * chroma.shape[0], 2 * chroma.shape[1]), np.int64)
    neighbours = (np.concatenate([chroma[:1], chroma[:-1]]),
                  np.concatenate([chroma[1:], chroma[-1:]]))
    for half, neighbour in enumerate(neighbours):
        sums = 3 * chroma + neighbour
        left = np.concatenate([sums[:, :1], sums[:, :-1]], axis=1)
        right = np.concatenate([sums[:, 1:], sums[:, -1:]], axis=1)
        rows = out[half::2]
        rows[:, 0::2] = (3 * sums + left + 8) >> 4
        rows[:, 1::2] = (3 * sums + right + 7) >> 4
        rows[:, 0], rows[:, -1] = (sums[:, 0] * 4 + 8) >> 4, (sums[:, -1] * 4 + 7) >> 4
    return out


def _ycc_to_rgb(ycc):
    """libjpeg's integer YCbCr -> RGB (16-bit fixed point, as jdcolor.c)."""
    def fix(x):
        return int(x * (1 << 16) + 0.5)
    y, cb, cr = ycc[..., 0], ycc[..., 1] - 128, ycc[..., 2] - 128
    half = 1 << 15
    r = y + ((fix(1.40200) * cr + half) >> 16)
    g = y + ((-fix(0.34414) * cb + half - fix(0.71414) * cr) >> 16)
    b = y + ((fix(1.77200) * cb + half) >> 16)
    return np.clip(np.stack([r, g, b], axis=-1), 0, 255).astype("uint8")


def _decode_jpeg_as_tensorflow(img, color_mode):
    """A JPEG as `tf.io.decode_image` decodes it (fast integer IDCT; fancy upsampling of
    4:2:2 and 4:2:0 chroma when the subsampled width is over 2, as libjpeg-turbo), or None
    where this path does not apply (other layouts, CMYK, RGBA output)."""
    from PIL import JpegImagePlugin  # optional dependency (Pillow)
    if color_mode == "rgba" or img.mode not in ("RGB", "L"):
        return None
    if color_mode == "grayscale" or img.mode == "L":
        if not _fast_dct(img, "L"):
            return None
        gray = np.asarray(img, dtype="uint8")[..., None]
        return gray if color_mode == "grayscale" else np.repeat(gray, 3, axis=-1)
    sampling = JpegImagePlugin.get_sampling(img)
    if sampling not in (0, 1, 2) or not _fast_dct(img, "YCbCr"):
        return None
    ycc = np.asarray(img, dtype="int64")
    height, width = ycc.shape[:2]
    if sampling and -(-width // 2) > 2:   # else libjpeg repeats the chroma samples
        planes = [ycc[:, 0::2, k] if sampling == 1 else ycc[0::2, 0::2, k] for k in (1, 2)]
        fancy = _fancy_h2v1 if sampling == 1 else _fancy_h2v2
        for k, plane in zip((1, 2), planes):
            ycc[..., k] = fancy(plane)[:height, :width]
    return _ycc_to_rgb(ycc)


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
