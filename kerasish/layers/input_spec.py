"""InputSpec: what a layer accepts, checked on every call."""
from kerasish.layers import call_utils
from kerasish.utils import tree



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

    def get_config(self):
        """The constructor arguments Keras records (dtype, shape, ranks, axes, optional)."""
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes,
                "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        """An InputSpec from `get_config()`'s output."""
        return cls(**config)

    def __repr__(self):
        # As Keras: only the fields that are set (truthy).
        fields = [(name, getattr(self, name))
                  for name in ("dtype", "shape", "ndim", "max_ndim", "min_ndim", "axes")]
        return f"InputSpec({', '.join(f'{name}={value}' for name, value in fields if value)})"


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raises ValueError when `inputs` (tensors/shapes) do not fit `input_spec`.

    As Keras: a dict of inputs is matched to named specs by name; a missing
    optional input (None) passes.
    """
    if input_spec is None:
        return
    specs = list(input_spec) if isinstance(input_spec, (list, tuple)) else [input_spec]
    if isinstance(inputs, dict):
        names = [getattr(spec, "name", None) for spec in specs]
        if specs and all(names):
            for name in names:
                if name not in inputs:
                    raise ValueError(
                        f'Missing data for input "{name}". You passed a data dictionary with '
                        f"keys {list(inputs.keys())}. Expected the following keys: {names}")
            inputs = [inputs[name] for name in names]
        else:
            inputs = tree.flatten(inputs)
    tensors = tree.flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(specs) != len(tensors):
        names = [spec.name for spec in specs if spec is not None]
        if len(names) == len(specs) and all(names):
            raise ValueError(
                f'Layer "{layer_name}" expects {len(specs)} named input(s) with keys {names}, '
                f"but it received {len(tensors)} input tensors. Pass inputs as a dict, e.g. "
                "`layer({" + ", ".join(f"'{n}': ..." for n in names) + "})`.")
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(tensors)} input tensors."
        )
    for index, (spec, x) in enumerate(zip(specs, tensors)):
        if spec is not None and x is not None:
            # (inside fit/evaluate's traced step, Keras checks the traced shape)
            _check_one(spec, call_utils.traced_shape(x.shape), index, layer_name)


def _check_one(spec, shape, index, layer_name):
    prefix = (f"Input {index} with name '{spec.name}' of layer '{layer_name}' "
              "is incompatible with the layer: ")  # Keras 3.15.1's words
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
        expected_shape = spec.shape
        if spec.allow_last_axis_squeeze:
            # A trailing axis of size 1 may be missing on either side; other rank
            # differences are left to the caller (a functional model's own error).
            if rank == len(expected_shape) + 1 and shape[-1] == 1:
                shape = shape[:-1]
            elif len(expected_shape) == rank + 1 and expected_shape[-1] == 1:
                expected_shape = expected_shape[:-1]
        for expected, got in zip(expected_shape, shape):
            if expected is not None and got is not None and expected != got:
                raise ValueError(prefix + f"expected shape={spec.shape}, found shape={shape}")
