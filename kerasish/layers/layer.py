"""Layer: the base class of every layer and model (Keras 3's contract).

`__call__` converts inputs, resolves `training`, fills `mask`, builds the
layer once from the input shape, checks `input_spec`, runs `call`, and
attaches the output mask. Called on KerasTensors it records a graph node
instead (functional API). Sublayers and variables assigned as attributes
(also inside lists and dicts) are found by scanning the instance.
"""
import contextlib
import functools
import inspect
import threading
import warnings

from kerasish import constraints, dtype_policies, initializers, regularizers
from kerasish.backend.config import is_float
from kerasish.autodiff import stateless_scope
from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor, Variable, path_scopes
from kerasish.backend import config, devices
from kerasish.distribute import distribute_lib
from kerasish.layers import symbolic
from kerasish.layers.call_utils import (call_signature, check_keywords, get_mask,
                                       tensor_arguments, with_call_info)
from kerasish.layers.input_spec import assert_input_compatibility
from kerasish.layers.keras_tensor import (KerasTensor, any_symbolic, in_trace, not_tracing,
                                          tracing)
from kerasish.metrics.metric import Metric
from kerasish.ops import core
from kerasish.ops.operation import Operation, auto_config
from kerasish.ops import remat as _remat
from kerasish.random import SeedGenerator
from kerasish.utils import naming, tree

_BASE_KWARGS = {"input_shape", "input_dim", "batch_input_shape", "batch_size", "weights",
                "input_length"}
_state = threading.local()
_loss_counter = [0]  # bumped by add_loss, so clearing is skipped while nobody adds losses


def _context():
    if not hasattr(_state, "calls"):
        _state.calls = []      # (layer, training) of the calls in progress
        _state.training = None  # Keras's call-context `training` (see `resolve_training`)
        _state.scopes = path_scopes()  # name scope for variable paths (shared with Variable)
        _state.autocast = []   # dtype float variables are read as inside each call (or None)
    return _state


def resolve_training(sig, kwargs):
    """The `training` value of a layer call, by Keras's call-context rule.

    Keras (`Layer._resolve_and_populate_arg`): the argument if the caller
    passed it (even None), else the value of the call context if not None,
    else the default of `call`'s signature. The value then becomes the call
    context's, so it reaches later layers called inside the same outermost
    call, siblings included: `self.d1(x, training=True)` in a model's `call`
    makes the following `self.d2(x)` train too. It is passed to `call` only
    when `call` takes it and it is not None.

    Args:
        sig: the layer's `call_signature`.
        kwargs: the call's keyword arguments, updated in place.

    Returns:
        the resolved value.
    """
    ctx = _context()
    if "training" in kwargs:
        value = kwargs["training"]
    elif ctx.training is not None:
        value = ctx.training
    else:
        value = sig.training_default
    ctx.training = value
    if sig.has_training and value is not None:
        kwargs["training"] = value
    else:
        kwargs.pop("training", None)
    return value


class Layer(Operation):
    """Base class of layers: owns weights, computes `call`, builds lazily.

    Subclass it and implement `build(input_shape)` (create weights with
    `add_weight`) and `call(inputs, training=None, mask=None)`.

    Args:
        trainable: whether the layer's weights are updated by training.
        name: unique name; auto-generated from the class name if None.
        dtype: dtype or policy name for weights and computation (floatx default).
        activity_regularizer: optional regularizer applied to the output.
        autocast: cast floating inputs to the compute dtype.

    Example:
        >>> class Linear(keras.layers.Layer):
        ...     def __init__(self, units=32, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.units = units
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight(shape=(input_shape[-1], self.units))
        ...     def call(self, inputs):
        ...         return keras.ops.matmul(inputs, self.w)
    """

    # True for layers whose `call` is floating-point math with floating weights (Dense,
    # convolutions, recurrent layers, normalization): bool/int inputs are cast to the
    # compute dtype in `__call__`. Other layers (reshaping, merging, Embedding) keep them.
    _float_inputs = False
    # Keras's `__call__` casts float inputs to the compute dtype even when that is an
    # integer or bool dtype (`Lambda(f, dtype="int32")` truncates floats); the layers that
    # skip that conversion in Keras (`_convert_input_args = False` or a float
    # `input_dtype`: hashing, lookups, encodings, discretization) set this False.
    _casts_floats_to_integers = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_kerasish_default", False) \
                and not getattr(build, "_kerasish_marks_built", False):
            cls.build = _marking_built(build)

    _is_operation = False  # a layer, listed in `model.layers`

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None,
                 autocast=True, name=None, **kwargs):
        unknown = set(kwargs) - _BASE_KWARGS
        if unknown:
            raise ValueError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                f"{ {k: kwargs[k] for k in sorted(unknown)} }"
            )
        self._input_shape_arg = _input_shape_from_kwargs(kwargs)
        if kwargs.get("input_dim") is not None or kwargs.get("input_shape") is not None:
            warnings.warn(
                "Do not pass an `input_shape`/`input_dim` argument to a layer. When using "
                "Sequential models, prefer using an `Input(shape)` object as the first layer "
                "in the model instead.", stacklevel=2)
        self._remat_mode = _remat.get_current_remat_mode()  # the RematScope at creation
        self.name = name or naming.auto_name(type(self).__name__)
        self._dtype_policy = dtype_policies.get(dtype)
        self._trainable = bool(trainable)
        self.autocast = autocast
        self.built = False
        self.supports_masking = type(self).compute_mask is not Layer.compute_mask
        self.input_spec = None
        self._trainable_variables = []
        self._non_trainable_variables = []
        self._losses = []
        self._inbound_nodes = []
        self._build_shapes = None
        self._checked_shape = None  # last input shape that passed input_spec
        self._activity_regularizer = None
        if activity_regularizer is not None:
            self._activity_regularizer = regularizers.get(activity_regularizer)
        self._initial_weights = kwargs.get("weights")

    def __setattr__(self, name, value):
        # Any attribute change may add or drop a sublayer/variable/metric: forget the scan.
        self.__dict__.pop("_scan_cache", None)
        object.__setattr__(self, name, value)
        attrs = self.__dict__
        if name not in _SKIP_ATTRS and "_non_trainable_variables" in attrs \
                and attrs.get(name) is value:   # a plain attribute, not a property's
            _track_variables(self, value)

    def __delattr__(self, name):
        self.__dict__.pop("_scan_cache", None)
        value = self.__dict__.get(name)
        object.__delattr__(self, name)
        if isinstance(value, Variable):   # Keras untracks a deleted variable attribute
            for own in (self._trainable_variables, self._non_trainable_variables):
                own[:] = [v for v in own if v is not value]

    # Dtypes -----------------------------------------------------------------
    @property
    def dtype_policy(self):
        return self._dtype_policy

    @property
    def dtype(self):
        """The variable dtype name, e.g. "float32"."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self):
        return self._dtype_policy.compute_dtype

    @property
    def input_dtype(self):
        """The dtype the layer's inputs are converted to (its compute dtype)."""
        return self.compute_dtype

    @property
    def path(self):
        """The layer's name path ("model/dense"), set when it is built (None before, and
        for layers built when made, as Keras)."""
        return self.__dict__.get("_path")

    def quantize(self, mode=None, **kwargs):
        """Not available: kerasish has no quantized (int8/int4/float8) layers."""
        raise NotImplementedError(
            f"{type(self).__name__}.quantize(mode={mode!r}): quantization is not implemented "
            "in kerasish (layers compute in their float dtype policy).")

    def add_metric(self, *args, **kwargs):
        """Removed in Keras 3: raises NotImplementedError with Keras's text."""
        raise NotImplementedError(
            "Layer `add_metric()` method is deprecated. Add your metric in "
            "`Model.compile(metrics=[...])`, or create metric trackers in init() or build() "
            "when subclassing the layer or model, then call `metric.update_state()` "
            "whenever necessary.")

    @property
    def variable_dtype(self):
        return self._dtype_policy.variable_dtype

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, value):
        # A plain attribute in Keras: `layer.activity_regularizer = None` turns it off.
        self._activity_regularizer = value

    # Weights ----------------------------------------------------------------
    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True,
                   autocast=True, regularizer=None, constraint=None, aggregation="none",
                   overwrite_with_gradient=False, name=None):
        """Creates a weight Variable owned by this layer.

        Args:
            shape: the shape (a scalar if None).
            initializer: initializer object or name; glorot_uniform for
                floats, zeros for ints/bools when None.
            dtype: variable dtype (the layer's variable dtype by default).
            trainable: trainable (watched by tapes, updated by optimizers).
            regularizer: optional penalty added to `layer.losses`.
            constraint: optional projection applied after optimizer updates.
            overwrite_with_gradient: optimizers set this variable to its
                gradient instead of updating it.
            name: short name, e.g. "kernel".

        Returns:
            Variable.
        """
        dtype = config.standardize_dtype(dtype or self.variable_dtype)
        if initializer is None:
            initializer = "glorot_uniform" if config.is_float_dtype(dtype) else "zeros"
        name = name or naming.auto_name("variable")
        scopes = _context().scopes
        with devices.device(devices.current_device()):
            # The layer's flag decides: a weight created while the layer is frozen starts
            # frozen, and follows the flag when it is flipped later (Keras's tracking).
            variable = Variable(initializers.get(initializer), shape=tuple(shape or ()),
                                dtype=dtype, trainable=trainable and self._trainable,
                                autocast=autocast,
                                aggregation=aggregation, name=name,
                                constraint=constraints.get(constraint))
        owner = scopes if scopes and scopes[-1] == self.name else scopes + [self.name]
        variable.path = "/".join(owner + [name])
        variable.regularizer = regularizers.get(regularizer)
        variable.overwrite_with_gradient = bool(overwrite_with_gradient)
        (self._trainable_variables if trainable else self._non_trainable_variables).append(variable)
        distribute_lib.on_variable_created(variable)
        return variable

    add_variable = add_weight

    def _own_variables(self):
        known = {id(v) for v in self._trainable_variables}
        known.update(id(v) for v in self._non_trainable_variables)
        # Variables appended to a list attribute after it was assigned: Keras tracks
        # them at the append, so they follow the tracked ones of their kind.
        extra = [v for v in _scan(self)[1] if id(v) not in known]
        if not extra:
            return self._trainable_variables + self._non_trainable_variables
        return (self._trainable_variables + [v for v in extra if v.trainable]
                + self._non_trainable_variables + [v for v in extra if not v.trainable])

    def save_own_variables(self, store):
        """Saves this layer's own variables (not its sublayers') into `store`.

        `model.save()` and `save_weights()` call it with a dict-like store
        ("0", "1", ... -> values); override it, with `load_own_variables`, to
        save state your own way.

        Args:
            store: dict-like object to write the values into.

        Example:
            >>> store = {}; layer.save_own_variables(store); sorted(store)
            ['0', '1']
        """
        for i, variable in enumerate(self._saved_variables()):
            store[str(i)] = variable.numpy()

    save_own_variables._kerasish_default = True

    # Attribute names of the variables Keras's Dense/EinsumDense/Embedding/conv
    # layers save (their `variable_serialization_spec`); None: all own variables.
    _serialized_variables = None

    def _saved_variables(self):
        """The variables `save_own_variables` writes, in order: all own ones, or
        for layers with a serialization spec only those (a subclass's extra
        variables are not saved, as in Keras)."""
        if self._serialized_variables is None:
            return self._own_variables()
        if not self.built:
            return []
        found = (getattr(self, name, None) for name in self._serialized_variables)
        return [v for v in found if v is not None]

    def load_own_variables(self, store):
        """Loads this layer's own variables from `store` (as `save_own_variables` wrote).

        Args:
            store: dict-like object holding "0", "1", ... -> values.

        Raises:
            ValueError: when the number of stored values is not the number of variables.
        """
        variables = self._own_variables()
        if len(store.keys()) != len(variables):
            if not variables and not self.built:
                raise ValueError(
                    f"Layer '{self.name}' was never built and thus it doesn't have any "
                    f"variables. However the weights file lists {len(store.keys())} variables "
                    "for this layer.")
            raise ValueError(
                f"Layer '{self.name}' expected {len(variables)} variables, but received "
                f"{len(store.keys())} variables during loading. Expected: "
                f"{[v.name for v in variables]}")
        for i, variable in enumerate(self._saved_variables()):
            variable.assign(store[str(i)])

    load_own_variables._kerasish_default = True

    @property
    def weights(self):
        """All weights: own (trainable then non-trainable), then sublayers'."""
        seen, out = set(), []
        for v in self._own_variables():
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        for layer in self._layers:
            for v in layer.weights:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    @property
    def variables(self):
        """All state, as Keras: own weights, the states of this layer's
        `SeedGenerator`s (attributes), then sublayers' variables."""
        seen, out = set(), []
        own = self._own_variables() + [value.state for value in vars(self).values()
                                       if isinstance(value, SeedGenerator)]
        for v in own + [v for layer in self._layers for v in layer.variables]:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    @property
    def trainable_weights(self):
        return [v for v in self.weights if v.trainable] if self.trainable else []

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self):
        return [v for v in self.weights if not v.trainable] if self.trainable else self.weights

    @property
    def non_trainable_variables(self):
        """Non-trainable weights and the SeedGenerator states (`variables` minus trainable)."""
        return [v for v in self.variables if not v.trainable] if self.trainable else self.variables

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        value = bool(value)
        self._trainable = value
        for v in self._trainable_variables:
            v.trainable = value
        for layer in self._layers:
            layer.trainable = value

    def get_weights(self):
        """Copies of the weights as numpy arrays, in `weights` order."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        """Sets the weights from numpy arrays in `weights` order (shapes must match)."""
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on layer '{self.name}' with a weight list "
                f"of length {len(weights)}, but the layer was expecting {len(params)} weights."
            )
        for v, w in zip(params, weights):
            if tuple(v.shape) != tuple(getattr(w, "shape", ())):
                raise ValueError(
                    f"Layer {self.name} weight shape {v.shape} is not compatible with provided "
                    f"weight shape {getattr(w, 'shape', ())}."
                )
        for v, w in zip(params, weights):
            v.assign(w)

    def count_params(self):
        """Number of scalars in all weights (the layer must be built)."""
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the layer isn't "
                "built. You can build it manually via: `layer.build(input_shape)`."
            )
        total = 0
        for v in self.weights:
            n = 1
            for d in v.shape:
                n *= d
            total += n
        return total

    # Sublayers -------------------------------------------------------------
    @property
    def _layers(self):
        return _scan(self)[0]

    def _flatten_layers(self, include_self=True, recursive=True):
        """This layer and all nested layers, depth first, each once."""
        out, seen, stack = [], set(), [self]
        while stack:
            layer = stack.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            if layer is not self or include_self:
                out.append(layer)
            if recursive or layer is self:
                stack = list(layer._layers) + stack
        return out

    # Metrics ---------------------------------------------------------------
    def _tracked_metrics(self):
        """Metrics assigned as attributes of this layer (lists and dicts included)."""
        return _scan(self)[2]

    @property
    def metrics(self):
        """Metrics assigned as attributes of this layer and of its sublayers."""
        out = list(self._tracked_metrics())
        for layer in self._layers:
            out.extend(layer.metrics)
        return out

    @property
    def metrics_variables(self):
        """The state variables of all of `metrics`."""
        return [v for m in self.metrics for v in m.variables]

    # Losses ----------------------------------------------------------------
    def add_loss(self, loss):
        """Adds a scalar loss tensor (collected in `losses`, cleared each outer call).

        Inside a `StatelessScope` the loss is not added to the layer: the scope
        collects it when made with `collect_losses=True` (as Keras does).
        """
        losses = tree.flatten(loss)
        tracing_now = in_trace()
        for value in losses:
            if not isinstance(value, Tensor) and not (tracing_now and isinstance(value, KerasTensor)):
                raise ValueError(
                    "`add_loss()` can only be called from inside `build()` or `call()`, on a "
                    f"tensor input. Received invalid value: {value}")
        scope = stateless_scope.get_stateless_scope()
        if scope is not None:
            if scope.collect_losses:
                for value in losses:
                    scope.add_loss(value)
            return
        self._losses.extend(losses)
        _loss_counter[0] += 1

    @property
    def losses(self):
        """Losses added in the last call plus weight regularization penalties.

        Keras's order: every `add_loss` loss (this layer's, then its sublayers'), then
        the penalties of the regularized weights in `trainable_weights` order.
        """
        out = []
        regularized = False
        for layer in self._flatten_layers():
            out.extend(layer._losses)
            regularized = regularized or any(  # add_weight's variables carry regularizers
                v.regularizer is not None
                for v in layer._trainable_variables + layer._non_trainable_variables)
        if regularized:  # (walking trainable_weights costs ~50 us a step otherwise)
            for v in self.trainable_weights:
                if getattr(v, "regularizer", None) is not None:
                    out.append(v.regularizer(v))
        return out

    def _clear_losses(self):
        for layer in self._flatten_layers():
            layer._losses = []

    def stateless_call(self, trainable_variables, non_trainable_variables, *args,
                       return_losses=False, **kwargs):
        """`call` with the given variable values; no variable of the layer changes.

        As Keras's: runs `self.call(*args, **kwargs)` in a `StatelessScope` that maps
        `trainable_variables` / `non_trainable_variables` (one value each, in the order
        of the layer's lists, the seed generators' states included) onto the layer's
        variables, and returns the outputs and the non-trainable values after the call
        (BatchNormalization's moving statistics, advanced seeds).

        Args:
            trainable_variables: values for `self.trainable_variables`.
            non_trainable_variables: values for `self.non_trainable_variables`.
            *args, **kwargs: `call`'s arguments (e.g. `training=True`).
            return_losses: also return the losses added during the call, then the
                weights' regularization penalties.

        Returns:
            `(outputs, non_trainable_values)`, or with `return_losses`
            `(outputs, non_trainable_values, losses)`.

        Example:
            >>> values = [v.value for v in model.trainable_variables]
            >>> others = [v.value for v in model.non_trainable_variables]
            >>> outputs, others = model.stateless_call(values, others, x, training=True)
        """
        if not self.built:
            raise ValueError(f"To call stateless_call, {type(self).__name__} must be built (i.e. "
                             "its variables must have been already created). You can build it "
                             "by calling it on some data.")
        for kind, values, variables in (
                ("trainable_variables", trainable_variables, self.trainable_variables),
                ("non_trainable_variables", non_trainable_variables,
                 self.non_trainable_variables)):
            if len(values) != len(variables):
                raise ValueError(
                    f"Argument `{kind}` must be a list of tensors corresponding 1:1 to "
                    f"{type(self).__name__}().{kind}. Received list with length "
                    f"{len(values)}, but expected {len(variables)} variables.")
        mapping = list(zip(self.trainable_variables, trainable_variables)) + \
            list(zip(self.non_trainable_variables, non_trainable_variables))
        with stateless_scope.StatelessScope(state_mapping=mapping,
                                            collect_losses=return_losses) as scope:
            outputs = self.call(*args, **kwargs)
            if return_losses:
                losses = list(scope.losses) + [v.regularizer(v) for v in self.trainable_weights
                                               if getattr(v, "regularizer", None) is not None]
        non_trainable = [scope.get_current_value(v) for v in self.non_trainable_variables]
        if return_losses:
            return outputs, non_trainable, losses
        return outputs, non_trainable

    # Calling ---------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if "_non_trainable_variables" not in self.__dict__:
            raise RuntimeError(
                f"In layer '{type(self).__name__}', you forgot to call `super().__init__()` as "
                "the first statement in the `__init__()` method. Go add it!")
        if kwargs:
            check_keywords(call_signature(type(self)), kwargs)
        if any_symbolic(*args, **kwargs):
            # As Keras: `training` is resolved on symbolic calls too, and a value
            # that is not None (a `call` default like Dropout's False) is recorded
            # in the graph node as if the caller had passed it.
            ctx = _context()
            # Inside a trace the inputs stand for tensors: Keras's pass there is an eager one
            # (a failure is silent and the layer is marked built after its call).
            if self._builds_by_tracing() and not self._trace_to_build(
                    args, kwargs, eager=in_trace()):
                self.__dict__["_build_after_call"] = True  # read by `symbolic_call`, `_call_eager`
            outermost = not ctx.calls
            caller_kwargs = dict(kwargs)
            resolve_training(call_signature(type(self)), kwargs)
            try:
                return symbolic.symbolic_call(self, args, kwargs, caller_kwargs)
            finally:
                self.__dict__.pop("_build_after_call", None)
                if outermost:
                    ctx.training = None
        return self._call_eager(args, kwargs)

    def _call_eager(self, args, kwargs, scoped=True, traced=False):
        """`__call__` on tensors: conversion, build, training flag, masks, autocast, `call`.

        Symbolic tracing (`symbolic.trace_call`, `traced=True`) runs it on KerasTensors
        too, calling `call` itself as Keras's `compute_output_spec` does (no build-by-tracing
        pass of this layer); with `scoped=False` the layer's name is not added to the variable
        paths of what it builds (Keras's `build_from_config` runs a model's `call` outside
        its name scope).
        """
        sig = call_signature(type(self))
        if getattr(self, "_convert_input_args", True) or traced:
            args = tuple(_convert_input(a, self) for a in args) if args else args
            if not args and sig.first in kwargs:
                kwargs[sig.first] = _convert_input(kwargs[sig.first], self)
        first = args[0] if args else kwargs.get(sig.first)
        ctx = _context()
        # As Keras's `_maybe_build`: before `training` is resolved, a layer without its own
        # `build` and with unbuilt sublayers runs `call` symbolically; if that fails, the
        # real call builds the sublayers and the layer is marked built after it.
        if traced:
            build_after = self.__dict__.pop("_build_after_call", False)
        else:
            build_after = self._builds_by_tracing() and \
                not self._trace_to_build(args, kwargs, eager=True)
        training = resolve_training(sig, kwargs)
        previous_mask = get_mask(first)
        if (sig.has_mask or sig.mask_args) and (previous_mask is not None or len(args) > 1
                                                or len(kwargs) > 1):
            _populate_masks(sig, args, kwargs, previous_mask)
        if kwargs.get("mask") is not None:
            previous_mask = kwargs["mask"]  # as Keras: an explicit mask also masks the output
        if not self.built and not build_after:
            if self.input_spec is not None:   # as Keras: checked before `build` too
                assert_input_compatibility(self.input_spec, first, self.name)
            self._build_from_inputs(args, kwargs, sig)
        shape = getattr(first, "shape", None)
        if shape is None or shape != self._checked_shape:
            assert_input_compatibility(self.input_spec, first, self.name)
            self._checked_shape = shape
        outermost = not ctx.calls
        if outermost and _loss_counter[0]:
            self._clear_losses()
        ctx.calls.append((self, training))
        if scoped:
            ctx.scopes.append(self.name)
        cast_to = _autocast_dtype(self, ctx)
        ctx.autocast.append(cast_to)
        swapped = _cast_own_variables(self, cast_to) if cast_to is not None else None
        try:
            outputs = self._rematerialized_call(self.call, args, kwargs)(*args, **kwargs)
        except Exception as error:
            if any_symbolic(*args, **kwargs):  # a traced call: `symbolic_call` reports it
                raise
            raise with_call_info(error, self, args, kwargs) from None
        finally:
            if swapped:
                _restore_variables(self, swapped)
            ctx.autocast.pop()
            ctx.calls.pop()
            if scoped:
                ctx.scopes.pop()
            if not ctx.calls:
                ctx.training = None  # the outermost call ends its call context
        if build_after and not self.built:
            self._build_from_inputs(args, kwargs, sig)
        self._after_call(first, previous_mask, outputs)
        return outputs

    def _builds_by_tracing(self):
        """Whether Keras's `Layer._maybe_build` builds this unbuilt layer by running its
        `call` on symbolic inputs first: its class has no `build` of its own and some
        direct sublayer is not built (`might_have_unbuilt_state`)."""
        return (not self.built and not _overrides(self, "build")
                and any(not sub.built for sub in self._layers))

    def _trace_to_build(self, args, kwargs, eager):
        """Keras's build-by-tracing pass of `__call__` (step 4, before `training` is resolved).

        `call` runs once on KerasTensor stand-ins of the inputs (`symbolic.stand_in`),
        with the caller's arguments bound to `call`'s signature and its defaults filled
        in (passed by name, as Keras's `compute_output_spec(self.call, **arguments)`),
        inside this layer's name scope, a trace and a `StatelessScope`: sublayers build,
        nothing is computed, no variable or seed generator changes, no loss is kept. No
        call context is opened (each sublayer call in it opens its own, unless an outer
        call's is active). When the traced call removes an eager input's mask (as
        MultiHeadAttention does), the input loses it too: Keras passes the tensor itself.

        Args:
            args, kwargs: the call's arguments (`training` as the caller passed it).
            eager: whether the inputs stand for tensors (not KerasTensors outside a trace).

        Returns:
            False when the traced call failed on eager inputs (Keras then lets the real
            call build the sublayers and marks the layer built after it); True otherwise
            (a failure on symbolic inputs is warned about, as Keras does).
        """
        signature = inspect.signature(self.call)
        kwargs = dict(kwargs)
        if "training" in kwargs and "training" not in signature.parameters:
            kwargs.pop("training")
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return True  # the real call reports the bad arguments
        bound.apply_defaults()
        pairs = []
        ctx = _context()
        ctx.scopes.append(self.name)
        saved = _tape._active[:]
        _tape._active.clear()
        unbuilt = [sub for sub in self._flatten_layers() if not sub.built]
        try:
            self._trace_call_once(bound, pairs)
            return True
        except Exception as error:  # noqa: BLE001 - Keras catches everything here
            if eager:
                return False
            if symbolic.retry_with_sizes(lambda size: self._trace_call_once(bound, [], size),
                                         bound.arguments.values(), unbuilt):
                return True
            symbolic.warn_untraceable(self, error)
            if any(not sub.built for sub in self._layers):
                warn_not_built(self)  # Keras then runs the default `build`, which warns
            return True
        finally:
            _tape._active[:] = saved
            ctx.scopes.pop()
            for real, stand in pairs:
                if stand._keras_mask is None:
                    real._keras_mask = None

    def _trace_call_once(self, bound, pairs, size=None):
        arguments = tree.map_structure(lambda v: symbolic.stand_in(v, pairs, size),
                                       dict(bound.arguments))
        with stateless_scope.StatelessScope(), tracing():
            arguments = tree.map_structure(
                lambda v: _convert_input(v, self) if isinstance(v, KerasTensor) else v,
                arguments)
            self.call(**arguments)

    def _call_in_caller_scope(self, *args, **kwargs):
        """`self.call(...)` as Keras's wrappers run their inner layer: no input
        conversion, and the float variables read in the calling layer's autocast
        dtype (float16 under a "mixed_float16" wrapper even for a float32 inner layer).
        `training` is passed only when `call` takes it."""
        if "training" in kwargs and not call_signature(type(self)).has_training:
            kwargs.pop("training")
        with self._variables_in_caller_scope():
            return self.call(*args, **kwargs)

    @contextlib.contextmanager
    def _variables_in_caller_scope(self):
        """Within the block, this layer's float variables read in the autocast dtype of
        the layer call in progress (Keras's autocast scope covers every variable read
        inside a call, not only the calling layer's own)."""
        ctx = _context()
        cast_to = ctx.autocast[-1] if ctx.autocast else None
        swapped = _cast_own_variables(self, cast_to) if cast_to is not None else None
        try:
            yield
        finally:
            if swapped:
                _restore_variables(self, swapped)

    def _build_from_inputs(self, args, kwargs, sig):
        first = args[0] if args else kwargs.get(sig.first)
        shapes = tree.map_structure(
            lambda t: tuple(t.shape) if getattr(t, "shape", None) is not None else None, first) \
            if first is not None else None
        self._maybe_build(shapes)

    def _maybe_build(self, input_shape):
        """Runs `build(input_shape)` once, inside this layer's name scope."""
        if self.built:
            return
        ctx = _context()
        ctx.scopes.append(self.name)
        try:
            self._path = "/".join(ctx.scopes)
            if _overrides(self, "build"):
                if _takes_no_arguments(self.build):
                    self.build()   # `def build(self):` is allowed, as in Keras
                else:
                    self.build(input_shape)
            self._build_shapes = input_shape
        finally:
            ctx.scopes.pop()
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def _build_at_init(self):
        """Marks a stateless layer built from `__init__`, as Keras does.

        Only when the layer's class does not override `build`: a subclass
        with its own `build` (which may create weights) is built on first call.
        """
        if not _overrides(self, "build"):
            self.built = True

    def build(self, input_shape):
        """Creates the layer's weights; override it. Called once before `call`."""
        self._build_shapes = input_shape
        self.built = True

    def call(self, *args, **kwargs):
        """The layer's computation; override it."""
        raise NotImplementedError(
            f"Layer {type(self).__name__} does not have a `call()` method implemented."
        )

    def _after_call(self, inputs, previous_mask, outputs):
        if self._activity_regularizer is not None:
            for out in tree.flatten(outputs):
                batch = out.shape[0] if out.ndim else 1
                self.add_loss(self._activity_regularizer(out) / float(batch))
        if not any_symbolic(inputs):   # a symbolic call warns in `symbolic_call`
            symbolic.warn_if_mask_dropped(self, previous_mask)
        if self.supports_masking or previous_mask is not None:
            flat_outputs = tree.flatten(outputs)
            if all(getattr(out, "_keras_mask", None) is not None for out in flat_outputs):
                return  # `call` set the masks itself
            mask = self.compute_mask(inputs, previous_mask)
            if mask is None:
                return
            # As Keras: the i-th mask goes to the i-th output (a single mask to the only/first
            # output); a list mask like RNN's `[sequence_mask, None, None]` is spread out.
            for out, m in zip(flat_outputs, tree.flatten(mask)):
                if isinstance(out, Tensor) and m is not None and out._keras_mask is None \
                        and out is not inputs:
                    out._keras_mask = m

    def _rematerialized_call(self, call, args, kwargs):
        """`call`, or `keras.remat(call)` as the layer's `RematScope` mode asks (Keras's
        `Layer.rematerialized_call` / `Operation.rematerialized_call`)."""
        mode = getattr(self, "_remat_mode", None)
        if not mode or not mode.mode or any(
                isinstance(a, KerasTensor) for a in tree.flatten([list(args), kwargs])):
            return call  # a symbolic trace (output specs) has nothing to rematerialize
        if mode.mode == "full":
            return _remat.remat(call)
        if mode.mode == "list_of_layers":
            return _remat.remat(call) if self.name in mode.layer_names else call
        if mode.mode == "activations":
            return self._remat_activation_call(call)
        if self._output_size(args, kwargs) > mode.output_size_threshold:  # "larger_than"
            return _remat.remat(call)
        return call

    def _remat_activation_call(self, call):
        if getattr(self, "activation", None) is None:
            return call

        @functools.wraps(call)
        def with_remat_activation(*args, **kwargs):
            original = self.activation
            self.activation = _remat.remat(original)
            try:
                return call(*args, **kwargs)
            finally:
                self.activation = original
        return with_remat_activation

    def compute_mask(self, inputs, previous_mask=None):
        """The output mask; by default the input mask if masking is supported."""
        return previous_mask if self.supports_masking else None

    def compute_output_shape(self, *args, **kwargs):
        """Output shape(s) for given input shape(s); by default found by running `call`
        on KerasTensors of those shapes (no values are computed)."""
        return symbolic.traced_output_shape(self, args, kwargs)

    compute_output_shape._kerasish_base = True

    def compute_output_spec(self, *args, **kwargs):
        """Output KerasTensor(s) for symbolic inputs."""
        return symbolic.output_spec(self, args, kwargs)

    # Config ----------------------------------------------------------------
    def get_config(self):
        """Constructor arguments as a JSON-friendly dict (Keras 3's rules).

        `name`, `trainable`, `dtype` (and `activity_regularizer` when set). A
        user subclass that does not override `get_config` also gets its
        constructor arguments (defaults included) when they are all plain
        values (str, int, float, bool, None, and lists/dicts of them);
        otherwise, as in Keras, it raises NotImplementedError.
        """
        config = {"name": self.name}
        if _uses_default(type(self), "get_config") and \
                type(self).__module__.split(".")[0] != "kerasish":
            config.update(self._auto_config())
            # Keras's Operation.get_config: unless `**kwargs` (so named) is taken, `name`
            # stays only when it is a positional-or-keyword argument of __init__
            spec = inspect.getfullargspec(type(self).__init__)
            if spec.varkw != "kwargs" and "name" not in spec.args[1:]:
                config.pop("name", None)
        config["trainable"] = self.trainable
        config["dtype"] = dtype_policies.serialize(self._dtype_policy)
        if self._activity_regularizer is not None:
            config["activity_regularizer"] = regularizers.serialize(self._activity_regularizer)
        return config

    get_config._kerasish_default = True

    def _auto_config(self):
        """The constructor arguments recorded at creation, as Keras's auto-config."""
        return auto_config(self, normalize=_serialized_dtype)

    @classmethod
    def from_config(cls, config_dict):
        """Creates a layer from `get_config()`'s output."""
        config_dict = dict(config_dict)
        if isinstance(config_dict.get("dtype"), dict):
            config_dict["dtype"] = dtype_policies.get(config_dict["dtype"])
        try:
            return cls(**config_dict)
        except Exception as e:  # Keras reports any constructor failure as a TypeError
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using "
                            f"config={config_dict}.\n\nException encountered: {e}") from e

    def get_build_config(self):
        if self._build_shapes is not None:
            return {"input_shape": self._build_shapes}
        return None

    def build_from_config(self, build_config):
        if build_config and build_config.get("input_shape") is not None:
            self._maybe_build(_as_shape(build_config["input_shape"]))

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


# Helpers -------------------------------------------------------------------
def _takes_no_arguments(method):
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                   for p in params)


def _marking_built(build):
    """Wraps a subclass's `build` as Keras's build wrapper: it runs inside the layer's name
    scope (which gives the layer its `path`), and calling it by hand marks the layer built."""
    @functools.wraps(build)
    def wrapper(self, *args, **kwargs):
        scopes = _context().scopes
        enter = not (scopes and scopes[-1] == self.name)   # `_maybe_build` entered it already
        if enter:
            scopes.append(self.name)
        try:
            self._path = "/".join(scopes)
            # a graph made in `build` (a sub-model from a fresh `keras.Input`) records its
            # nodes even when the build runs inside a symbolic trace, as in Keras
            with not_tracing():
                result = build(self, *args, **kwargs)
        finally:
            if enter:
                scopes.pop()
        self.built = True
        if getattr(self, "_build_shapes", None) is None and args:
            self._build_shapes = args[0]
        return result
    wrapper._kerasish_marks_built = True
    return wrapper


def _uses_default(cls, method):
    """True when `cls.method` is a kerasish base default (not user-overridden)."""
    return getattr(getattr(cls, method), "_kerasish_default", False)


def _serialized_dtype(config):
    """As Keras: a policy object given as `dtype` (a revived layer's) is recorded serialized."""
    if isinstance(config.get("dtype"), dtype_policies.DTypePolicy):
        config["dtype"] = dtype_policies.serialize(config["dtype"])
    return config


def _overrides(layer, method):
    """True when the layer's class defines its own `method` (not a base default)."""
    impl = getattr(type(layer), method)
    return impl is not getattr(Layer, method) and not getattr(impl, "_kerasish_default", False)


def _convert_input(x, layer):
    """numpy/lists -> Tensor; floating inputs cast to the compute dtype (autocast).

    Layers that compute in floating point with floating weights (`_float_inputs`)
    also get bool/int inputs as the compute dtype: Keras reaches the same numbers
    through dtype promotion, and no fused op then sees a dtype it does not expect.
    """
    if isinstance(x, (list, tuple, dict)):
        return tree.map_structure(lambda v: _convert_input(v, layer), x)
    if x is None or isinstance(x, (str, bool, slice, type(Ellipsis))):
        return x
    if isinstance(x, KerasTensor):  # being traced (`symbolic.trace_call`): the same autocast
        if layer.autocast and x.dtype != layer.compute_dtype and (
                _casts_float_input(layer, config.is_float_dtype(x.dtype)) or
                (config.is_float_dtype(layer.compute_dtype) and
                 config.standardize_dtype(x.dtype)[:1] in "biu" and layer._float_inputs)):
            mask = x._keras_mask
            x = core.cast(x, layer.compute_dtype)
            x._keras_mask = mask
        return x
    if not isinstance(x, Tensor):
        if isinstance(x, (int, float)):
            return x
        x = core.convert_to_tensor(x)
    kind = x._value.dtype.kind
    if layer.autocast and x.dtype != layer.compute_dtype and not isinstance(x, Variable) and (
            _casts_float_input(layer, is_float(x._value.dtype)) or
            (config.is_float_dtype(layer.compute_dtype) and kind in "biu" and
             layer._float_inputs)):
        mask = x._keras_mask
        x = core.cast(x, layer.compute_dtype)
        x._keras_mask = mask
    return x


def _casts_float_input(layer, input_is_float):
    """Keras's autocast of a float input: to a float compute dtype always, to an integer
    or bool one unless the layer opts out (`_casts_floats_to_integers`)."""
    return input_is_float and (config.is_float_dtype(layer.compute_dtype) or
                               layer._casts_floats_to_integers)


def _populate_masks(sig, args, kwargs, first_mask):
    """Keras's rule for the implicit masks: with one tensor argument, its mask goes to
    `mask`; with several (`lstm(x, initial_state=s)`), only to `<argument>_mask`
    parameters (so a decoder LSTM given `initial_state` is not masked, as in Keras)."""
    tensors = tensor_arguments(sig, args, kwargs)
    if len(tensors) <= 1:
        if sig.has_mask and kwargs.get("mask") is None and first_mask is not None:
            kwargs["mask"] = first_mask
        return
    for name, value in tensors.items():
        key = f"{name}_mask"
        if name in sig.mask_args and kwargs.get(key) is None:
            mask = get_mask(value)
            if mask is not None:
                kwargs[key] = mask


def _autocast_dtype(layer, ctx):
    """The dtype this call reads float variables as (None: as stored), Keras's rules.

    A mixed-policy layer (compute dtype != variable dtype) opens a scope; a layer
    inside a scope moves it to its own compute dtype, or closes it when it does not
    autocast or does not compute in floating point.
    """
    current = ctx.autocast[-1] if ctx.autocast else None
    compute = layer.compute_dtype
    if current is not None:
        if not layer.autocast or not config.is_float_dtype(compute):
            return None
        return compute
    return compute if compute != layer.variable_dtype else None


def _cast_own_variables(layer, dtype):
    """Replaces, for the duration of `call`, the layer's float autocast Variable
    attributes by their (recorded, differentiable) cast to `dtype`; the float32
    Variables stay the masters that optimizers update. Returns what to restore."""
    _scan(layer)  # the scan cache keeps the real Variables for `weights` meanwhile
    swapped = {}
    for name, value in layer.__dict__.items():
        if isinstance(value, Variable) and value.autocast and value.dtype != dtype \
                and config.is_float_dtype(value.dtype):
            swapped[name] = value
    for name, value in swapped.items():
        read = core.cast(value, dtype)
        if type(read) is Tensor:
            read.__class__ = _AutocastRead  # same layout: the recorded cast, still differentiable
            _AUTOCAST_MASTERS[id(read)] = value
        layer.__dict__[name] = read
    return swapped


def _restore_variables(layer, swapped):
    """Puts the Variables `_cast_own_variables` replaced back."""
    for name in swapped:
        _AUTOCAST_MASTERS.pop(id(layer.__dict__.get(name)), None)
    layer.__dict__.update(swapped)


_AUTOCAST_MASTERS = {}  # id(an _AutocastRead in use) -> the Variable it reads


class _AutocastRead(Tensor):
    """A float variable read in the autocast dtype during a call: the cast value, with
    the variable's `assign`/`assign_add`/`assign_sub`, which update the float32 variable
    (and this read), as a Keras variable does inside its autocast scope (a
    non-trainable counter or moving average updated in `call` under "mixed_float16")."""

    __slots__ = ()

    @property
    def dtype(self):
        """The autocast dtype's name, a plain `str` as a Keras variable's in its scope."""
        return config.standardize_dtype(self._value.dtype)

    def _variable(self):
        try:
            return _AUTOCAST_MASTERS[id(self)]
        except KeyError:
            raise ValueError("This autocast read of a variable is used outside the layer "
                             "call that made it; use the layer's variable itself.") from None

    def _updated(self, method, value):
        variable = self._variable()
        getattr(variable, method)(value)
        self._value = variable._value.astype(self._value.dtype)
        return variable

    def assign(self, value):
        return self._updated("assign", value)

    def assign_add(self, delta):
        return self._updated("assign_add", delta)

    def assign_sub(self, delta):
        return self._updated("assign_sub", delta)

    def __getattr__(self, name):
        if name in ("name", "path", "trainable", "constraint", "regularizer", "aggregation",
                    "synchronization", "autocast"):
            return getattr(self._variable(), name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _scan(layer):
    """(sublayers, variables, metrics) assigned as attributes, lists and dicts included.

    The attribute values that can hold any (objects of those kinds, lists,
    dicts) are cached per layer until an attribute is set (`Layer.__setattr__`
    drops the cache); lists and dicts are walked afresh each time, so
    `self.blocks.append(layer)` is still seen.
    """
    found, seen = ([], [], []), {id(layer)}
    attrs = layer.__dict__
    cache = attrs.get("_scan_cache")
    if cache is None:
        values = [v for k, v in attrs.items() if k not in _SKIP_ATTRS
                  and (_KINDS.get(v.__class__) or _kind(v)) is not _OTHER]
        values.reverse()
        cache = attrs["_scan_cache"] = _ScanCache(values)
    stack = list(cache.values)
    kinds = _KINDS
    while stack:
        value = stack.pop()
        kind = kinds.get(value.__class__)
        if kind is None:
            kind = _kind(value)
        if kind is _OTHER:
            continue
        if kind is _SEQUENCE or kind is _MAPPING:
            if id(value) in seen:  # a container seen before (or holding itself)
                continue
            seen.add(id(value))
            stack.extend(reversed(value) if kind is _SEQUENCE else reversed(list(value.values())))
        elif id(value) not in seen:
            seen.add(id(value))
            found[kind].append(value)
    return found


class _ScanCache:
    """Opaque holder of a layer's scanned attribute values (other scanners of
    `__dict__`, e.g. weight saving, see neither a list nor a layer here)."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values


_OTHER, _SEQUENCE, _MAPPING = object(), object(), object()
_KINDS = {}  # class -> 0 (Layer), 1 (Variable), 2 (Metric), or one of the markers above


def _kind(value):
    """What `_scan` does with values of this class (cached per class: one dict lookup)."""
    if isinstance(value, Layer):
        kind = 0
    elif isinstance(value, Variable):
        kind = 1
    elif isinstance(value, Metric):
        kind = 2
    elif isinstance(value, (list, tuple)):
        kind = _SEQUENCE
    elif isinstance(value, dict):
        kind = _MAPPING
    else:
        kind = _OTHER
    _KINDS[value.__class__] = kind
    return kind


def _track_variables(layer, value):
    """Appends the Variables in an attribute value (lists/dicts walked) to the
    layer's own variables when first assigned, as Keras's tracker does: a
    layer's weights are in the order they were tracked (`add_weight` or
    attribute assignment), trainable ones by their flag at that time."""
    if isinstance(value, Variable):
        own = layer._trainable_variables if value.trainable else layer._non_trainable_variables
        if not any(v is value for v in layer._trainable_variables) and \
                not any(v is value for v in layer._non_trainable_variables):
            own.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _track_variables(layer, item)
    elif isinstance(value, dict):
        for item in value.values():
            _track_variables(layer, item)


_SKIP_ATTRS = {"_inbound_nodes", "_init_args", "_trainable_variables", "_trainable_cache",
               "_non_trainable_variables", "_losses", "_build_shapes", "_initial_weights",
               "_outputs", "_inputs", "_nodes_by_depth", "_trainer_state", "optimizer",
               "history", "_compile_config", "_callbacks", "_parent_model", "_loss_tracker",
               "_compile_metrics", "_compile_loss", "_scan_cache", "_functional",
               "_state_variables"}


def _input_shape_from_kwargs(kwargs):
    if kwargs.get("batch_input_shape") is not None:
        return tuple(kwargs["batch_input_shape"])
    if kwargs.get("input_shape") is not None:
        return (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
    if kwargs.get("input_dim") is not None:
        return (kwargs.get("batch_size"), kwargs["input_dim"])
    return None


def _as_shape(value):
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)):
        return [tuple(v) for v in value]
    return tuple(value) if value is not None else None


def warn_not_built(layer):
    warnings.warn(
        f"`build()` was called on layer '{layer.name}', however the layer does not have a "
        "`build()` method implemented and it looks like it has unbuilt state. This will "
        "cause the layer to be marked as built, despite not being actually built, which may "
        "cause failures down the line. Make sure to implement a proper `build()` method.",
        stacklevel=3)
