"""Trainer: compile / fit / evaluate / predict, mixed into `Model`.

One training step (`train_step`, overridable): forward under a
GradientTape, `compute_loss`, gradients of the trainable weights, the
optimizer update, `compute_metrics`. The loops below pull batches from a
data adapter, drive callbacks and build the logs Keras reports.
"""
import inspect
import warnings

from kerasish import distribute, metrics as metrics_module, optimizers
from kerasish.autodiff.function import CapturedFunction
from kerasish.autodiff.stateless_scope import StatelessScope
from kerasish.backend import keras_graph
from kerasish.backend.symbolic_scope import SymbolicScope
from kerasish.autodiff.tape import GradientTape
from kerasish.callbacks.history import History
from kerasish.distribute import distribute_lib
from kerasish.ops import core, elementwise as ew
from kerasish.data import data_adapters
from kerasish.trainers import captured_step, compile_utils, epoch_loops, training_arg
from kerasish.utils import tree


class Trainer:
    """Training mix-in for Model (see `Model`)."""

    def __init__(self, steps_per_execution=1):
        self.compiled = False
        self.optimizer = None
        self.loss = None
        self.stop_training = False
        self.stop_evaluating = False  # set by a callback: evaluate() stops after this batch
        self.stop_predicting = False  # set by a callback: predict() stops after this batch
        self.history = None
        self._compile_loss = None
        self._compile_metrics = None
        self._loss_tracker = None
        self._compile_config = None
        self.steps_per_execution = steps_per_execution
        self._distribute_strategy = distribute_lib.current_strategy()
        self._jit_compile = False
        self.run_eagerly = False
        self._captured_train_step = None
        self._captured_steps = {}  # "test" / "predict" -> CapturedFunction (jit_compile=True)

    @property
    def distribute_strategy(self):
        """The strategy the model was created (or compiled) under; the default one if none."""
        return self._distribute_strategy or distribute.get_strategy()

    # compile ----------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True):
        """Configures the model for training.

        Args:
            optimizer: optimizer name ("adam", ...) or instance.
            loss: loss name, function or instance; a list/dict for several outputs.
            loss_weights: per-output weights of the loss terms.
            metrics: metric names/objects; a list per output or a dict by output name.
            weighted_metrics: metrics that use `sample_weight`.
            steps_per_execution: positive int; the batch callbacks run once per
                this many steps, with Keras's batch indices (see `fit`).
            run_eagerly: run the Python step on every batch (no capture).
            jit_compile: True captures the training step (see
                `docs/jit_compile.md`): traced once per input signature,
                checked against the eager step, then replayed as a flat plan
                of array operations; a step that cannot be captured runs
                eagerly after one warning. "auto" (the default) and False run
                eagerly.
            auto_scale_loss: wrap the optimizer in a `LossScaleOptimizer` when the
                model's dtype policy is "mixed_float16" (as Keras).

        Example:
            >>> model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
            ...               metrics=["accuracy"])
        """
        self.optimizer = optimizers.get(optimizer)
        if auto_scale_loss and self.dtype_policy.name == "mixed_float16" and \
                self.optimizer is not None and \
                not isinstance(self.optimizer, optimizers.LossScaleOptimizer):
            self.optimizer = optimizers.LossScaleOptimizer(self.optimizer,
                                                           name="loss_scale_optimizer")
        self.loss = loss
        names = self._output_names(loss)
        # As in Keras, compiling again without `loss` / `metrics` keeps the previous ones.
        if loss is not None:
            self._compile_loss = compile_utils.CompileLoss(loss, loss_weights, names)
        if metrics is not None or weighted_metrics is not None:
            self._compile_metrics = compile_utils.CompileMetrics(metrics, weighted_metrics, names)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.steps_per_execution = epoch_loops.check_count(
            "compile", "steps_per_execution", steps_per_execution, allow_none=False)
        self._compile_config = {"optimizer": optimizer, "loss": loss, "loss_weights": loss_weights,
                                "metrics": metrics, "weighted_metrics": weighted_metrics}
        self.compiled = True
        self._trainable_cache = None
        self.stop_training = False
        self._distribute_strategy = distribute_lib.current_strategy() or self._distribute_strategy
        self._set_jit_compile(jit_compile, run_eagerly)

    @property
    def jit_compile(self):
        """Whether the steps are captured (`compile(jit_compile=True)`; see `docs/jit_compile.md`)."""
        return self._jit_compile

    @jit_compile.setter
    def jit_compile(self, value):
        self._set_jit_compile(value if isinstance(value, str) else bool(value), self.run_eagerly)

    def _set_jit_compile(self, jit_compile, run_eagerly):
        """Keras's rules for `run_eagerly` / `jit_compile`; builds the captured step."""
        if jit_compile not in (True, False, "auto"):
            raise ValueError(f"compile: `jit_compile` must be True, False or \"auto\". "
                             f"Received: jit_compile={jit_compile!r}")
        if jit_compile is True and run_eagerly:
            jit_compile = False
            warnings.warn("If `run_eagerly` is True, then `jit_compile` cannot also be True. "
                          "Disabling `jit_compile`.", stacklevel=3)
        self.run_eagerly = bool(run_eagerly)
        self._jit_compile = jit_compile is True
        self._captured_train_step = None
        self._captured_steps = {}
        if not self._jit_compile:
            return
        if self._distribute_strategy is not None:
            warnings.warn(f"jit_compile: model '{self.name}' trains under a distribution "
                          "strategy; its step is not captured and runs eagerly.", stacklevel=3)
        else:
            self._captured_train_step = captured_step.CapturedTrainStep(
                self, custom=type(self).train_step is not Trainer.train_step)
            for kind, what in (("test", "evaluation"), ("predict", "prediction")):
                self._captured_steps[kind] = CapturedFunction(
                    getattr(self, f"{kind}_step"),
                    label=f"jit_compile: the {what} step of model '{self.name}'")

    def _output_names(self, loss=None):
        outputs = getattr(self, "_outputs", None)
        if outputs:
            struct = getattr(self, "_outputs_struct", None)
            if isinstance(struct, dict):
                return sorted(struct)
            return [t._keras_history[0].name for t in outputs]
        if isinstance(loss, dict) and loss:
            # a subclassed model returning a dict: the loss dict names its outputs (Keras)
            return sorted(loss)
        if isinstance(loss, (list, tuple)) and len(loss) > 1:
            # a subclassed model returning a list: one output per loss entry
            return [f"output_{i}" for i in range(len(loss))]
        return ["output"]

    def _assert_compiled(self, method):
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")  # Keras's text

    @property
    def metrics(self):
        """Keras 3's order: once compiled, the loss tracker, the `compile_metrics`
        container and the per-output loss trackers; then the metrics assigned
        as attributes of the model (`self.loss_tracker = keras.metrics.Mean(...)`)
        and of its sublayers (not of nested models, which have their own)."""
        out = []
        if self.compiled:
            if self._loss_tracker is not None:
                out.append(self._loss_tracker)
            if self._compile_metrics is not None:
                out.append(self._compile_metrics)
            if self._compile_loss is not None:
                out.extend(self._compile_loss.metrics)
        out.extend(self._tracked_metrics())
        for layer in self._flatten_layers(include_self=False):
            if not isinstance(layer, Trainer):
                out.extend(layer._tracked_metrics())
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    # Keras 2's step helpers, kept by Keras 3 (TensorFlow backend) for old train/test steps
    @property
    def compiled_metrics(self):
        """Deprecated (Keras 2): `model.compiled_metrics.update_state(y, y_pred)` updates
        every metric in `self.metrics` (a `Mean`, the loss tracker included, with `y_pred`),
        after a warning, as Keras 3 does."""
        model = self

        class DeprecatedCompiledMetric:
            def update_state(self, y, y_pred, sample_weight=None):
                warnings.warn("`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n"
                              "```\nfor metric in self.metrics:\n"
                              "    metric.update_state(y, y_pred)\n```\n", stacklevel=2)
                for metric in model.metrics:
                    if isinstance(metric, metrics_module.Mean):
                        metric.update_state(y_pred, sample_weight=sample_weight)
                    else:
                        metric.update_state(y, y_pred, sample_weight=sample_weight)
        return DeprecatedCompiledMetric()

    def compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
        """Deprecated (Keras 2): `compute_loss(y=y, y_pred=y_pred, sample_weight=...)` after
        a warning, as Keras 3 does (`regularization_losses` is ignored: `compute_loss`
        adds `model.losses` itself)."""
        warnings.warn("`model.compiled_loss()` is deprecated. Instead, use "
                      "`model.compute_loss(x, y, y_pred, sample_weight, training)`.")
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    # the step functions (override points) -------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss plus `model.losses` (regularizers, add_loss)."""
        total = None
        if self._compile_loss is not None and y is not None:
            total = self._compile_loss(y, y_pred, sample_weight)
        for extra in self.losses:
            total = extra if total is None else ew.add(total, extra)
        if total is None and self._compile_loss is not None and y is None:
            raise ValueError(
                "The model was compiled with a loss, but the targets `y` are None: pass `y` to "
                "`fit()`/`evaluate()` (or a dataset/generator yielding `(x, y)` batches), or "
                "compile without a loss and add losses with `add_loss()`.")
        if total is None:
            raise ValueError(
                "No loss to compute. Provide a `loss` argument in `compile()` (and `y` data), "
                "or add losses with `add_loss()`."
            )
        return distribute_lib.scale_loss(total)  # a replica's share of the global batch

    def _symbolic_build(self, iterator=None, data_batch=None):
        """Builds what a first batch would (model, compiled metrics and losses, optimizer)
        without changing any state, as Keras's `_symbolic_build`.

        Keras traces on KerasTensors of the batch's shapes; kerasish runs the batch
        inside a `StatelessScope` (no variable changes: metrics stay at zero, weights
        and statistics as they were) and a `SymbolicScope` (so `in_symbolic_scope()`
        is True for the model's code, as in Keras).

        Args:
            iterator: an epoch iterator to take the first batch from, if
                `data_batch` is None.
            data_batch: an `(x, y, sample_weight)` batch.
        """
        model_unbuilt = not all(layer.built for layer in self._flatten_layers())
        metrics_unbuilt = self._compile_metrics is not None and not self._compile_metrics.built
        loss_unbuilt = self._compile_loss is not None and not self._compile_loss.built
        optimizer = getattr(self, "optimizer", None)
        if model_unbuilt or metrics_unbuilt or loss_unbuilt:
            if data_batch is None:
                data_batch = next(iter(iterator))
            x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data_batch)
            with StatelessScope(), SymbolicScope():
                y_pred = self(x, training=False)
                if metrics_unbuilt:
                    self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)
                if loss_unbuilt:
                    extra = {"training": False} if _takes_training(self.compute_loss) else {}
                    self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                      **extra)
        if optimizer is not None and not optimizer.built:
            # Keras's TensorFlow trainer builds it in the first (traced) step, in `apply`.
            if hasattr(optimizer, "_build_in_name_scope"):
                optimizer._build_in_name_scope(self.trainable_variables,
                                               traced=not self.run_eagerly)
            else:
                optimizer.build(self.trainable_variables)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Updates the compiled metrics and returns `get_metrics_result()`."""
        if y is not None and self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        """Current value of every metric, as a dict name -> Tensor."""
        logs = {}
        for metric in self.metrics:
            if hasattr(metric, "update_state") and getattr(metric, "built", True) is not False:
                result = metric.result()
                if isinstance(result, dict):
                    logs.update(result)
                else:
                    logs[metric.name] = result
        return logs

    def _cached_trainable_weights(self):
        """The variables the train step updates, read once per `compile` and entry point.

        Keras's train function reads `trainable_weights` when it is traced: the
        first `fit` step after `compile`, and separately the first
        `train_on_batch` (another input signature); a layer frozen or unfrozen
        afterwards takes effect only after the next `compile`. With
        `run_eagerly` every step reads them again. A set the built optimizer
        does not know is not kept: its step fails (as Keras's trace does) and
        the next one reads the layers again.
        """
        if self.run_eagerly:
            return self.trainable_weights
        cache = self._trainable_cache if isinstance(self._trainable_cache, dict) else {}
        key = getattr(self, "_train_entry", "fit")
        if key not in cache:
            variables = self.trainable_weights
            if not _optimizer_knows(getattr(self, "optimizer", None), variables):
                return variables
            cache[key] = variables
            self._trainable_cache = cache
        return cache[key]

    def train_step(self, data):
        """One optimisation step on a batch; returns the logs dict."""
        x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, **training_arg.training_kwargs(self, True))
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            scaled_loss = self.optimizer.scale_loss(loss)
        self._loss_tracker.update_state(distribute_lib.unscale_loss(loss),
                                        sample_weight=_batch_size(x))
        variables = self._cached_trainable_weights()
        if not variables:
            warnings.warn("The model does not have any trainable weights.")   # as Keras
        grads = tape.gradient(scaled_loss, variables)
        self.optimizer.apply(grads, variables)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        """One evaluation step on a batch; returns the logs dict."""
        x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data)
        y_pred = self(x, **training_arg.training_kwargs(self, False))
        extra = {"training": False} if _takes_training(self.compute_loss) else {}
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, **extra)
        self._loss_tracker.update_state(distribute_lib.unscale_loss(loss),
                                        sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        """The model's outputs for a batch."""
        x, _, _ = data_adapters.unpack_x_y_sample_weight(data)
        return self(x, **training_arg.training_kwargs(self, False))

    # loops ------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        """Trains the model for a number of epochs. Returns a `History`.

        Arguments and semantics follow Keras 3 (`validation_split` takes the
        last fraction of the arrays before shuffling; `batch_size` defaults
        to 32; `epochs` is the index of the last epoch).
        """
        self._assert_compiled("fit")
        options = dict(batch_size=batch_size, epochs=epochs, verbose=verbose,
                       callbacks=callbacks, validation_split=validation_split,
                       validation_data=validation_data, shuffle=shuffle,
                       class_weight=class_weight, sample_weight=sample_weight,
                       initial_epoch=initial_epoch, steps_per_epoch=steps_per_epoch,
                       validation_steps=validation_steps,
                       validation_batch_size=validation_batch_size,
                       validation_freq=validation_freq)
        strategy = distribute_lib.model_strategy(self)
        if getattr(strategy, "_drives_fit", False):  # ParameterServerStrategy
            return self._fit_driven(strategy, x, y, options)
        return epoch_loops.FitLoop(self, x, y, **options).run()

    def _fit_driven(self, strategy, x, y, options):
        """fit under a strategy whose chief drives it and whose other ranks serve."""
        def run_loop(source):
            return epoch_loops.FitLoop(self, source, None, **dict(options, shuffle=False)).run()

        outcome = strategy._fit(self, x, y, options, run_loop)
        if isinstance(outcome, History) or outcome is None:
            return outcome
        history = History()  # a serving rank: the chief's history
        history.set_model(self)
        history.history, history.epoch, history.params = outcome
        self.history = history
        return history

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, **kwargs):
        """Returns the loss (and metrics) on data: a scalar, a list, or a dict."""
        self._assert_compiled("evaluate")
        return epoch_loops.evaluate(self, x, y, batch_size, verbose, sample_weight, steps,
                                    callbacks, return_dict)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Returns the model's outputs on `x` as numpy arrays (batched, no tape)."""
        return epoch_loops.predict(self, x, batch_size, verbose, steps, callbacks)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One gradient update on one batch; returns the metrics (scalar/list/dict)."""
        self._assert_compiled("train_on_batch")
        if class_weight is not None:
            if sample_weight is not None:  # Keras's words
                raise ValueError(
                    "Arguments `sample_weight` and `class_weight` cannot be specified at the "
                    f"same time. Received: sample_weight={sample_weight}, "
                    f"class_weight={class_weight}")
            sample_weight = data_adapters._class_weight_to_sample_weight(
                core.convert_to_numpy(y), class_weight, sample_weight)
        self.reset_metrics()
        step = distribute_lib.step_function(self, "train")
        self._train_entry = "train_on_batch"  # its own trace in Keras (see above)
        try:
            with keras_graph.compiled_step(not self.run_eagerly):
                logs = step(_as_tensors(self, data_adapters.pack_x_y_sample_weight(
                    x, y, sample_weight)))
        finally:
            self._train_entry = "fit"
        return epoch_loops.format_results(self, logs, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Evaluates one batch; returns the metrics (scalar/list/dict)."""
        self._assert_compiled("test_on_batch")
        self.reset_metrics()
        step = distribute_lib.step_function(self, "test")
        with keras_graph.compiled_step(not self.run_eagerly):
            logs = step(_as_tensors(self, data_adapters.pack_x_y_sample_weight(
                x, y, sample_weight)))
        return epoch_loops.format_results(self, logs, return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as numpy."""
        step = distribute_lib.step_function(self, "predict")
        with keras_graph.compiled_step(not self.run_eagerly):
            outputs = step(_as_tensors(self, (x,)))
        return tree.map_structure(core.convert_to_numpy, outputs)


def _as_tensors(model, data):
    """A batch given to `*_on_batch` as tensors, as Keras converts it before its step
    (a functional model converts none of its inputs itself); not under a strategy,
    which places the batch on its replicas itself."""
    if getattr(model, "_distribute_strategy", None) is not None:
        return data
    return epoch_loops.to_device(data)


def _optimizer_knows(optimizer, variables):
    """False when a built optimizer was built on other variables than some of these."""
    if optimizer is None or not getattr(optimizer, "built", False):
        return True
    check = getattr(optimizer, "_check_variables_are_known", None)
    try:
        if check is not None:
            check(variables)
    except ValueError:
        return False
    return True


def _batch_size(x):
    first = tree.flatten(x)[0]
    return first.shape[0] if getattr(first, "ndim", 0) else 1


def _takes_training(compute_loss):
    """Whether a (possibly user-overridden) `compute_loss` accepts `training` (Keras
    still calls older overrides without it)."""
    try:
        params = inspect.signature(compute_loss).parameters
    except (TypeError, ValueError):
        return True
    return "training" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())

