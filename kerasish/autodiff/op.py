"""The Op contract: how every differentiable primitive of kerasish is written.

An `Op` (modelled on Chainer's `FunctionNode`, with HIPS autograd's habit of
writing each gradient rule once, with differentiable ops) declares three
things:

- `forward(device, *arrays)`: the computation on raw arrays; `device.xp`
  is numpy or cupy and `device.kernel(name)` gives the backend's fused
  kernels. Returns one array or a tuple of arrays.
- `save(inputs, outputs)`: exactly what `backward` needs, as a tuple. It is
  called only when a tape records the op, and nothing else of the call is
  kept alive by the tape.
- `backward(saved, needs, grads)`: one gradient (a Tensor, or None) per input,
  **written with ops**. `needs[i]` says whether input `i` wants a gradient;
  `grads` is the output gradient (a list of them for several outputs, zeros
  standing in for outputs nobody differentiated). Because the backward is
  made of ops, an outer tape records it and higher-order gradients follow.

A fast fused gradient (array code that would not be recorded) is an Op of
its own: its `forward` is the fused array code and its `backward` again uses
ops, so the gradient formula exists once and stays differentiable (Chainer's
`Convolution2DGradW` does the same).

`Op.compute_output_spec` gives the output shape/dtype for symbolic tensors
(KerasTensors): an Op called on one returns KerasTensors from it, computing
nothing. Ops whose output is shaped like their (broadcast) inputs, with the
first input's dtype, inherit the default; every other Op defines its rule.

Calling an Op instance runs it: `op(*tensors)` computes, wraps the result in
Tensors and records one tape node when a tape watches an input.
"""
from kerasish.autodiff import recording
from kerasish.autodiff.keras_tensor import KerasTensor, NoShapeRule
from kerasish.autodiff.tensor import Tensor, Variable


class Op:
    """Base class of every differentiable primitive.

    Subclasses set `name` and define `forward`, and (when differentiable)
    `save` and `backward`. Parameters that are not tensors (an axis, a
    shape) are attributes of the instance, set in `__init__`.

    Attributes:
        name: the op's name (used in error messages and tape nodes).
        differentiable: False for ops without a gradient (never recorded).

    Example:
        >>> class Cube(keras.ops.Op):
        ...     name = "cube"
        ...     def forward(self, device, x):
        ...         return x * x * x
        ...     def save(self, inputs, outputs):
        ...         return inputs
        ...     def backward(self, saved, needs, g):
        ...         (x,) = saved
        ...         return (g * 3.0 * x * x,)
        >>> Cube()(keras.ops.convert_to_tensor(2.0))   # 8.0
    """

    name = "op"
    differentiable = True
    elementwise = False  # True: the default shape rule (broadcast inputs) is right

    def forward(self, device, *arrays):
        """Computes the outputs from raw arrays.

        Args:
            device: the inputs' `Device` (`device.xp` is numpy or cupy).
            *arrays: the inputs' raw arrays.

        Returns:
            one array, or a tuple of arrays for several outputs.
        """
        raise NotImplementedError(f"Op '{self.name}' does not define forward().")

    def save(self, inputs, outputs):
        """What `backward` needs (called only while a tape records the op).

        Args:
            inputs: the input Tensors.
            outputs: the output Tensors.

        Returns:
            tuple handed to `backward` as `saved`.
        """
        return ()

    def backward(self, saved, needs, grads):
        """Input gradients from output gradients, written with ops.

        Args:
            saved: the tuple `save` returned.
            needs: tuple of bools, one per input: does it want a gradient.
            grads: the output gradient (a list of them for several outputs).

        Returns:
            a sequence with one Tensor (or None) per input.
        """
        raise NotImplementedError(f"Op '{self.name}' does not define backward().")

    def compute_output_spec(self, *specs):
        """Output (shape, dtype) from input (shape, dtype) pairs, for symbolic tensors.

        The default, for ops marked `elementwise`, broadcasts the input shapes
        and takes the first input's dtype; other ops override it (without a
        rule, `NoShapeRule` is raised). Unknown dimensions are None and stay None.

        Args:
            *specs: one (shape, dtype) pair per input.

        Returns:
            (shape, dtype), or a list of them for several outputs.
        """
        if not self.elementwise:
            raise NoShapeRule(f"Op '{self.name}' has no shape rule for symbolic inputs.")
        return broadcast_shapes(*[s for s, _ in specs]), specs[0][1]

    def __call__(self, *inputs):  # `apply`, inlined: this runs once per op
        try:
            dev = inputs[0]._device
            n = len(inputs)
            if n == 1:
                result = self.forward(dev, inputs[0]._value)
            elif n == 2:
                result = self.forward(dev, inputs[0]._value, inputs[1]._value)
            else:
                result = self.forward(dev, *[x._value for x in inputs])
        except AttributeError:  # a KerasTensor has no `_device`/`_value`: no cost otherwise
            if any(x.__class__ is KerasTensor for x in inputs):
                return self.symbolic_call(*inputs)
            raise
        if inputs[0].__class__ is Variable:  # a view of a variable must not follow it
            result = _detached(result, inputs[0]._value)
        if type(result) is tuple:
            outputs = tuple([Tensor(r, dev) for r in result])
            if recording._active and self.differentiable:
                recording.record_op(self, inputs, outputs)
            return outputs
        out = Tensor(result, dev)
        if recording._active and self.differentiable:
            recording.record_op(self, inputs, (out,))
        return out

    def symbolic_call(self, *inputs):
        """The op on symbolic inputs: KerasTensors described by `compute_output_spec`.

        Args:
            *inputs: Tensors and KerasTensors.

        Returns:
            a KerasTensor, or a tuple of them for several outputs.
        """
        spec = self.compute_output_spec(*[(tuple(x.shape), x.dtype) for x in inputs])
        if isinstance(spec, list):
            return tuple(KerasTensor(shape, dtype) for shape, dtype in spec)
        return KerasTensor(*spec)

    def __repr__(self):
        return f"<Op {self.name}>"


def _detached(result, source):
    """`result`, with any array that is a view of `source` (a Variable's array) copied:
    a variable is updated in place, and TF's slices, reshapes and transposes of a variable
    are new tensors that keep the value read (a view here would change with it)."""
    if type(result) is tuple:
        return tuple(_detached(r, source) for r in result)
    base = getattr(result, "base", None)
    if base is not None and (base is source or base is getattr(source, "base", None)
                             or result is source):
        return result.copy()
    return result


def apply(op, inputs):
    """Runs `op` on Tensors that share a device; records it when a tape watches an input.

    Args:
        op: an Op.
        inputs: sequence of Tensors (on one device).

    Returns:
        the output Tensor, or a tuple of them.
    """
    return op(*inputs)


def broadcast_shapes(*shapes):
    """numpy broadcasting of shapes that may hold None (unknown) dimensions.

    Args:
        *shapes: tuples of ints or None.

    Returns:
        the broadcast shape (None where unknown).

    Raises:
        ValueError: when two known dimensions differ and neither is 1.
    """
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for i in range(ndim):
        dims = [s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(f"Shapes {', '.join(str(tuple(s)) for s in shapes)} do not broadcast.")
        if known:
            result.append(known.pop())
        elif any(d is None for d in dims):
            result.append(None)
        else:
            result.append(1)
    return tuple(result)
