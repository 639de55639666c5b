"""The optimizer base class: Keras 3's update pipeline on in-place kernels.

`apply(grads, variables)` runs Keras 3's pipeline (`BaseOptimizer.apply`):
drop None gradients, unscale by `loss_scale_factor`, then (on update steps
when accumulating gradients) clip, apply decoupled weight decay, run
`update_step` per variable, update the EMA, apply constraints and count
the iteration. Updates write `Variable._value` in place through the device's
fused kernels (`device.kernel("adam_update")`), so nothing is recorded on a
tape and no numpy/cupy branch appears here.

Per-step scalars (learning rate, bias corrections) are 0-d arrays on the
variables' device, computed in the variable's dtype with the same float
operations as Keras, so training never waits on a device-to-host copy.
"""
import contextlib
import functools
import numbers
import re
import warnings

import numpy as np

from kerasish.autodiff import capture, indexed_slices, stateless_scope
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish import ops
from kerasish.backend import config, devices, keras_graph
from kerasish.backend.kernels import eigen_math
from kerasish.distribute import distribute_lib
from kerasish.ops import core
from kerasish.optimizers import row_updates
from kerasish.optimizers.schedules import learning_rate_schedule
from kerasish.utils import naming


def _check_arguments(clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
                     ema_overwrite_frequency, gradient_accumulation_steps):
    """Validates the common constructor arguments (Keras's errors, in Keras's order)."""
    if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
        raise ValueError(
            "`gradient_accumulation_steps` must be an integer >= 2. Received: "
            f"gradient_accumulation_steps={gradient_accumulation_steps}"
        )
    if use_ema:
        if ema_momentum > 1 or ema_momentum < 0:
            raise ValueError(
                "`ema_momentum` must be in the range [0, 1]. "
                f"Received: ema_momentum={ema_momentum}"
            )
        if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                        or ema_overwrite_frequency < 1):
            raise ValueError(
                "`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                f"ema_overwrite_frequency={ema_overwrite_frequency}"
            )
    if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
        raise ValueError(
            "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. "
            f"Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
            f"global_clipnorm={global_clipnorm}"
        )


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


# The optimizers whose `build` runs inside their name scope, outermost first (Keras's
# `name_scope` stack as far as optimizer variables see it).
_NAME_SCOPES = []
_TRACED_BUILDS = []  # per entry of _NAME_SCOPES: built for a traced (graph-mode) train step
_TRACKING = [True]  # Keras's automatic (attribute) tracking; off in `no_automatic_tracking`


@contextlib.contextmanager
def no_automatic_tracking():
    """Keras's `no_automatic_dependency_tracking`: Variables set as attributes (or made
    bare in `build`) are not added to `variables` inside it."""
    previous, _TRACKING[0] = _TRACKING[0], False
    try:
        yield
    finally:
        _TRACKING[0] = previous


class BaseOptimizer:
    """Abstract optimizer: the shared update pipeline of every optimizer.

    Subclasses override `build` (create slots with `add_optimizer_variables`),
    `update_step(gradient, variable, learning_rate)` and `get_config`.
    A custom `update_step` may use `kerasish.ops` with `self.assign`,
    `self.assign_add` and `self.assign_sub`, exactly as in Keras.

    Args:
        learning_rate: float, a `LearningRateSchedule`, or a callable taking
            no arguments and returning the learning rate.
        weight_decay: float or None; decoupled decay `var -= var * wd * lr`
            applied before each update.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to [-clipvalue, clipvalue].
        global_clipnorm: clip all gradients jointly to this global L2 norm.
        use_ema: keep an exponential moving average of the variables.
        ema_momentum: the EMA momentum (default 0.99).
        ema_overwrite_frequency: every this many steps, overwrite the
            variables with their average (None: only in
            `finalize_variable_values`).
        loss_scale_factor: gradients are divided by it before anything else.
        gradient_accumulation_steps: int >= 2; update only every N steps
            with the mean of the accumulated gradients.
        name: the optimizer's name (default: the snake-case class name).

    Example:
        >>> class PlainSGD(keras.optimizers.Optimizer):
        ...     def update_step(self, gradient, variable, learning_rate):
        ...         self.assign_sub(variable, keras.ops.multiply(gradient, learning_rate))
        >>> opt = PlainSGD(learning_rate=0.1)
    """

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.")
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        # Keras names the optimizer first: a rejected one still takes its auto name.
        self.name = name if name is not None else naming.auto_name(type(self).__name__)
        _check_arguments(clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
                         ema_overwrite_frequency, gradient_accumulation_steps)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.global_clipnorm = global_clipnorm
        self.clipvalue = clipvalue
        self.use_ema = use_ema
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        self._trainable_variables = []
        self._trainable_variables_indices = {}
        self._step_cache = None
        self._step_slices = {}  # {id(variable): IndexedSlices} of this step's lookup gradients
        self._variables = []  # from here on, Variable attributes are tracked
        # Keras (TensorFlow backend) makes it dtype "int", i.e. int64.
        self._iterations = self._new_variable(0, "int64", "iteration")
        self._learning_rate = self._make_learning_rate(learning_rate)
        distribute_lib.on_optimizer_created(self)

    # Variable tracking -------------------------------------------------------
    def __setattr__(self, name, value):
        if isinstance(value, Variable) and "_variables" in self.__dict__ and _TRACKING[0]:
            self._track_variable(value)
        object.__setattr__(self, name, value)

    def _track_bare_variable(self, variable):
        """Tracks a Variable that Keras tracks only through an attribute or a list.

        Keras's automatic tracking is off inside `LossScaleOptimizer.build`
        (`no_automatic_dependency_tracking`), so an inner optimizer's bare
        Variables (Nadam's `u_product`, Adafactor's placeholders) are then not
        among its `variables`; `add_variable` slots always are.
        """
        if _TRACKING[0]:
            self._track_variable(variable)

    def _track_variable(self, variable):
        if not any(v is variable for v in self._variables):
            self._variables.append(variable)

    def _untrack_variable(self, variable):
        self._variables = [v for v in self._variables if v is not variable]

    def _new_variable(self, value, dtype, name, device=None):
        """A non-trainable Variable named `<optimizer>/<name>` (not yet tracked)."""
        with devices.device(device or devices.current_device()):
            variable = Variable(value, dtype=dtype, trainable=False, name=name,
                                aggregation="only_first_replica")
        variable.path = f"{self.name}/{name}"
        return variable

    def _make_learning_rate(self, learning_rate):
        if isinstance(learning_rate, learning_rate_schedule.LearningRateSchedule) or (
                callable(learning_rate) and not isinstance(learning_rate, Tensor)):
            return learning_rate
        if not isinstance(learning_rate, float):  # Keras: an int or np.float32 is refused
            raise ValueError(
                "Argument `learning_rate` should be float, or an instance of "
                "LearningRateSchedule, or a callable (that takes in the current "
                "iteration value and returns the corresponding learning rate value). "
                f"Received instead: learning_rate={learning_rate}"
            )
        return self._new_variable(float(learning_rate), config.floatx(), "learning_rate")

    @property
    def variables(self):
        """All optimizer variables in Keras's order: iteration, learning_rate, slots."""
        return self._variables[:]

    @property
    def iterations(self):
        """The step counter (int Variable); divided by the accumulation steps if any."""
        if self.gradient_accumulation_steps:
            return ops.floor_divide(self._iterations, self.gradient_accumulation_steps)
        return self._iterations

    # Learning rate -----------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate: a float Variable, or the schedule's value now."""
        if isinstance(self._learning_rate, learning_rate_schedule.LearningRateSchedule):
            return self._learning_rate(self._iterations)
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        return self._learning_rate()

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        previous = self._learning_rate if isinstance(self._learning_rate, Variable) else None
        if isinstance(learning_rate, learning_rate_schedule.LearningRateSchedule) or (
                callable(learning_rate) and not isinstance(learning_rate, Tensor)):
            self._learning_rate = learning_rate
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(learning_rate)
        elif isinstance(self._learning_rate, learning_rate_schedule.LearningRateSchedule):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its "
                "`learning_rate` constructor argument, hence its learning rate is not "
                "settable. If you need the learning rate to be settable, you should "
                "instantiate the optimizer with a float `learning_rate` argument."
            )
        else:  # a plain callable: Keras calls its (missing) `assign`
            raise AttributeError(
                f"'{type(self._learning_rate).__name__}' object has no attribute 'assign'")
        if previous is not None and not isinstance(self._learning_rate, Variable):
            self._untrack_variable(previous)

    # Building ----------------------------------------------------------------
    def build(self, variables):
        """Creates the optimizer's per-variable state for `variables`.

        Subclasses call `super().build(variables)` first, then create their
        slots with `add_optimizer_variables`.

        Args:
            variables: list of the model Variables this optimizer will update.
        """
        variables = list(variables)
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(
                variables, "average")
        if self.gradient_accumulation_steps:
            self._accumulated_gradients = [
                self.add_variable_from_reference(v, "gradient_accumulator") for v in variables]
        self._trainable_variables_indices = {id(v): i for i, v in enumerate(variables)}
        self._trainable_variables = variables
        self.built = True

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none",
                     layout=None, name=None):
        """Creates and tracks a non-trainable optimizer Variable on the current device.

        Args:
            shape: the shape.
            initializer: "zeros", "ones", a number, or an initializer
                (name or callable taking shape and dtype).
            dtype: dtype name (default floatx).
            aggregation: replica aggregation mode.
            layout: accepted for Keras compatibility (unused).
            name: the variable's name; its path is `<optimizer name>/<name>`.

        Returns:
            Variable: the new variable.
        """
        dtype = config.standardize_dtype(dtype or config.floatx())
        shape = tuple(shape)
        if isinstance(initializer, str) and initializer in ("zeros", "ones"):
            initializer = 0 if initializer == "zeros" else 1
        if _is_number(initializer):
            initializer = np.full(shape, initializer, dtype=config.to_numpy_dtype(dtype))
            shape = None
        variable = Variable(initializer, shape=shape, dtype=dtype, trainable=False,
                            aggregation=aggregation, name=name)
        variable.path = self._scoped_path(variable.name)
        self._track_variable(variable)
        return variable

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """Creates a slot like `reference_variable` (shape, dtype, device).

        The slot is named `<reference path with / replaced by _>_<name>`,
        e.g. `dense_kernel_momentum`, as in Keras.

        Args:
            reference_variable: the model Variable.
            name: the slot's suffix (default "var").
            initializer: as in `add_variable` (default zeros).

        Returns:
            Variable: the slot.
        """
        name = name or "var"
        base = getattr(reference_variable, "path", None) or str(reference_variable.name)
        slot_name = base.replace("/", "_").replace(":", "_") + "_" + name
        with devices.device(reference_variable._device):
            return self.add_variable(reference_variable.shape, initializer=initializer,
                                     dtype=reference_variable.dtype, name=slot_name)

    def add_optimizer_variables(self, trainable_variables, name, initializer="zeros"):
        """Creates slots for every variable, interleaved per variable as Keras.

        Args:
            trainable_variables: the model Variables.
            name: a slot suffix, or a list of suffixes (then one list per suffix,
                created variable by variable: `a_momentum, a_velocity, b_momentum...`).
            initializer: one initializer, or a list with one per name.

        Returns:
            list of Variables, or a tuple of such lists when `name` is a list.
        """
        names = [name] if isinstance(name, str) else list(name)
        inits = (list(initializer) if isinstance(initializer, (list, tuple))
                 else [initializer] * len(names))
        if len(inits) != len(names):
            raise ValueError(
                "The number of provided names must match the number of provided "
                f"initializers. Received name='{name}', initializer='{initializer}'"
            )
        slots = tuple([] for _ in names)
        for variable in trainable_variables:
            overwritten = self._overwrite_variable_with_gradient(variable)
            for i, (suffix, init) in enumerate(zip(names, inits)):
                slots[i].append(None if overwritten else
                                self.add_variable_from_reference(variable, suffix, init))
        return slots[0] if isinstance(name, str) else slots

    @staticmethod
    def _overwrite_variable_with_gradient(variable):
        """Whether `variable` is set to its gradient (it then gets no slots: `None`)."""
        return getattr(variable, "overwrite_with_gradient", False)

    def _build_in_name_scope(self, variables, traced=False):
        """`build` as `apply` (and Keras's TensorFlow trainer) runs it: in the name scope.

        Keras's `apply` builds inside `name_scope(self.name)`, so what `build`
        creates is pathed under every enclosing optimizer scope: a
        LossScaleOptimizer's inner slots are `loss_scale_optimizer/adam/...`,
        and a bare `Variable(...)` made in `build` (Nadam's `u_product`,
        Adafactor's placeholders) is `<optimizer>/<name>`. Built directly,
        slots are `adam/...` and bare Variables keep their own name.

        Args:
            variables: the model Variables.
            traced: the trainer builds for a graph-mode step (see `_in_traced_build`).
        """
        _NAME_SCOPES.append(self)
        _TRACED_BUILDS.append(traced)
        try:
            self.build(variables)
        finally:
            _NAME_SCOPES.pop()
            _TRACED_BUILDS.pop()

    @staticmethod
    def _in_traced_build():
        """Whether this `build` runs where Keras would trace it into a `tf.function`.

        Keras's TensorFlow trainer (not `run_eagerly`) builds an unbuilt
        optimizer inside the first traced train step; an `assign` that `build`
        makes there never reaches the variable (ScheduleFreeAdamW's copy of the
        weights into its `momentum` slot stays zeros).
        """
        return bool(_TRACED_BUILDS) and _TRACED_BUILDS[-1]

    def _scoped_path(self, name):
        """`name` under the enclosing build scopes and this optimizer's (added once)."""
        scopes = [o.name for o in _NAME_SCOPES]
        if not (_NAME_SCOPES and _NAME_SCOPES[-1] is self):
            scopes.append(self.name)
        return "/".join(scopes + [name])

    def _bare_path(self, variable):
        """The path Keras gives a `Variable` made directly in `build`."""
        return "/".join([o.name for o in _NAME_SCOPES] + [variable.name])

    def _get_variable_index(self, variable):
        return self._trainable_variables_indices[id(variable)]

    def _check_variables_are_known(self, variables):
        for v in variables:
            if id(v) not in self._trainable_variables_indices:
                # inside Keras's traced step a Variable prints without its value
                shown = (f"<Variable path={v.path}, shape={v.shape}, dtype={v.dtype}>"
                         if keras_graph.active() else repr(v))
                raise ValueError(
                    f"Unknown variable: {shown}. This optimizer can only be called for "
                    "the variables it was originally built with. When working with a "
                    "new set of variables, you should recreate a new optimizer instance."
                )

    # Variable helpers for custom update_step ---------------------------------
    def assign(self, variable, value):
        """`variable.assign(value)` (for custom `update_step` code)."""
        variable.assign(value)

    def assign_add(self, variable, value):
        """`variable.assign_add(value)` (for custom `update_step` code)."""
        variable.assign_add(value)

    def assign_sub(self, variable, value):
        """`variable.assign_sub(value)` (for custom `update_step` code)."""
        variable.assign_sub(value)

    # Applying gradients -------------------------------------------------------
    def apply_gradients(self, grads_and_vars):
        """Applies `(gradient, variable)` pairs; builds on the first call.

        Args:
            grads_and_vars: iterable of `(gradient, variable)`; gradients may be None.

        Returns:
            Variable: the iteration counter.

        Example:
            >>> opt.apply_gradients(zip(grads, model.trainable_variables))
        """
        pairs = list(grads_and_vars)
        if pairs:
            grads, variables = zip(*pairs)
            self.apply(list(grads), list(variables))
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Updates variables from their gradients (Keras `Optimizer.apply`).

        Args:
            grads: list of gradients (Tensors, arrays or None), one per variable.
            trainable_variables: the variables; optional once the optimizer is
                built (then `grads` matches the built variable list).
        """
        grads = list(grads)
        if not grads:
            return
        if capture.tracer is not None:  # a captured step replays this call as it is
            rows = [indexed_slices.slices_of(g) for g in grads]
            extra = [a for r in rows if r is not None for a in (r.raw_values, r.ids)]

            def replay(tensors):  # the lookup gradients get their replayed rows back
                gs = tensors[:len(grads)]
                arrays = iter(t._value if isinstance(t, Tensor) else t
                              for t in tensors[len(grads):])
                for g, r in zip(gs, rows):
                    if r is not None:
                        g._indexed_slices = indexed_slices.IndexedSlices(
                            next(arrays), next(arrays), r.dense_shape)
                return self._apply(gs, trainable_variables)
            return capture.eager_call(replay, grads + extra,
                                      lambda: self._updated_state(trainable_variables))
        return self._apply(grads, trainable_variables)

    def stateless_apply(self, optimizer_variables, grads, trainable_variables):
        """One update on the given values; neither the optimizer nor the variables change.

        As Keras's: `apply(grads)` in a `StatelessScope` that maps
        `optimizer_variables` onto `self.variables` and `trainable_variables` onto the
        variables the optimizer was built for.

        Args:
            optimizer_variables: values for `self.variables`.
            grads: one gradient per built variable.
            trainable_variables: values for the built variables.

        Returns:
            `(new_trainable_values, new_optimizer_values)`.

        Example:
            >>> opt.build(model.trainable_variables)
            >>> values, state = opt.stateless_apply([v.value for v in opt.variables], grads,
            ...                                     [v.value for v in model.trainable_variables])
        """
        name = type(self).__name__
        if not self.built:
            raise ValueError(f"To call `stateless_apply`, {name} must be built (i.e. its "
                             "variables must have been created). You can build it via "
                             "`optimizer.build(trainable_variables)`.")
        if len(optimizer_variables) != len(self.variables):
            raise ValueError(
                "Argument `optimizer_variables` must be a list of tensors corresponding 1:1 "
                f"to {name}().variables. Received list with length "
                f"{len(optimizer_variables)}, but expected {len(self.variables)} variables.")
        if len(trainable_variables) != len(self._trainable_variables):
            raise ValueError(
                "Argument `optimizer_variables` must be a list of tensors corresponding 1:1 "
                f"to the trainable variables list that the optimizer was built with. Received "
                f"len(trainable_variables) == {len(trainable_variables)} whereas the optimizer "
                f"was built with {len(self._trainable_variables)} variables.")
        mapping = list(zip(self._trainable_variables, trainable_variables)) + \
            list(zip(self.variables, optimizer_variables))
        with stateless_scope.StatelessScope(state_mapping=mapping) as scope:
            self.apply(grads)

        def current(variables):
            return [scope.get_current_value(v) for v in variables]
        return current(self._trainable_variables), current(self.variables)

    def _updated_state(self, trainable_variables):
        """The optimizer's variables and the ones it updates (for capture's verification)."""
        return list(self.variables) + list(trainable_variables or self._trainable_variables)

    def _apply(self, grads, trainable_variables):
        if distribute_lib.replica_apply(self, grads, trainable_variables):
            return  # inside strategy.run: the strategy applies one summed update
        variables = self._resolve_variables(grads, trainable_variables)
        if stateless_scope.in_stateless_scope():  # the updates go to the scope's copies
            stateless_scope.protect(list(self.variables) + list(variables))
        grads, variables = self._filter_empty_gradients(grads, variables)
        self._step_slices = _gradient_rows(grads, variables)
        grads = [self._gradient_array(g, v) for g, v in zip(grads, variables)]
        grads, variables = self._overwrite_variables_with_gradients(grads, variables)
        if not variables:
            self._iterations._value += 1
            return
        if self.loss_scale_factor is not None:
            grads = [g / self.loss_scale_factor for g in grads]
            self._step_slices = {}  # TensorFlow densifies `IndexedSlices / float`
        self._step_cache = {}
        try:
            self._backend_apply_gradients(grads, variables)
        finally:
            self._step_cache = None
            self._step_slices = {}
        for variable in variables:
            if variable.constraint is not None:
                variable.assign(variable.constraint(variable))
        self._iterations._value += 1  # in place, no host-to-device copy

    def _overwrite_variables_with_gradients(self, grads, variables):
        """Sets each `overwrite_with_gradient` variable to its gradient (Keras).

        With gradient accumulation the variable takes the element-wise maximum
        of the accumulated and current gradients on the update step, and keeps
        its value (accumulating the maximum) on the others.

        Returns:
            (grads, variables) of the remaining, normally updated variables.
        """
        kept_grads, kept_variables = [], []
        steps = self.gradient_accumulation_steps
        for grad, variable in zip(grads, variables):
            if not getattr(variable, "overwrite_with_gradient", False):
                kept_grads.append(grad)
                kept_variables.append(variable)
                continue
            if not steps:
                variable.assign(grad)
                continue
            accumulator = self._accumulated_gradients[self._get_variable_index(variable)]
            largest = devices.xp_of(grad).maximum(grad, accumulator._value)
            if (self._host_iterations_raw() + 1) % steps == 0:
                variable.assign(largest)
                accumulator._value[...] = 0
            else:
                accumulator._value[...] = largest
        return kept_grads, kept_variables

    def _host_iterations_raw(self):
        """The raw step counter (before division by accumulation steps) as an int."""
        return int(devices.to_host(self._iterations._value))

    def _resolve_variables(self, grads, trainable_variables):
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must "
                    "already be built on a list of variables. Call "
                    "`optimizer.build(trainable_variables)` first. "
                )
            if len(grads) != len(self._trainable_variables):
                raise ValueError(  # Keras's words, "one-to-on" included
                    "When passing `grads` as a list of gradient tensors, the gradients "
                    "must match `optimizer.variables` one-to-on. Received a list of "
                    f"{len(grads)} gradients, but the optimizer is tracking "
                    f"{len(self._trainable_variables)} trainable variables."
                )
            return list(self._trainable_variables)
        variables = list(trainable_variables)
        if len(variables) != len(grads):
            raise ValueError(
                f"Got {len(grads)} gradients for {len(variables)} variables; "
                "they must match one-to-one."
            )
        if not self.built:
            self._build_in_name_scope(variables, traced=keras_graph.active())
            self.built = True
        self._check_variables_are_known(variables)
        return variables

    @staticmethod
    def _filter_empty_gradients(grads, variables):
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not kept:
            raise ValueError("No gradients provided for any variable.")
        if len(kept) < len(grads):
            missing = [v.path for g, v in zip(grads, variables) if g is None]
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the "
                "loss. If using `model.compile()`, did you forget to provide a `loss` argument?"
            )
        return [g for g, _ in kept], [v for _, v in kept]

    def _update_rule(self, gradient, variable, kernel_name, row_rule):
        """The update function for `gradient` and the gradient array to pass it.

        The device's dense kernel `kernel_name` (large variables in slices on
        the CPU threads, see `chunked_update`); for a lookup gradient that
        carries its rows (autodiff/indexed_slices.py), `row_rule` from
        `row_updates` with the rows bound, as Keras on TensorFlow applies it.
        """
        grad = self._gradient_array(gradient, variable)
        rows = indexed_slices.slices_of(gradient)
        chunked, dense_rule = (variable._device.kernel("chunked_update"),
                               variable._device.kernel(kernel_name))

        def kernel(param, *args):
            chunked(dense_rule, param, args)
        if rows is None:
            return kernel, grad
        return functools.partial(row_updates.dense_then_repeated_rows, kernel, row_rule,
                                 rows=rows), grad

    @staticmethod
    def _gradient_array(gradient, variable):
        """The gradient as a raw array on the variable's device, in its dtype."""
        array = core.to_array(gradient, variable._device)
        if array.shape != variable._value.shape:
            raise ValueError(
                f"Gradient of shape {tuple(array.shape)} does not match variable "
                f"'{variable.path}' of shape {variable.shape}."
            )
        return array.astype(variable._value.dtype, copy=False)

    def _backend_apply_gradients(self, grads, variables):
        """Accumulation, clipping, weight decay, update_step and EMA on raw arrays."""
        learning_rate = self.learning_rate
        if self.gradient_accumulation_steps:
            self._accumulate_or_update(grads, variables, learning_rate)
        else:
            grads = self._clip_gradients(grads, variables)
            self._apply_weight_decay(variables, learning_rate)
            self._backend_update_step(grads, variables, learning_rate)
        if self.use_ema:
            self._update_model_variables_moving_average(self._trainable_variables)
            frequency = self.ema_overwrite_frequency
            if frequency and (self._host_iterations() + 1) % frequency == 0:
                self._overwrite_model_variables_with_average_value(self._trainable_variables)

    def _host_iterations(self):
        """`iterations` as a Python int (a device read; used only for Python control)."""
        return int(devices.to_host(self.iterations._value))

    def _accumulate_or_update(self, grads, variables, learning_rate):
        self._step_slices = {}  # `(g + accumulated) / steps` is dense on TensorFlow too
        steps = self.gradient_accumulation_steps
        accumulators = [self._accumulated_gradients[self._get_variable_index(v)]
                        for v in variables]
        if (self._host_iterations_raw() + 1) % steps != 0:
            for g, acc in zip(grads, accumulators):
                acc._value += g
            return
        grads = [(g + acc._value) / steps for g, acc in zip(grads, accumulators)]
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(variables, learning_rate)
        self._backend_update_step(grads, variables, learning_rate)
        for acc in self._accumulated_gradients:
            acc._value[...] = 0

    def _backend_update_step(self, grads, variables, learning_rate):
        """Calls `update_step` for every (gradient array, variable) pair, or, where the
        optimizer has one, updates them all in one fused multi-tensor kernel call."""
        rows = self._step_slices
        if rows:  # lookup gradients go row by row through `update_step`
            for grad, variable in zip(grads, variables):
                if id(variable) in rows:
                    gradient = Tensor(grad, variable._device)
                    gradient._indexed_slices = rows[id(variable)]
                    self.update_step(gradient, variable, learning_rate)
            kept = [(g, v) for g, v in zip(grads, variables) if id(v) not in rows]
            grads, variables = [g for g, _ in kept], [v for _, v in kept]
        if variables and self._fused_update(grads, variables, learning_rate):
            return
        for grad, variable in zip(grads, variables):
            self.update_step(Tensor(grad, variable._device), variable, learning_rate)

    def _fused_update(self, grads, variables, learning_rate):
        """Updates every variable in one multi-tensor kernel call; False when not done.

        Optimizers with a multi-tensor kernel (Adam, AdamW, SGD) override it;
        they return False (and `update_step` runs per variable) when a subclass
        overrides `update_step`, or when the variables do not share one CPU
        device and dtype. The numbers are identical to the per-variable updates.

        Args:
            grads: gradient arrays, already on the variables' devices and in their
                dtypes and shapes (`_apply` made them so; not checked again).
            variables: the Variables to update in place.
            learning_rate: the current learning rate.

        Returns:
            bool: True when the variables were updated.
        """
        return False

    @staticmethod
    def _one_cpu_dtype(variables):
        """True when all `variables` live on one CPU device with one dtype."""
        first = variables[0]
        device, dtype = first._device, first._value.dtype
        return device.kind == "cpu" and all(
            v._device is device and v._value.dtype == dtype for v in variables)

    def update_step(self, gradient, variable, learning_rate):
        """Updates one variable from its gradient; every optimizer overrides it.

        Args:
            gradient: Tensor, already unscaled, clipped and cast to the
                variable's dtype.
            variable: the Variable to update in place.
            learning_rate: the current learning rate (Variable or Tensor).
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement "
            "`update_step(gradient, variable, learning_rate)`."
        )

    # Clipping, weight decay, EMA ---------------------------------------------
    def _clip_gradients(self, grads, variables=None):
        """clipnorm / global_clipnorm / clipvalue on gradient arrays (Tensors are
        read as their arrays, for subclasses that call it from their own code).
        With `variables`, lookup gradients among them are clipped as Keras on
        TensorFlow clips `IndexedSlices`."""
        grads = [g._value if isinstance(g, Tensor) else g for g in grads]
        variables = variables or [None] * len(grads)
        rows = [self._step_slices.get(id(v)) for v in variables]
        if self.clipnorm and self.clipnorm > 0:
            return [self._clip_rows(r, v, self._clip_by_norm) if r is not None
                    else self._clip_by_norm(g) for g, r, v in zip(grads, rows, variables)]
        if self.global_clipnorm and self.global_clipnorm > 0:
            self._step_slices = {}  # `IndexedSlices * norm` is dense on TensorFlow
            return _clip_by_global_norm(grads, self.global_clipnorm, rows)
        if self.clipvalue and self.clipvalue > 0:
            clip = lambda g: _clip_by_value(g, self.clipvalue)  # noqa: E731
            return [self._clip_rows(r, v, clip) if r is not None else clip(g)
                    for g, r, v in zip(grads, rows, variables)]
        return grads

    def _clip_rows(self, rows, variable, clip):
        """Clips a lookup gradient's rows (tf.clip_by_norm / clip_by_value keep the rows)."""
        rows = self._step_slices[id(variable)] = rows.with_values(clip(rows.values))
        return rows.dense()

    def _clip_by_norm(self, grad):
        """`g * clipnorm / max(||g||, clipnorm)` in the gradient's dtype."""
        xp = devices.xp_of(grad)
        clip = grad.dtype.type(self.clipnorm)
        norm = xp.sqrt(xp.sum(xp.square(grad)))
        return grad * clip / xp.maximum(norm, clip)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Excludes variables from weight decay.

        Args:
            var_list: list of Variables to exclude.
            var_names: list of strings; a variable whose name contains any of
                them (regex search) is excluded, e.g. `["bias"]`.
        """
        self._exclude_from_weight_decay = {id(v) for v in var_list or []}
        self._exclude_from_weight_decay_pattern = (
            re.compile("|".join(set(var_names))) if var_names else None)

    def _use_weight_decay(self, variable):
        if id(variable) in getattr(self, "_exclude_from_weight_decay", set()):
            return False
        pattern = getattr(self, "_exclude_from_weight_decay_pattern", None)
        return pattern is None or pattern.search(variable.name) is None

    def _apply_weight_decay(self, variables, learning_rate):
        if self.weight_decay is None:
            return
        for variable in variables:
            if self._use_weight_decay(variable):
                lr = self._lr_scalar(learning_rate, variable)
                kernel = variable._device.kernel("weight_decay_update")
                kernel(variable._value, variable._value.dtype.type(self.weight_decay), lr)

    def _update_model_variables_moving_average(self, variables):
        for variable, average in zip(variables, self._model_variables_moving_average):
            if average is None:  # an `overwrite_with_gradient` variable
                continue
            dtype = variable._value.dtype
            not_first = (self._iteration_array(variable._device) != 0).astype(dtype)
            momentum = not_first * dtype.type(self.ema_momentum)
            variable._device.kernel("ema_update")(average._value, variable._value, momentum)

    def _overwrite_model_variables_with_average_value(self, variables):
        averages = self._model_variables_moving_average
        if len(variables) != len(averages):
            raise ValueError(
                f"The length of model variables ({len(variables)}) to override does not "
                "match the length of model variables stored in the optimizer "
                f"({len(averages)}). Please check if the optimizer was called on your model."
            )
        for variable, average in zip(variables, averages):
            if average is not None:
                variable.assign(average)

    def finalize_variable_values(self, var_list):
        """With `use_ema`, sets the variables to their moving averages.

        Args:
            var_list: the model variables (as passed to `build`).
        """
        if self.use_ema:
            self._overwrite_model_variables_with_average_value(var_list)

    # Per-step scalars --------------------------------------------------------
    def _cached(self, key, compute):
        if self._step_cache is None:
            return compute()
        if key not in self._step_cache:
            self._step_cache[key] = compute()
        return self._step_cache[key]

    def _lr_scalar(self, learning_rate, variable):
        """The learning rate as a 0-d array in the variable's dtype and device."""
        dtype = variable._value.dtype
        return self._cached(("lr", variable._device, dtype), lambda: _device_scalar(
            learning_rate, variable._device, dtype))

    def _iteration_array(self, device):
        """`iterations` (divided by accumulation steps) as a 0-d int array on `device`."""
        value = self._iterations._value
        if self._iterations._device is not device:
            value = device.send(value)
        if self.gradient_accumulation_steps:
            value = value // self.gradient_accumulation_steps
        return value

    @staticmethod
    def _step_power(xp, base, exponent):
        """`base ** exponent` as TensorFlow's `Pow` computes it: for float32 numpy values
        libm's powf on single values (Adam's `beta_1 ** t`) and Eigen's packets on arrays
        (`eigen_math.power`; numpy's float32 power differs in the last bit, e.g. for
        `0.9 ** 4`), else the array library's."""
        exact = eigen_math.power(xp, base, exponent)
        return xp.power(base, exponent) if exact is None else exact

    def _local_step(self, variable, offset=1):
        """`iterations + offset` in the variable's dtype (Keras's `local_step`)."""
        return (self._iteration_array(variable._device) + offset).astype(variable._value.dtype)

    def _step_scalars(self, learning_rate, variable):
        """`_prepare_step`'s scalars, computed once per step, device and dtype."""
        key = ("step", variable._device, variable._value.dtype)
        return self._cached(key, lambda: self._prepare_step(learning_rate, variable))

    def _prepare_step(self, learning_rate, variable):
        """Scalars an update needs this step; subclasses extend the dict.

        Returns:
            dict: at least "lr", the learning rate in the variable's dtype.
        """
        return {"lr": self._lr_scalar(learning_rate, variable)}

    # Misc Keras surface ------------------------------------------------------
    def scale_loss(self, loss):
        """Multiplies the loss by `loss_scale_factor` (if set) before differentiation."""
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    def set_weights(self, weights):
        """Sets every optimizer variable from a list of arrays (in `variables` order)."""
        if not self.built:
            raise ValueError(
                "You are calling `set_weights()` on an optimizer that has not yet been "
                "built. Please call `optimizer.build(trainable_variables)` to create "
                "the optimizer weights before calling `set_weights()`."
            )
        for variable, weight in zip(self._variables, weights):
            if tuple(variable.shape) != tuple(np.shape(weight)):
                raise ValueError(
                    f"Optimizer variable {variable.path} has shape {variable.shape} not "
                    f"compatible with provided weight shape {np.shape(weight)}."
                )
            variable.assign(weight)

    def save_own_variables(self, store):
        """Writes `str(i) -> numpy array` for every variable (Keras's saving hook)."""
        for i, variable in enumerate(self.variables):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store):
        """Reads variables written by `save_own_variables` (warns on a count mismatch)."""
        if len(store.keys()) != len(self.variables):
            msg = (f"Skipping variable loading for optimizer '{self.name}', because it "
                   f"has {len(self.variables)} variables whereas the saved optimizer has "
                   f"{len(store.keys())} variables. ")
            if len(self.variables) == 0:
                msg += "This is likely because the optimizer has not been called/built yet."
            warnings.warn(msg, stacklevel=2)
            return
        for i, variable in enumerate(self.variables):
            variable.assign(store[str(i)])

    # Serialization -----------------------------------------------------------
    def get_config(self):
        """Returns the constructor arguments as a dict (Keras's keys).

        Returns:
            dict: name, learning_rate, weight_decay, clipnorm, global_clipnorm,
            clipvalue, use_ema, ema_momentum, ema_overwrite_frequency,
            loss_scale_factor, gradient_accumulation_steps (+ subclass keys).
        """
        lr = self._learning_rate
        if isinstance(lr, learning_rate_schedule.LearningRateSchedule):
            lr = learning_rate_schedule.serialize(lr)
        elif isinstance(lr, Variable):
            lr = float(lr.numpy())
        return {
            "name": self.name,
            "learning_rate": lr,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Creates an optimizer from `get_config()`'s output.

        Args:
            config: the config dict.
            custom_objects: optional dict of custom schedule classes.

        Returns:
            the optimizer.
        """
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = learning_rate_schedule.deserialize(
                config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r}>"


def _device_scalar(value, device, dtype):
    """`value` (Tensor, array or number) as a 0-d array of `dtype` on `device`."""
    if isinstance(value, Tensor):
        array = value._value if value._device is device else device.send(value._value)
        return array.astype(dtype, copy=False)
    if devices.is_array(value):
        return device.send(value).astype(dtype, copy=False)
    return dtype.type(value)


def _clip_by_value(grad, clipvalue):
    xp = devices.xp_of(grad)
    dt = grad.dtype.type
    return xp.clip(grad, dt(-clipvalue), dt(clipvalue))


def _gradient_rows(grads, variables):
    """{id(variable): IndexedSlices in its dtype} for the lookup gradients among `grads`."""
    rows = {}
    for g, v in zip(grads, variables):
        r = indexed_slices.slices_of(g)
        if r is not None:
            rows[id(v)] = r.astype(v._value.dtype)
    return rows


def _squared_sum(grad, rows):
    """sum(g^2); for a lookup gradient summed over its rows (Keras's `ops.square` on rows)."""
    return (grad * grad).sum() if rows is None else rows.dense(lambda x: x * x).sum()


def _clip_by_global_norm(grads, clip_norm, rows=None):
    """Scales all gradients by `clip_norm * min(1 / ||G||, 1 / clip_norm)` (NaN if not finite)."""
    device = devices.device_of_array(grads[0])
    xp = device.xp
    dt = grads[0].dtype.type
    rows = rows or [None] * len(grads)
    squared = xp.stack([device.send(_squared_sum(g, r)).astype(grads[0].dtype)
                        for g, r in zip(grads, rows)])
    norm = xp.sqrt(xp.sum(squared))
    with np.errstate(divide="ignore", invalid="ignore"):  # zero/inf norms are handled below
        scale = dt(clip_norm) * xp.minimum(dt(1.0) / norm, dt(1.0 / clip_norm))
        scale = scale + (norm - norm)  # NaN when the norm is not finite, as Keras
    out = []
    for g in grads:
        g_device = devices.device_of_array(g)
        factor = scale if g_device is device else g_device.send(scale)
        out.append(g * factor.astype(g.dtype))
    return out
