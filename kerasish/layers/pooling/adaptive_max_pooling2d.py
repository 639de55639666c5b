"""AdaptiveMaxPooling2D: maxima over adaptive windows to a fixed 2-D output size."""
from kerasish.layers.pooling.base_adaptive_pooling import BaseAdaptivePooling


class AdaptiveMaxPooling2D(BaseAdaptivePooling):
    """Adaptive max pooling of 2-D inputs to `output_size` (Keras 3.15's windows).

    Args:
        output_size: int or 2 ints, the spatial output size.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.AdaptiveMaxPooling2D(4)(np.ones((2, 10, 9, 3))).shape
        (2, 4, 4, 3)
    """

    rank = 2
    mode = "max"
