"""`keras.utils` image helpers: smart_resize, load_img, img_to_array, array_to_img, save_img.

Pillow is needed for reading and writing image files; install it with
`pip install kerasish[image]`.
"""
import io
import os
import pathlib
import warnings

import numpy as np

from kerasish.backend import config
from kerasish.ops import core as core_ops
from kerasish.ops import image as image_ops

_PIL_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last",
                 backend_module=None):
    """Resizes images to `size` without distorting them: crops the largest centred
    box of the target aspect ratio, then resizes (Keras's `smart_resize`).

    Args:
        x: image (rank 3) or batch (rank 4), numpy array or Tensor.
        size: (height, width).
        interpolation: as `ops.image.resize`.
        data_format: "channels_last" or "channels_first".

    Returns:
        A numpy array for numpy input, else a Tensor; float32 unless
        `interpolation="nearest"` (which keeps the input dtype), as Keras.

    Example:
        >>> smart_resize(np.ones((10, 20, 3)), (5, 5)).shape
        (5, 5, 3)
    """
    if len(size) != 2:
        raise ValueError("smart_resize: expected `size` to be a tuple of 2 integers, but got: "
                         f"{size}.")
    shape = tuple(np.shape(x)) if not hasattr(x, "shape") else tuple(x.shape)
    if len(shape) not in (3, 4):
        raise ValueError("smart_resize: expected an image array with shape `(height, width, "
                         "channels)`, or `(batch_size, height, width, channels)`, but got input "
                         f"with incorrect rank, of shape {shape}.")
    h_axis, w_axis = (-3, -2) if data_format == "channels_last" else (-2, -1)
    height, width = shape[h_axis], shape[w_axis]
    target_h, target_w = size
    crop_h = max(min(height, int(float(width * target_h) / target_w)), 1)
    crop_w = max(min(width, int(float(height * target_w) / target_h)), 1)
    top, left = int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)
    index = [slice(None)] * len(shape)
    index[h_axis] = slice(top, top + crop_h)
    index[w_axis] = slice(left, left + crop_w)
    is_numpy = isinstance(x, np.ndarray)
    cropped = x[tuple(index)]
    if interpolation != "nearest":
        # Keras resizes with the backend's own resize (tf.image.resize), not
        # ops.image.resize: the result is float32 whatever the input dtype, unrounded;
        # only "nearest" keeps the dtype.
        cropped = core_ops.cast(cropped, "float32")
    out = image_ops.resize(cropped, size, interpolation=interpolation, data_format=data_format)
    return out.numpy() if is_numpy else out


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("Loading and saving images needs Pillow: install it with "
                          "`pip install kerasish[image]` (or `pip install pillow`).") from None
    return Image


def _resample(name):
    image = _pil()
    methods = {"nearest": image.NEAREST, "bilinear": image.BILINEAR, "bicubic": image.BICUBIC,
               "hamming": image.HAMMING, "box": image.BOX, "lanczos": image.LANCZOS}
    if name not in methods:
        raise ValueError(f"Invalid interpolation method {name!r}. Supported methods are "
                         f"{', '.join(_PIL_INTERPOLATIONS)}.")
    return methods[name]


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """Loads an image file into a PIL image (as Keras).

    Args:
        path: file path (str/PathLike) or a binary file object.
        color_mode: "grayscale", "rgb" or "rgba".
        target_size: None or (height, width).
        interpolation: PIL resampling: nearest, bilinear, bicubic, hamming, box, lanczos.
        keep_aspect_ratio: crop the centre to the target aspect ratio before resizing.

    Returns:
        A PIL Image.

    Example:
        >>> img = keras.utils.load_img("cat.png", target_size=(64, 64))
    """
    image_module = _pil()
    if isinstance(path, io.BytesIO):
        img = image_module.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = path.decode("utf-8")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"load_img: no image file at {path!r}.")
        with open(path, "rb") as f:
            img = image_module.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"load_img: path should be path-like or io.BytesIO, not {type(path)}")
    img = _convert_mode(img, color_mode)
    if target_size is not None:
        width_height = (target_size[1], target_size[0])
        if img.size != width_height:
            resample = _resample(interpolation)
            if keep_aspect_ratio:
                img = img.crop(_aspect_box(img.size, target_size))
            img = img.resize(width_height, resample)
    return img


def _convert_mode(img, color_mode):
    modes = {"grayscale": ("L", ("L", "I;16", "I")), "rgba": ("RGBA", ("RGBA",)),
             "rgb": ("RGB", ("RGB",))}
    if color_mode not in modes:
        raise ValueError('load_img: color_mode must be "grayscale", "rgb", or "rgba". '
                         f"Received: color_mode={color_mode!r}")
    target, accepted = modes[color_mode]
    return img if img.mode in accepted else img.convert(target)


def _aspect_box(size, target_size):
    width, height = size
    target_h, target_w = target_size
    crop_h = (width * target_h) // target_w
    crop_w = (height * target_w) // target_h
    crop_h, crop_w = min(height, crop_h), min(width, crop_w)
    top, left = (height - crop_h) // 2, (width - crop_w) // 2
    return left, top, left + crop_w, top + crop_h


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image as a numpy array (height, width, channels), float32 by default.

    Args:
        img: PIL image.
        data_format: "channels_last" or "channels_first".
        dtype: output dtype (floatx by default).
    """
    data_format = data_format or config.image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"img_to_array: unknown data_format: {data_format}")
    x = np.asarray(img, dtype=dtype or config.floatx())
    if x.ndim == 2:
        x = x[..., None]
    elif x.ndim != 3:
        raise ValueError(f"img_to_array: unsupported image shape: {x.shape}")
    return x.transpose(2, 0, 1) if data_format == "channels_first" else x


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A numpy array (height, width, 1/3/4 channels) as a PIL image.

    Args:
        x: array or Tensor.
        data_format: "channels_last" or "channels_first".
        scale: rescale values to [0, 255] first (min to 0, max to 255).
        dtype: working dtype (floatx by default).
    """
    image_module = _pil()
    data_format = data_format or config.image_data_format()
    x = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=dtype or config.floatx())
    if x.ndim != 3:
        raise ValueError("array_to_img: expected image array to have rank 3 (single image). "
                         f"Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return image_module.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return image_module.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return image_module.fromarray(x[:, :, 0].astype("int32"), "I")
        return image_module.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img: unsupported channel number: {channels}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Saves a numpy image array to a file (format from `file_format` or the extension).

    Args:
        path: file path.
        x: image array (rank 3).
        data_format: "channels_last" or "channels_first".
        file_format: e.g. "png", "jpeg" (inferred from the extension when None).
        scale: rescale values to [0, 255].
        **kwargs: passed to `PIL.Image.save`.
    """
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg"):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)
