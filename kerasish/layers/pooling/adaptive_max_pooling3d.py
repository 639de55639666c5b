"""AdaptiveMaxPooling3D: maxima over adaptive windows to a fixed 3-D output size."""
from kerasish.layers.pooling.base_adaptive_pooling import BaseAdaptivePooling


class AdaptiveMaxPooling3D(BaseAdaptivePooling):
    """Adaptive max pooling of 3-D inputs to `output_size` (Keras 3.15's windows).

    Args:
        output_size: int or 3 ints, the spatial output size.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.AdaptiveMaxPooling3D(4)(np.ones((1, 6, 6, 6, 2))).shape
        (1, 4, 4, 4, 2)
    """

    rank = 3
    mode = "max"
