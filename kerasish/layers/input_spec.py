"""InputSpec: what a layer accepts, checked on every call."""


class InputSpec:
    """Describes the rank, dtype and some axis sizes a layer accepts.

    Args:
        dtype: expected dtype, or None.
        shape: full expected shape (None entries match anything).
        ndim, max_ndim, min_ndim: expected rank constraints.
        axes: dict of axis -> expected size.
        allow_last_axis_squeeze: accept a missing trailing axis of size 1.

    Example:
        >>> InputSpec(min_ndim=2, axes={-1: 784})
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = dtype
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = optional

    def __repr__(self):
        return (f"InputSpec(dtype={self.dtype}, shape={self.shape}, ndim={self.ndim}, "
                f"max_ndim={self.max_ndim}, min_ndim={self.min_ndim}, axes={self.axes})")


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raises ValueError when `inputs` (tensors/shapes) do not fit `input_spec`."""
    if input_spec is None:
        return
    specs = input_spec if isinstance(input_spec, (list, tuple)) else [input_spec]
    tensors = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    if len(specs) != len(tensors):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(tensors)} input tensors."
        )
    for index, (spec, x) in enumerate(zip(specs, tensors)):
        if spec is not None and x is not None:
            _check_one(spec, tuple(x.shape), index, layer_name)


def _check_one(spec, shape, index, layer_name):
    prefix = f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
    rank = len(shape)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
        raise ValueError(prefix + f"expected ndim={spec.ndim}, found ndim={rank}. "
                         f"Full shape received: {shape}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ValueError(prefix + f"expected max_ndim={spec.max_ndim}, found ndim={rank}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ValueError(prefix + f"expected min_ndim={spec.min_ndim}, found ndim={rank}. "
                         f"Full shape received: {shape}")
    for axis, value in spec.axes.items():
        if value is None:
            continue
        if not -rank <= axis < rank:
            raise ValueError(prefix + f"expected axis {axis} to exist, but received input "
                             f"with shape {shape}")
        if shape[axis] not in (value, None):
            raise ValueError(prefix + f"expected axis {axis} of input shape to have value "
                             f"{value}, but received input with shape {shape}")
    if spec.shape is not None:
        for expected, got in zip(spec.shape, shape):
            if expected is not None and got is not None and expected != got:
                raise ValueError(prefix + f"expected shape={spec.shape}, found shape={shape}")
