"""The fit / evaluate / predict loops: batches in, callbacks and logs out.

One training step, as the loops run it:
- the batch (numpy, from `kerasish.data.data_adapters`) becomes Tensors on
  the device once (`to_device`), so `train_step` converts neither x nor y again;
- `train_step` returns its logs as device Tensors; the loop does not read
  them. `CallbackList` turns them into floats only when a callback reads
  batch logs, or when the progress bar redraws (verbose=1); at verbose 0/2
  the host reads the metrics once per epoch;
- a NaN/inf loss is applied and training goes on, as in Keras
  (`TerminateOnNaN` stops it after that batch).

With `steps_per_execution=N` (compile), the batch callbacks run once per N
steps with Keras's batch indices: `on_train_batch_begin(begin)` and
`on_train_batch_end(begin + N - 1, logs)`, the logs of the last step run.
"""
import contextlib
import warnings

import numpy as np

from kerasish.backend import config as backend_config, keras_graph, switches
from kerasish.autodiff.stateless_scope import StatelessScope
from kerasish.callbacks import CallbackList
from kerasish.data import data_adapters
from kerasish.distribute import distribute_lib
from kerasish.layers import call_utils
from kerasish.layers.keras_tensor import KerasTensor, tracing
from kerasish.ops import core
from kerasish.ops.crossentropy import shape_error
from kerasish.utils import tree

_RAN_OUT = ("Your input ran out of data; interrupting training. Make sure that your dataset "
            "or generator can generate at least `steps_per_epoch * epochs` batches. You may "
            "need to use the `.repeat()` function when building your dataset.")


def _verbose(verbose):
    return 1 if verbose == "auto" else int(verbose)


def _callbacks(model, callbacks, verbose, epochs, steps, history):
    if callbacks is not None and not isinstance(callbacks, (list, tuple)):
        callbacks = [callbacks]
    return CallbackList(callbacks, add_history=history, add_progbar=verbose != 0,
                        verbose=verbose, epochs=epochs, steps=steps, model=model)


def to_floats(logs):
    """Keras's `pythonify_logs`: reads metric tensors once (one device->host transfer
    per value), keys in sorted order, and a nested dict (a metric whose result is a
    dict, `compile_metrics` returned by a custom `train_step`) flattened where its key
    sorts, its own keys sorted in turn; a value that is not a scalar stays an array.
    """
    out = {}
    for k, v in sorted((logs or {}).items(), key=lambda item: item[0]):
        if isinstance(v, dict):
            out.update(to_floats(v))
            continue
        out[k] = _read_value(v)
    return out


def _read_logs(logs):
    """The logs with every value read (floats or arrays), nested dicts kept as they are."""
    return {k: _read_logs(v) if isinstance(v, dict) else _read_value(v)
            for k, v in logs.items()}


def _read_value(v):
    value = core.convert_to_numpy(v) if v is not None else v
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def to_device(batch):
    """The numeric numpy arrays of a batch as Tensors on the current device (one copy)."""
    if isinstance(batch, tuple) and all(isinstance(v, np.ndarray) for v in batch):
        return tuple(_array_to_device(v) for v in batch)  # the common (x, y[, sw]) batch
    return tree.map_structure(_array_to_device, batch)


def _array_to_device(value):
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        return core.convert_to_tensor(value)
    return value


# Argument checks ---------------------------------------------------------------------------
def check_count(method, name, value, minimum=1, allow_none=True):
    """Raises a ValueError naming `method`'s argument unless `value` is an int >= minimum."""
    if value is None and allow_none:
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < minimum:
        expected = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        if allow_none:
            expected += " or None"
        raise ValueError(f"`{method}()`: invalid `{name}`; expected {expected}. "
                         f"Received: {name}={value!r}")
    return int(value)


def check_data(method, name, value, required):
    """Raises a ValueError for a Python string (or a required None) passed as data."""
    if isinstance(value, (str, bytes)):
        raise ValueError(
            f"`{method}()`: `{name}` must be array-like data (a numpy array, a Tensor, a list "
            f"or dict of arrays, a dataset or a generator), not a string. Received: "
            f"{name}={value!r}. To feed text, pass an array of strings.")
    if value is None and required:
        raise ValueError(
            f"`{method}()`: `{name}` is None; expected the input data (a numpy array, a "
            "Tensor, a list or dict of arrays, a dataset or a generator).")


# Iteration ---------------------------------------------------------------------------------
class EpochIterator:
    """Batches of one epoch grouped into executions of `steps_per_execution` steps (Keras's).

    `executions()` yields `(begin, end)` batch indices (end = begin + N - 1,
    as Keras reports it even when fewer steps remain); `take()` then draws
    the execution's batches, and the caller ends the epoch when it draws none
    (so, as in Keras, data of unknown size ends with one `batch_begin` that
    has no `batch_end`). With `steps_per_epoch`, the position in the data
    is kept across epochs and an epoch that reaches the end of data of known
    size stops early with Keras's warning; a one-shot source that runs dry
    ends training (`exhausted`).

    Args:
        adapter: a data adapter (`num_batches`, `batches()`).
        steps_per_epoch: steps per epoch, or None for one pass over the data.
        steps_per_execution: steps per callback round (default 1).
    """

    def __init__(self, adapter, steps_per_epoch=None, steps_per_execution=1):
        cap = switches.max_steps_per_epoch()  # keras.config.set_max_steps_per_epoch
        if cap and (not steps_per_epoch or cap < steps_per_epoch):
            warnings.warn(f"Limiting steps_per_epoch to {cap}")
            steps_per_epoch = cap
        self.adapter = adapter
        self.steps_per_epoch = steps_per_epoch
        self.steps_per_execution = steps_per_execution
        self.num_batches = adapter.num_batches
        self.exhausted = False
        self._iterator = None
        self._steps_seen = 0

    def reset(self):
        """Keras's `EpochIterator.reset()` (fit and evaluate call it first): runs the
        data's `on_epoch_end` hook (a PyDataset's), before any epoch."""
        self._data_hook("on_epoch_end")

    def _data_hook(self, name):
        hook = getattr(self.adapter, name, None)
        if hook is not None:
            hook()

    def executions(self):
        """Yields (begin, end) for each execution of one epoch.

        As Keras, the data's `on_epoch_begin` hook runs first and its
        `on_epoch_end` once the epoch's steps are all drawn (or the data runs
        out); an epoch left early (`stop_training`) does not end it.
        """
        self._data_hook("on_epoch_begin")
        size = self.steps_per_execution
        steps = self.steps_per_epoch or self.num_batches
        if not steps:  # data of unknown size: until an execution finds no batch at all
            self._iterator = iter(self.adapter.batches())
            begin = 0
            while True:
                yield begin, begin + size - 1
                begin += size
        if self._iterator is None or self.steps_per_epoch is None:
            self._restart()
        for begin in range(0, steps, size):
            if self.num_batches and self._steps_seen >= self.num_batches:
                if self.steps_per_epoch:
                    warnings.warn(_RAN_OUT, stacklevel=4)
                break
            self._steps_seen += size
            yield begin, begin + size - 1
        if self.num_batches and self._steps_seen >= self.num_batches:
            next(self._iterator, None)  # lets the source finish its pass
            self._restart()
        self._data_hook("on_epoch_end")

    def take(self):
        """The batches of the current execution ([] when the data ran out)."""
        batches = []
        for _ in range(self.steps_per_execution):
            try:
                batches.append(next(self._iterator))
            except StopIteration:
                self._on_ran_out()
                break
        return batches

    def _restart(self):
        self._iterator = iter(self.adapter.batches())
        self._steps_seen = 0

    def _on_ran_out(self):
        self._data_hook("on_epoch_end")
        if self.steps_per_epoch is None:
            # One pass over the data ends the epoch; Keras still warns when the
            # data's size was unknown (a generator), not for a short last execution.
            if not self.num_batches:
                warnings.warn(_RAN_OUT, stacklevel=5)
            return
        warnings.warn(_RAN_OUT, stacklevel=5)
        one_shot = isinstance(self.adapter, data_adapters.IterableAdapter) and \
            not callable(self.adapter.source) and data_adapters._is_one_shot(self.adapter.source)
        self.exhausted = one_shot or self._steps_seen <= self.steps_per_execution
        self._iterator = None


def _steps_per_execution(model):
    return check_count("compile", "steps_per_execution",
                       getattr(model, "steps_per_execution", 1) or 1, allow_none=False)


# fit ----------------------------------------------------------------------------------------
class FitLoop:
    """One `fit` call: its data, its callbacks and the epoch/step loop.

    Args:
        model: the compiled model.
        x, y, sample_weight, batch_size, shuffle, class_weight: the training data.
        epochs, initial_epoch, steps_per_epoch, verbose, callbacks: as `Model.fit`.
        validation_split, validation_data, validation_steps,
            validation_batch_size, validation_freq: as `Model.fit`.
    """

    def __init__(self, model, x=None, y=None, *, batch_size=None, epochs=1, verbose="auto",
                 callbacks=None, validation_split=0.0, validation_data=None, shuffle=True,
                 class_weight=None, sample_weight=None, initial_epoch=0, steps_per_epoch=None,
                 validation_steps=None, validation_batch_size=None, validation_freq=1):
        self._check_arguments(x, y, batch_size, epochs, initial_epoch, steps_per_epoch,
                              validation_steps, validation_batch_size)
        self.model = model
        if switches.max_epochs() and switches.max_epochs() < epochs:  # keras.config cap
            warnings.warn(f"Limiting epochs to {switches.max_epochs()}")
            epochs = switches.max_epochs()
        self.epochs = epochs
        self.initial_epoch = initial_epoch
        self.validation_steps = validation_steps
        self.validation_freq = validation_freq
        if validation_split and validation_data is None:
            train, validation_data = data_adapters.train_validation_split(
                (x, y, sample_weight), validation_split)
            x, y, sample_weight = train
        adapter = data_adapters.get_adapter(x, y, sample_weight, batch_size, shuffle,
                                            class_weight)
        self.val_adapter = self._validation_adapter(validation_data,
                                                    validation_batch_size or batch_size)
        self._static_batch = getattr(adapter, "static_batch_size", None)
        adapter, self.train_step, verbose = distribute_lib.loop_setup(
            model, adapter, _verbose(verbose), "train")
        self.on_device = getattr(model, "_distribute_strategy", None) is None
        self.iterator = EpochIterator(adapter, steps_per_epoch, _steps_per_execution(model))
        self.iterator.reset()
        self._build_checked = False  # see build_with_unknown_batch (first batch only)
        self.callbacks = _callbacks(model, callbacks, verbose, epochs,
                                    self.iterator.steps_per_epoch or adapter.num_batches,
                                    history=True)

    @staticmethod
    def _check_arguments(x, y, batch_size, epochs, initial_epoch, steps_per_epoch,
                         validation_steps, validation_batch_size):
        check_data("fit", "x", x, required=True)
        check_data("fit", "y", y, required=False)
        check_count("fit", "batch_size", batch_size)
        check_count("fit", "epochs", epochs, minimum=0, allow_none=False)
        check_count("fit", "initial_epoch", initial_epoch, minimum=0, allow_none=False)
        check_count("fit", "steps_per_epoch", steps_per_epoch)
        check_count("fit", "validation_steps", validation_steps)
        check_count("fit", "validation_batch_size", validation_batch_size)

    @staticmethod
    def _validation_adapter(validation_data, batch_size):
        if validation_data is None:
            return None
        if isinstance(validation_data, (tuple, list)):
            vx, vy, vsw = data_adapters.unpack_x_y_sample_weight(validation_data)
        else:
            vx, vy, vsw = validation_data, None, None
        return data_adapters.get_adapter(vx, vy, vsw, batch_size)

    def run(self):
        """Trains; returns the model's `History`."""
        model, cbs = self.model, self.callbacks
        model.stop_training = False
        model._initial_epoch, model._resume_step = None, 0
        cbs.on_train_begin()
        # BackupAndRestore sets where an interrupted run stopped (Keras 3's `_initial_epoch`).
        first = model._initial_epoch if model._initial_epoch is not None else self.initial_epoch
        resume_step = model._resume_step or 0
        training_logs = None
        for epoch in range(first, self.epochs):
            training_logs = self._run_epoch(epoch, resume_step)
            resume_step = 0
            if model.stop_training or self.iterator.exhausted:
                break
        optimizer = getattr(model, "optimizer", None)
        if self.epochs > 0 and hasattr(optimizer, "finalize_variable_values"):
            # with use_ema the model ends with its moving averages (Keras's fit)
            optimizer.finalize_variable_values(model.trainable_weights)
        cbs.on_train_end(training_logs)
        return model.history

    def _run_epoch(self, epoch, resume_step):
        model, cbs = self.model, self.callbacks
        model.reset_metrics()
        cbs.on_epoch_begin(epoch)
        logs = {}
        for begin, end in self.iterator.executions():
            if begin < resume_step:
                self.iterator.take()  # trained before the interruption; drawn to keep the order
                continue
            cbs.on_train_batch_begin(begin)
            batches = self.iterator.take()
            if not batches:
                break
            logs = self._run_execution(batches, logs)
            cbs.on_train_batch_end(end, logs)
            if model.stop_training:
                break
        finish = getattr(self.train_step, "finish_epoch", None)
        if finish is not None:  # an asynchronous step (ParameterServerStrategy): wait for it
            logs = finish() or logs  # the logs with every step of the epoch counted
        # As Keras, the metrics' results are read only after validation ran: a metric whose
        # result() returns its own variable shows the value validation left in it.
        epoch_logs = (_metrics_result_or_logs(model, logs, read=False) if logs or not resume_step
                      else model.get_metrics_result())
        if self.val_adapter is not None and _should_validate(epoch, self.validation_freq):
            val_logs = evaluate_adapter(model, self.val_adapter, 0, None, self.validation_steps,
                                        callback_list=cbs)
            epoch_logs = dict(epoch_logs)
            epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
        # read now; the callbacks' pythonify sorts the keys and flattens a dict result
        # where its key sorts (Keras's order: "mean_absolute_error", then "stats"'s keys)
        epoch_logs = _read_logs(epoch_logs)
        cbs.on_epoch_end(epoch, epoch_logs)
        return epoch_logs

    def _run_execution(self, batches, logs):
        """Runs `train_step` on each batch of one execution."""
        with keras_graph.compiled_step(not self.model.run_eagerly), \
                traced_batch_in_errors(self.model, self._static_batch):
            for batch in batches:
                if self.on_device and not self._build_checked:
                    build_with_unknown_batch(self.model, batch, self._static_batch)
                    self._build_checked = True
                data = to_device(batch) if self.on_device else batch
                with graph_step(self.model, self._static_batch):
                    logs = self.train_step(data)
        return logs


@contextlib.contextmanager
def graph_step(model, batch_size=call_utils._REAL):
    """The context of one step that Keras on TensorFlow runs as a graph (not with
    `run_eagerly=True`): kernels as TensorFlow's graph computes them
    (`backend.keras_graph`), error messages with its inputs as graph tensors and,
    for fit and evaluate (`batch_size` given), the traced batch dimension."""
    if model.run_eagerly:
        yield
        return
    with keras_graph.compiled_step(), call_utils.traced_step(batch_size):
        yield


@contextlib.contextmanager
def traced_batch_in_errors(model, batch_size):
    """Shape errors in Keras's words (a `keras_shapes` attribute) show the batch
    dimension of the traced step, as Keras's fit/evaluate on TensorFlow print it:
    the dataset's (`None` unless every batch has the same size). Keras's eager
    runs (`run_eagerly=True`) print the real shapes, and so does this then.

    Args:
        model: the model being run.
        batch_size: the static batch dimension, None when unknown.
    """
    try:
        yield
    except ValueError as error:
        shapes = getattr(error, "keras_shapes", None)
        if shapes is None or model.run_eagerly:
            raise
        template, target, output = shapes

        def traced(shape):
            return (batch_size,) + shape[1:] if shape else shape
        raise shape_error(template, traced(target), traced(output)) from error


def build_with_unknown_batch(model, batch, batch_size=None):
    """Builds the model's unbuilt layers as Keras on TensorFlow does in fit/evaluate.

    There the first step is traced with the input dataset's batch dimension:
    unknown unless every batch has the same size (arrays whose sample count is
    a multiple of `batch_size`; a Dataset batched with `drop_remainder=True`
    also has one there, not followed here: kerasish's `map` reads its spec
    off one element, so a batch size it shows may be unknown to tf.data), so the layers that step builds record `(None, ...)` or `(batch_size, ...)`
    input shapes (the summary's output shapes after `fit`). Here the model is
    called once on KerasTensors of that shape, in a trace (no graph node,
    nothing computed, no variable assigned). A model whose call cannot be
    traced is left to build on the real batch.

    Args:
        model: the model.
        batch: the first batch.
        batch_size: the static batch dimension, None when unknown.
    """
    if all(getattr(layer, "built", True) for layer in model._flatten_layers()):
        return
    x = data_adapters.unpack_x_y_sample_weight(batch)[0]
    if x is None:
        return

    def spec(value):
        shape = getattr(value, "shape", None)
        if shape is None or len(shape) == 0:
            return value
        return KerasTensor((batch_size,) + tuple(shape[1:]), backend_config.standardize_dtype(value.dtype))

    try:
        # assignments made by `call` (a counter Variable...) are dropped, as in Keras's trace
        with StatelessScope(), tracing():
            model(tree.map_structure(spec, x), training=False)
    except Exception:  # noqa: BLE001 - untraceable user code: build on the real batch
        pass


def _metrics_result_or_logs(model, logs, read=True):
    """Keras's rule: the metrics' results if their names match the step logs, else the logs.

    With `read=False` the results are returned unread (Tensors, or a metric's own variable).
    """
    results = model.get_metrics_result()
    chosen = results if isinstance(logs, dict) and logs and set(results) == set(logs) \
        else logs   # Keras compares the top-level names (a dict result is one name)
    return to_floats(chosen) if read else chosen


def _should_validate(epoch, validation_freq):
    if isinstance(validation_freq, int):
        return (epoch + 1) % validation_freq == 0
    return (epoch + 1) in validation_freq


# evaluate -----------------------------------------------------------------------------------
def evaluate(model, x, y, batch_size, verbose, sample_weight, steps, callbacks, return_dict):
    check_data("evaluate", "x", x, required=True)
    check_data("evaluate", "y", y, required=False)
    check_count("evaluate", "batch_size", batch_size)
    check_count("evaluate", "steps", steps)
    adapter = data_adapters.get_adapter(x, y, sample_weight, batch_size, shuffle=False)
    logs = evaluate_adapter(model, adapter, _verbose(verbose), callbacks, steps)
    return format_results(model, logs, return_dict, pythonify=False)


def evaluate_adapter(model, adapter, verbose, callbacks, steps, callback_list=None):
    """Runs test_step over an adapter; returns float logs.

    Inside `fit`, `callback_list` is fit's own list, so users' callbacks get
    the `on_test_*` hooks as in Keras (the progress bar stays silent).
    """
    static_batch = getattr(adapter, "static_batch_size", None)
    adapter, test_step, verbose = distribute_lib.loop_setup(model, adapter, verbose, "test")
    on_device = getattr(model, "_distribute_strategy", None) is None
    cbs = callback_list or _callbacks(model, callbacks, verbose, 1,
                                      steps or adapter.num_batches, history=False)
    model.reset_metrics()
    model.stop_evaluating = False
    cbs.on_test_begin()
    iterator = EpochIterator(adapter, steps, _steps_per_execution(model))
    iterator.reset()
    logs = {}
    for begin, end in iterator.executions():
        cbs.on_test_batch_begin(begin)
        batches = iterator.take()
        if not batches:
            break
        with traced_batch_in_errors(model, static_batch):
            for batch in batches:
                if on_device and begin == 0:
                    build_with_unknown_batch(model, batch, static_batch)
                data = to_device(batch) if on_device else batch
                with graph_step(model, static_batch):
                    logs = test_step(data)
        cbs.on_test_batch_end(end, logs)
        if model.stop_evaluating:
            break
    # Keras's rule: the metrics' results, unless a custom test_step returned other names.
    logs = (_metrics_result_or_logs(model, logs) if logs
            else to_floats(model.get_metrics_result()))
    cbs.on_test_end(logs)
    return logs


def format_results(model, logs, return_dict, pythonify=True):
    """Keras's evaluate return: a scalar, a list in metrics order, or the dict.

    `pythonify=False` takes logs that `evaluate_adapter` already put in Keras's order.
    """
    if pythonify:
        logs = to_floats(logs)  # Keras pythonifies them: sorted keys
    if return_dict:
        return logs
    names = []
    for m in model.metrics:  # the compiled metrics by their own (unprefixed) names, as Keras
        inner = getattr(m, "metrics", None) if getattr(m, "name", None) == "compile_metrics" \
            else None
        names.extend([sub.name for sub in inner] if isinstance(inner, list) else [m.name])
    results = [logs[n] for n in names if n in logs]
    results += [logs[k] for k in sorted(logs) if k not in names]
    return results[0] if len(results) == 1 else results


# predict ------------------------------------------------------------------------------------
def predict(model, x, batch_size, verbose, steps, callbacks):
    check_data("predict", "x", x, required=True)
    check_count("predict", "batch_size", batch_size)
    check_count("predict", "steps", steps)
    adapter = data_adapters.get_adapter(x, None, None, batch_size, shuffle=False)
    adapter, predict_step, verbose = distribute_lib.loop_setup(model, adapter, _verbose(verbose),
                                                               "predict")
    cbs = _callbacks(model, callbacks, verbose, 1, steps or adapter.num_batches, history=False)
    on_device = getattr(model, "_distribute_strategy", None) is None
    model.stop_predicting = False
    cbs.on_predict_begin()
    outputs = []
    iterator = EpochIterator(adapter, steps, _steps_per_execution(model))
    for begin, end in iterator.executions():
        cbs.on_predict_batch_begin(begin)
        batches = iterator.take()
        if not batches:
            break
        step_outputs = []
        for batch in batches:
            with graph_step(model):
                # tensors, as Keras's step gets them (a functional model converts none itself)
                data = to_device(batch) if on_device else batch
                step_outputs.append(tree.map_structure(core.convert_to_numpy,
                                                       predict_step(data)))
        outputs.extend(step_outputs)
        cbs.on_predict_batch_end(end, {"outputs": _concatenate(step_outputs)})
        if model.stop_predicting:
            break
    cbs.on_predict_end()
    if not outputs:
        raise ValueError("Unexpected result of `predict`: no batches were produced from the input.")
    return _concatenate(outputs)


def _concatenate(outputs):
    """Per-batch output structures joined along the batch axis."""
    if len(outputs) == 1:
        return outputs[0]
    flat = [tree.flatten(o) for o in outputs]
    merged = [np.concatenate([f[i] for f in flat], axis=0) for i in range(len(flat[0]))]
    return tree.pack_sequence_as(outputs[0], merged)
