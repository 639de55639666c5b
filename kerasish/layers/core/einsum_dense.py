"""EinsumDense: a dense layer whose contraction is an einsum equation (Keras 3 semantics)."""
import math
import re

from kerasish import activations, constraints, initializers, ops, regularizers
from kerasish.initializers.random_initializers import VarianceScaling
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.lora_unsupported import LoRAUnsupported
from kerasish.utils import registry

_FORMS = (
    (r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", False),
    (r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", True),
    (r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", False),
)


def analyze_equation(equation, bias_axes, input_shape, output_shape):
    """Kernel shape, bias shape and full output shape of an EinsumDense equation.

    Args:
        equation: "ab,bc->ac", "...b,bc->...c" or "ab...,bc->ac...".
        bias_axes: letters of the output that get a bias, or None.
        input_shape: the full input shape (batch first).
        output_shape: the output shape without the batch axis (None for
            axes known from the input).

    Returns:
        `(kernel_shape, bias_shape, full_output_shape, input_axes, output_axes)`
        where the axes lists say which kernel axes face the input and the
        output (used for fan computations).

    Example:
        >>> analyze_equation("abc,cd->abd", "d", (None, 3, 4), (3, 5))[:3]
        ([4, 5], [5], [None, 3, 5])
    """
    replaced = equation.replace("...", "0")
    for pattern, left_elided in _FORMS:
        found = re.match(pattern, replaced)
        if found:
            return _analyze(found.groups(), bias_axes, tuple(input_shape), output_shape,
                            left_elided)
    raise ValueError(
        f"Invalid einsum equation '{equation}'. Equations must be in the form "
        "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _analyze(specs, bias_axes, input_shape, output_shape, left_elided):
    input_spec, weight_spec, output_spec = specs
    elided = len(input_shape) - len(input_spec)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        output_shape.extend(input_shape[len(input_shape) - elided:])
    offset = elided if left_elided else 0
    in_pos = {c: i + offset - (len(input_shape) if left_elided else 0)
              for i, c in enumerate(input_spec)}
    out_pos = {c: i + offset for i, c in enumerate(output_spec)}
    for c in input_spec:
        if c in out_pos:
            have, want = input_shape[in_pos[c]], output_shape[out_pos[c]]
            if want is not None and want != have:
                raise ValueError(
                    f"Input shape and output shape do not match at shared "
                    f"dimension '{c}'. Input shape is {have}, and output shape is {want}.")
    for c in output_spec:
        if c not in input_spec and c not in weight_spec:
            raise ValueError(
                # Keras's words: it names the output spec as the weight spec
                f"Dimension '{c}' was specified in the output '{output_spec}' but "
                f"has no corresponding dim in the input spec '{input_spec}' or weight spec "
                f"'{output_spec}'")
    kernel_shape, input_axes, output_axes = [], [], []
    for i, c in enumerate(weight_spec):
        if c in out_pos:
            kernel_shape.append(output_shape[out_pos[c]])
            output_axes.append(i)
        elif c in in_pos:
            kernel_shape.append(input_shape[in_pos[c]])
            input_axes.append(i)
        else:
            raise ValueError(
                f"Weight dimension '{c}' did not have a match in either the input "
                f"spec '{input_spec}' or the output spec '{output_spec}'. For this layer, the "
                "weight must be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        sizes = {c: output_shape[i + offset] for i, c in enumerate(output_spec)}
        for c in bias_axes:
            if c not in output_spec:
                raise ValueError(f"Bias dimension '{c}' was requested, but is not "
                                 f"part of the output spec '{output_spec}'")
        first = min(output_spec.find(c) for c in bias_axes)
        bias_shape = [sizes[c] if c in bias_axes else 1 for c in output_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * max(elided, 0))
    return kernel_shape, bias_shape, output_shape, input_axes, output_axes


class EinsumDense(LoRAUnsupported, Layer):
    """A dense layer of arbitrary dimensionality: `einsum(equation, inputs, kernel) + bias`.

    Args:
        equation: the einsum equation, e.g. "ab,bc->ac" (a Dense layer),
            "abc,cde->abde" (a multi-head projection) or "...b,bc->...c".
            The first operand is the input, the second the kernel.
        output_shape: the output shape without the batch axis; None where an
            axis comes from the input. An int means a one-axis output.
        activation: activation function or name (None: linear).
        bias_axes: letters of the output that carry a bias (None: no bias).
        kernel_initializer, bias_initializer: initializers; variance-scaling
            kernels use the einsum's input and output axes for the fans, as
            in Keras 3.15.
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.

    Input shape: matches the equation's input spec.
    Output shape: `(batch,) + output_shape` (None entries filled from the input).

    Example:
        >>> layer = keras.layers.EinsumDense("abc,cde->abde", output_shape=(None, 4, 8),
        ...                                  bias_axes="de")
        >>> layer(np.ones((2, 5, 16))).shape
        (2, 5, 4, 8)
    """

    # Keras saves only these (its `variable_serialization_spec`), not a subclass's extras.
    _serialized_variables = ("kernel", "bias")

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 gptq_unpacked_column_size=None, quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        if lora_rank is not None or quantization_config is not None:
            raise NotImplementedError(
                "EinsumDense: LoRA (`lora_rank`) and quantization (`quantization_config`) are "
                "not supported by kerasish.")
        if not isinstance(equation, str):
            raise ValueError(f"EinsumDense: `equation` must be a string; got {equation!r}.")
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) \
            else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.lora_rank = None
        self.lora_alpha = None
        self.supports_masking = False
        self._plan = None

    def build(self, input_shape):
        kernel_shape, bias_shape, _, input_axes, output_axes = analyze_equation(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape)
        self.input_spec = InputSpec(ndim=len(input_shape))
        self.kernel = self.add_weight(
            name="kernel", shape=tuple(kernel_shape),
            initializer=self._kernel_init(kernel_shape, input_axes, output_axes),
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None
        if bias_shape is not None:
            self.bias = self.add_weight(
                name="bias", shape=tuple(bias_shape), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def _kernel_init(self, kernel_shape, input_axes, output_axes):
        """Variance scaling with fans over the einsum's input/output kernel axes (Keras 3.15)."""
        init = self.kernel_initializer
        if not isinstance(init, VarianceScaling):
            return init
        fan_in = math.prod(kernel_shape[i] for i in input_axes)
        fan_out = math.prod(kernel_shape[i] for i in output_axes)

        def draw(shape, dtype=None):
            # Samples are independent, so drawing them for a (fan_in, fan_out) matrix and
            # reshaping gives Keras's distribution for this kernel.
            return ops.reshape(init((fan_in, fan_out), dtype=dtype), shape)
        return draw

    def call(self, inputs, training=None):
        if self._plan is None or self._plan[0] != inputs.ndim:
            self._plan = (inputs.ndim, _matmul_plan(self.equation, inputs.ndim))
        plan = self._plan[1]
        x = _project(inputs, self.kernel, plan) if plan is not None \
            else ops.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            x = ops.add(x, self.bias)
        if self.activation is not None:
            x = self.activation(x)
        return x

    def compute_output_shape(self, input_shape):
        return tuple(analyze_equation(self.equation, self.bias_axes, input_shape,
                                      self.partial_output_shape)[2])

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)  # placed where Keras puts it, below
        config.update({
            "output_shape": self.partial_output_shape,
            "equation": self.equation,
            "activation": activations.serialize(self.activation),
            "bias_axes": self.bias_axes,
            "kernel_initializer": registry.serialize_keras_object(self.kernel_initializer),
            "bias_initializer": registry.serialize_keras_object(self.bias_initializer),
            "kernel_regularizer": registry.serialize_keras_object(self.kernel_regularizer),
            "bias_regularizer": registry.serialize_keras_object(self.bias_regularizer),
            "activity_regularizer": registry.serialize_keras_object(self.activity_regularizer),
            "kernel_constraint": registry.serialize_keras_object(self.kernel_constraint),
            "bias_constraint": registry.serialize_keras_object(self.bias_constraint),
            "quantization_config": None,
        })  # Keras 3.15.1 adds lora_rank/lora_alpha/gptq keys only when they are set
        return config


def _matmul_plan(equation, ndim):
    """How to run the einsum as transpose -> 2-D matmul -> reshape -> transpose.

    Returns None when the equation has letters shared by input, kernel and
    output, or summed on one side only (then plain `ops.einsum` is used).
    """
    lhs, out = equation.split("->")
    inp, ker = lhs.split(",")
    if "..." in inp:
        free = ndim - (len(inp) - 3)
        letters = "".join(c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in equation)[:free]
        inp, out = inp.replace("...", letters), out.replace("...", letters)
    if len(set(inp)) != len(inp) or len(set(ker)) != len(ker) or len(set(out)) != len(out):
        return None
    contracted = [c for c in inp if c in ker and c not in out]
    kept = [c for c in inp if c in out and c not in ker]
    new = [c for c in ker if c in out and c not in inp]
    if len(contracted) + len(kept) != len(inp) or len(contracted) + len(new) != len(ker) \
            or len(kept) + len(new) != len(out):
        return None
    in_perm = [inp.index(c) for c in kept + contracted]
    ker_perm = [ker.index(c) for c in contracted + new]
    mid = kept + new
    out_perm = [mid.index(c) for c in out]
    return in_perm, ker_perm, len(kept), len(contracted), out_perm


def _project(x, kernel, plan):
    in_perm, ker_perm, n_kept, n_contracted, out_perm = plan
    if in_perm != sorted(in_perm):
        x = ops.transpose(x, in_perm)
    if ker_perm != sorted(ker_perm):
        kernel = ops.transpose(kernel, ker_perm)
    kept_shape = tuple(x.shape[:n_kept])
    new_shape = tuple(kernel.shape[n_contracted:])
    width = math.prod(x.shape[n_kept:])
    y = ops.matmul(ops.reshape(x, (-1, width)), ops.reshape(kernel, (width, -1)))
    y = ops.reshape(y, kept_shape + new_shape)
    if out_perm != sorted(out_perm):
        y = ops.transpose(y, out_perm)
    return y
