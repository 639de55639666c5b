"""AdaptiveMaxPooling1D: maxima over adaptive windows to a fixed 1-D output size."""
from kerasish.layers.pooling.base_adaptive_pooling import BaseAdaptivePooling


class AdaptiveMaxPooling1D(BaseAdaptivePooling):
    """Adaptive max pooling of 1-D inputs to `output_size` (Keras 3.15's windows).

    Args:
        output_size: int or 1 ints, the spatial output size.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.AdaptiveMaxPooling1D(4)(np.ones((2, 10, 3))).shape
        (2, 4, 3)
    """

    rank = 1
    mode = "max"
