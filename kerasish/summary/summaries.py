"""The summary functions (`tf.summary.scalar`, `histogram`, `image`, `text`, and the Keras
model graph), written as TensorFlow 2 writes them: tensor summaries tagged with the
TensorBoard plugin that shows them, so TensorBoard's dashboards read them unchanged.

Each returns True when it wrote, False when there is no default writer (or a
`record_if` condition is false), like TensorFlow.
"""
import io
import warnings

import numpy as np

from kerasish.summary import writer as writer_lib

DEFAULT_BUCKET_COUNT = 30  # TensorBoard's `histogram` default


def _protos():
    try:  # optional dependency: the `tensorboard` extra
        from tensorboard.plugins.histogram import metadata as histogram_metadata
        from tensorboard.plugins.image import metadata as image_metadata
        from tensorboard.plugins.scalar import metadata as scalar_metadata
        from tensorboard.plugins.text import metadata as text_metadata
        from tensorboard.util import tensor_util
    except ImportError as err:
        raise ImportError(f"{writer_lib._EXTRA_HINT} ({err})") from None
    return dict(scalars=scalar_metadata, histograms=histogram_metadata,
                images=image_metadata, text=text_metadata, tensor_util=tensor_util)


def _to_numpy(data):
    value = getattr(data, "_value", data)  # a kerasish Tensor or Variable holds an array
    if hasattr(value, "get"):  # a device array: copy it to the host
        value = value.get()
    return np.asarray(value)


def _target(step):
    """(writer, step) for a write now, or (None, None) when nothing should be written."""
    writer, default_step = writer_lib.default_writer()
    if writer is None or not writer_lib.should_record():
        return None, None
    step = default_step if step is None else step
    if step is None:
        raise ValueError("No step set. Pass `step=` or use `writer.as_default(step=...)` / "
                         "`kerasish.summary.set_step(step)`.")
    return writer, int(_to_numpy(step))


def _write(tag, tensor_proto, metadata, step):
    writer, step = _target(step)
    if writer is None:
        return False
    _, _, summary_pb2 = writer_lib.import_tensorboard()
    summary = summary_pb2.Summary()
    summary.value.add(tag=tag, tensor=tensor_proto, metadata=metadata)
    writer.write_summary(summary, step)
    return True


def scalar(name, data, step=None, description=None):
    """Writes a scalar (a point on a TensorBoard curve).

    Args:
        name: the tag, e.g. "loss".
        data: a real number, or a 0-d array or tensor.
        step: the x-coordinate (default: the writer's step).
        description: optional Markdown shown in TensorBoard.

    Returns:
        True if written, False if there is no default writer.

    Example:
        >>> with writer.as_default(step=1):
        ...     keras.summary.scalar("loss", 0.3)
    """
    value = _to_numpy(data)
    if value.shape != ():
        raise ValueError(f"kerasish.summary.scalar('{name}'): data must be a scalar, "
                         f"got shape {value.shape}.")
    p = _protos()
    tensor = p["tensor_util"].make_tensor_proto(value.astype(np.float32))
    meta = p["scalars"].create_summary_metadata(display_name=None, description=description)
    return _write(name, tensor, meta, step)


def histogram_buckets(data, bucket_count=DEFAULT_BUCKET_COUNT):
    """TensorBoard's histogram buckets: `[k, 3]` rows of (left edge, right edge, count).

    Equal-width buckets from min to max (the last one closed); a constant input gives
    `bucket_count` buckets at that value with every count in the last; empty data
    gives zero rows of zeros, as TensorBoard's own summary does.

    Args:
        data: array of any shape.
        bucket_count: the number of buckets.

    Returns:
        float64 array of shape (bucket_count, 3).
    """
    bucket_count = max(0, int(bucket_count))
    values = _to_numpy(data).astype(np.float64).reshape(-1)
    if values.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3))
    low, high = values.min(), values.max()
    if low == high:
        counts = np.zeros(bucket_count)
        counts[-1] = values.size
        return np.stack([np.full(bucket_count, high), np.full(bucket_count, high), counts], 1)
    width = (high - low) / bucket_count
    index = np.minimum(np.floor((values - low) / width).astype(np.int64), bucket_count - 1)
    counts = np.bincount(index, minlength=bucket_count).astype(np.float64)
    edges = np.linspace(low, high, bucket_count + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram of `data`'s values (TensorBoard's Histograms and Distributions tabs).

    Args:
        name: the tag.
        data: array or tensor of any shape.
        step: the step (default: the writer's step).
        buckets: number of equal-width buckets (default 30).
        description: optional Markdown.

    Returns:
        True if written, False if there is no default writer.

    Example:
        >>> keras.summary.histogram("weights", np.random.rand(100), step=0)
    """
    p = _protos()
    rows = histogram_buckets(data, DEFAULT_BUCKET_COUNT if buckets is None else buckets)
    tensor = p["tensor_util"].make_tensor_proto(rows)
    meta = p["histograms"].create_summary_metadata(display_name=None, description=description)
    return _write(name, tensor, meta, step)


def _encode_png(image):
    try:  # optional dependency: Pillow, part of the `tensorboard` extra
        from PIL import Image
    except ImportError as err:
        raise ImportError('kerasish.summary.image needs Pillow to encode PNG: '
                          f'pip install "kerasish[tensorboard]" ({err})') from None
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[image.shape[-1]]
    pixels = image[..., 0] if mode == "L" else image
    buffer = io.BytesIO()
    Image.fromarray(pixels, mode=mode).save(buffer, format="PNG")
    return buffer.getvalue()


def _to_uint8(images):
    """Floats in [0, 1] to uint8 as TensorFlow's `convert_image_dtype(saturate=True)` does."""
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind in "iub":
        return np.clip(images, 0, 255).astype(np.uint8)
    return np.clip(images.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)


def image(name, data, step=None, max_outputs=3, description=None):
    """Writes images (TensorBoard's Images tab).

    Args:
        name: the tag.
        data: `[k, height, width, channels]` with 1, 3 or 4 channels; floats in
            [0, 1] or uint8 in [0, 255].
        step: the step (default: the writer's step).
        max_outputs: at most this many of the `k` images are written.
        description: optional Markdown.

    Returns:
        True if written, False if there is no default writer.

    Example:
        >>> keras.summary.image("samples", np.zeros((2, 8, 8, 1)), step=0)
    """
    images = _to_numpy(data)
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise ValueError(f"kerasish.summary.image('{name}'): data must be [k, height, width, "
                         f"channels] with 1, 3 or 4 channels, got shape {images.shape}.")
    if writer_lib.default_writer()[0] is None:
        return False
    p = _protos()
    pixels = _to_uint8(images[:max_outputs])
    content = [str(images.shape[2]).encode(), str(images.shape[1]).encode()]
    content += [_encode_png(img) for img in pixels]
    tensor = p["tensor_util"].make_tensor_proto(np.array(content, dtype=object))
    meta = p["images"].create_summary_metadata(display_name=None, description=description)
    return _write(name, tensor, meta, step)


def text(name, data, step=None, description=None):
    """Writes text (Markdown) to TensorBoard's Text tab.

    Args:
        name: the tag.
        data: a string, or an array of strings.
        step: the step (default: the writer's step).
        description: optional Markdown.

    Returns:
        True if written, False if there is no default writer.

    Example:
        >>> keras.summary.text("notes", "first run", step=0)
    """
    p = _protos()
    values = np.asarray(data, dtype=object)
    encoded = np.vectorize(lambda s: s.encode() if isinstance(s, str) else bytes(s),
                           otypes=[object])(values) if values.size else values
    tensor = p["tensor_util"].make_tensor_proto(encoded)
    meta = p["text"].create_summary_metadata(display_name=None, description=description)
    return _write(name, tensor, meta, step)


def keras_model(name, data, step=None):
    """Writes a model's JSON config so TensorBoard's Graphs tab draws its conceptual graph.

    Args:
        name: the tag ("keras" in the TensorBoard callback).
        data: a model with `to_json()`.
        step: the step (default: the writer's step).

    Returns:
        True if written; False if there is no default writer or the model
        cannot be serialized (with a warning, as Keras).

    Example:
        >>> keras.summary.keras_model("keras", model, step=0)
    """
    try:
        config_json = data.to_json()
    except Exception as exc:  # as Keras: a model that cannot serialize must not break training
        warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}")
        return False
    _, _, summary_pb2 = writer_lib.import_tensorboard()
    p = _protos()
    meta = summary_pb2.SummaryMetadata()
    meta.plugin_data.plugin_name = "graph_keras_model"
    meta.plugin_data.content = b"1"
    tensor = p["tensor_util"].make_tensor_proto(np.array(config_json.encode(), dtype=object))
    return _write(name, tensor, meta, step)
