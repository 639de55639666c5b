"""ContrastLimitedAdaptiveHistogramEqualization (CLAHE): tile-wise equalisation."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import (BaseImagePreprocessingLayer,
                                                             transform_value_range)


class ContrastLimitedAdaptiveHistogramEqualization(BaseImagePreprocessingLayer):
    """Equalises each tile's histogram (clipped), blending neighbouring tiles bilinearly.

    As in Keras 3.15.1: images are mapped to [0, 255] and padded (symmetric)
    to a whole number of `tile_grid_size` tiles; each tile and channel gets a
    256-bin histogram of the truncated pixel values, clipped at
    `clip_limit * tile_pixels / 256` with the excess spread evenly (no
    clipping when `clip_limit` <= 0); its normalised CDF is the tile's lookup
    table, and every pixel blends the tables of the four nearest tile centres
    (edge tiles repeated). It acts in training and inference alike, and keeps
    the input dtype.

    Args:
        value_range: (min, max) of the images.
        clip_limit: contrast limit (4.0 by default; <= 0 disables clipping).
        tile_grid_size: (rows, columns) of tiles.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> clahe = keras.layers.ContrastLimitedAdaptiveHistogramEqualization(
        ...     tile_grid_size=(2, 2))
        >>> clahe(np.random.uniform(0, 255, (1, 16, 16, 3))).shape
        (1, 16, 16, 3)
    """

    _has_seed_generator = False  # Keras's draws nothing

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range, self.clip_limit = value_range, clip_limit
        self.tile_grid_size = tile_grid_size

    def call(self, inputs, training=True):
        self._check_images(inputs)
        return self.transform_images(inputs, training=training)

    def transform_images(self, images, training=True):
        dtype = images.dtype
        single = len(images.shape) == 3
        if self.data_format == "channels_first":
            images = ops.transpose(images, (1, 2, 0) if single else (0, 2, 3, 1))
        out = transform_value_range(ops.cast(images, "float32"), self.value_range, (0, 255))
        out = self._clahe(ops.expand_dims(out, 0) if single else out)
        out = transform_value_range(out[0] if single else out, (0, 255), self.value_range)
        out = ops.cast(out, dtype)
        if self.data_format == "channels_first":
            out = ops.transpose(out, (2, 0, 1) if single else (0, 3, 1, 2))
        return out

    def _clahe(self, images):
        batch, height, width, channels = images.shape
        grid_h, grid_w = self.tile_grid_size
        tile_h, tile_w = -(-height // grid_h), -(-width // grid_w)
        pad_h, pad_w = tile_h * grid_h - height, tile_w * grid_w - width
        padded = images if not (pad_h or pad_w) else ops.pad(
            images, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]], mode="symmetric")
        tiles = ops.reshape(padded, (batch, grid_h, tile_h, grid_w, tile_w, channels))
        tiles = ops.reshape(ops.transpose(tiles, (0, 1, 3, 5, 2, 4)),
                            (batch, grid_h, grid_w, channels, tile_h * tile_w))
        values = ops.clip(ops.cast(tiles, "int32"), 0, 255)
        hists = ops.sum(ops.one_hot(values, 256), axis=-2)
        if self.clip_limit > 0:
            limit = ops.cast(self.clip_limit * (tile_h * tile_w) / 256.0, hists.dtype)
            clipped = ops.clip(hists, 0, limit)
            hists = clipped + ops.sum(hists - clipped, axis=-1, keepdims=True) / 256.0
        cdf = ops.cumsum(hists, axis=-1)
        cdf_min = ops.min(cdf, axis=-1, keepdims=True)
        denominator = ops.cast(tile_h * tile_w, cdf.dtype) - cdf_min
        denominator = ops.where(denominator == 0, ops.ones_like(denominator), denominator)
        tables = ops.clip((cdf - cdf_min) * 255.0 / denominator, 0, 255)
        tables = ops.concatenate([tables[:, :1], tables, tables[:, -1:]], axis=1)
        tables = ops.concatenate([tables[:, :, :1], tables, tables[:, :, -1:]], axis=2)
        y0, y1, wy = _tile_coordinates(tile_h * grid_h, tile_h, grid_h)
        x0, x1, wx = _tile_coordinates(tile_w * grid_w, tile_w, grid_w)
        pixels = ops.cast(ops.clip(padded, 0, 255), "int32")
        b = ops.reshape(ops.arange(batch, dtype="int32"), (-1, 1, 1, 1))
        c = ops.reshape(ops.arange(channels, dtype="int32"), (1, 1, 1, -1))

        def read(y, x):
            return tables[b, ops.reshape(y, (1, -1, 1, 1)), ops.reshape(x, (1, 1, -1, 1)), c,
                          pixels]
        wy, wx = ops.reshape(wy, (1, -1, 1, 1)), ops.reshape(wx, (1, 1, -1, 1))
        top = read(y0, x0) * (1.0 - wx) + read(y0, x1) * wx
        bottom = read(y1, x0) * (1.0 - wx) + read(y1, x1) * wx
        result = top * (1.0 - wy) + bottom * wy
        return result[:, :height, :width, :]

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": self.value_range, "clip_limit": self.clip_limit,
                       "tile_grid_size": self.tile_grid_size})
        return config


def _tile_coordinates(size, tile, grid):
    """Indices of the two padded tile tables around each pixel row/column, and the weight
    of the second (tile centres at `tile / 2`, as Keras)."""
    position = (ops.arange(size, dtype="float32") - tile / 2.0) / tile + 1.0
    low = ops.floor(position)
    weight = position - low
    first = ops.cast(ops.clip(low, 0, grid + 1), "int32")
    second = ops.cast(ops.clip(low + 1.0, 0, grid + 1), "int32")
    return first, second, weight
