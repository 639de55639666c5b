"""The fit / evaluate / predict loops: batches in, callbacks and logs out."""
import warnings

import numpy as np

from kerasish.distribute import distribute_lib
from kerasish.ops import core
from kerasish.trainers import data_adapters
from kerasish.utils import tree


def _verbose(verbose):
    return 1 if verbose == "auto" else int(verbose)


def _callbacks(model, callbacks, verbose, epochs, steps, history):
    from kerasish.callbacks import CallbackList
    if callbacks is not None and not isinstance(callbacks, (list, tuple)):
        callbacks = [callbacks]
    return CallbackList(callbacks, add_history=history, add_progbar=verbose != 0,
                        verbose=verbose, epochs=epochs, steps=steps, model=model)


def to_floats(logs):
    """Reads metric tensors once (one device->host transfer per value).

    Nested dicts (a metric whose result is a dict, e.g. `compile_metrics`
    returned by a custom `train_step`) are flattened, as Keras's
    `pythonify_logs` does; a value that is not a scalar stays an array.
    """
    out = {}
    for k, v in (logs or {}).items():
        if isinstance(v, dict):
            out.update(to_floats(v))
            continue
        value = core.convert_to_numpy(v) if v is not None else v
        try:
            out[k] = float(value)
        except (TypeError, ValueError):
            out[k] = value
    return out


class StepIterator:
    """Yields (step, batch) for one epoch; keeps its place across epochs.

    With `steps` set, an epoch ends after that many batches; a finite
    re-iterable source restarts when exhausted, while a one-shot generator
    that runs dry ends training with Keras's warning.
    """

    def __init__(self, adapter, steps=None):
        self.adapter = adapter
        self.steps = steps
        self._iterator = None
        self.exhausted = False

    def epoch(self):
        if self.steps is None:
            for step, batch in enumerate(self.adapter.batches()):
                yield step, batch
            return
        if self._iterator is None:
            self._iterator = iter(self.adapter.batches())
        step = 0
        restarted = False
        while step < self.steps:
            try:
                batch = next(self._iterator)
            except StopIteration:
                self._iterator = iter(self.adapter.batches())
                if restarted or isinstance(self.adapter, data_adapters.IterableAdapter) and \
                        not callable(self.adapter.source) and data_adapters._is_one_shot(self.adapter.source):
                    self.exhausted = True
                    warnings.warn(
                        "Your input ran out of data; interrupting training. Make sure that your "
                        "dataset or generator can generate at least `steps_per_epoch * epochs` "
                        "batches.", stacklevel=4)
                    return
                restarted = True
                continue
            restarted = False
            yield step, batch
            step += 1


def _sorted_logs(logs):
    return {k: logs[k] for k in sorted(logs)}


def fit(model, x, y, batch_size, epochs, verbose, callbacks, validation_split,
        validation_data, shuffle, class_weight, sample_weight, initial_epoch,
        steps_per_epoch, validation_steps, validation_batch_size, validation_freq):
    verbose = _verbose(verbose)
    if validation_split and validation_data is None:
        train, validation_data = data_adapters.train_validation_split(
            (x, y, sample_weight), validation_split)
        x, y, sample_weight = train
    adapter = data_adapters.get_adapter(x, y, sample_weight, batch_size, shuffle, class_weight)
    val_adapter = None
    if validation_data is not None:
        vx, vy, vsw = data_adapters.unpack_x_y_sample_weight(validation_data) \
            if isinstance(validation_data, (tuple, list)) else (validation_data, None, None)
        val_adapter = data_adapters.get_adapter(vx, vy, vsw, validation_batch_size or batch_size)
    adapter, train_step, verbose = distribute_lib.loop_setup(model, adapter, verbose, "train")
    steps = steps_per_epoch or adapter.num_batches
    cbs = _callbacks(model, callbacks, verbose, epochs, steps, history=True)
    iterator = StepIterator(adapter, steps_per_epoch)
    model.stop_training = False
    model._nan_batch = False
    model._trainable_cache = None
    model._initial_epoch, model._resume_step = None, 0
    cbs.on_train_begin()
    # BackupAndRestore sets where an interrupted run stopped (Keras 3's `_initial_epoch`).
    initial_epoch = model._initial_epoch if model._initial_epoch is not None else initial_epoch
    resume_step = model._resume_step or 0
    training_logs = None
    for epoch in range(initial_epoch, epochs):
        model.reset_metrics()
        cbs.on_epoch_begin(epoch)
        logs = {}
        for step, batch in iterator.epoch():
            if step < resume_step:
                continue  # trained before the interruption; drawn only to keep the order
            cbs.on_train_batch_begin(step)
            logs = to_floats(train_step(batch))
            cbs.on_train_batch_end(step, logs)
            if model._nan_batch:
                if not model.stop_training:  # TerminateOnNaN may already have reported it
                    _report_nan(model, epoch, step)
                model.stop_training = True
                break
            if model.stop_training:
                break
        epoch_logs = _sorted_logs(_metrics_result_or_logs(model, logs) if logs or not resume_step
                                  else to_floats(model.get_metrics_result()))
        if val_adapter is not None and _should_validate(epoch, validation_freq):
            val_logs = evaluate_adapter(model, val_adapter, 0, None, validation_steps,
                                        callback_list=cbs)
            epoch_logs.update({f"val_{k}": v for k, v in _sorted_logs(val_logs).items()})
        cbs.on_epoch_end(epoch, epoch_logs)
        training_logs = epoch_logs
        resume_step = 0
        if model.stop_training or iterator.exhausted:
            break
    cbs.on_train_end(training_logs)
    return model.history


def _metrics_result_or_logs(model, logs):
    """Keras's rule: the metrics' results if their names match the step logs, else the logs."""
    results = to_floats(model.get_metrics_result())
    return results if logs and set(results) == set(logs) else logs


def _report_nan(model, epoch, step):
    print(f"Epoch {epoch + 1}, batch {step + 1}: the loss is NaN or infinite; stopping "
          "training. The weights from before this batch are kept.")


def _should_validate(epoch, validation_freq):
    if isinstance(validation_freq, int):
        return (epoch + 1) % validation_freq == 0
    return (epoch + 1) in validation_freq


def evaluate(model, x, y, batch_size, verbose, sample_weight, steps, callbacks, return_dict):
    adapter = data_adapters.get_adapter(x, y, sample_weight, batch_size, shuffle=False)
    logs = evaluate_adapter(model, adapter, _verbose(verbose), callbacks, steps)
    return format_results(model, logs, return_dict)


def evaluate_adapter(model, adapter, verbose, callbacks, steps, callback_list=None):
    """Runs test_step over an adapter; returns float logs.

    Inside `fit`, `callback_list` is fit's own list, so users' callbacks get
    the `on_test_*` hooks as in Keras (the progress bar stays silent).
    """
    adapter, test_step, verbose = distribute_lib.loop_setup(model, adapter, verbose, "test")
    cbs = callback_list or _callbacks(model, callbacks, verbose, 1,
                                      steps or adapter.num_batches, history=False)
    model.reset_metrics()
    cbs.on_test_begin()
    logs = {}
    for step, batch in StepIterator(adapter, steps).epoch():
        cbs.on_test_batch_begin(step)
        logs = to_floats(test_step(batch))
        cbs.on_test_batch_end(step, logs)
    # as fit: extra entries a custom test_step returns are kept (Keras)
    logs = _sorted_logs(_metrics_result_or_logs(model, logs) if logs
                        else to_floats(model.get_metrics_result()))
    cbs.on_test_end(logs)
    return logs


def format_results(model, logs, return_dict):
    """Keras's evaluate return: a scalar, a list in metrics order, or the dict."""
    logs = to_floats(logs)
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


def predict(model, x, batch_size, verbose, steps, callbacks):
    adapter = data_adapters.get_adapter(x, None, None, batch_size, shuffle=False)
    adapter, predict_step, verbose = distribute_lib.loop_setup(model, adapter, _verbose(verbose),
                                                               "predict")
    cbs = _callbacks(model, callbacks, verbose, 1, steps or adapter.num_batches, history=False)
    cbs.on_predict_begin()
    outputs = []
    for step, batch in StepIterator(adapter, steps).epoch():
        cbs.on_predict_batch_begin(step)
        batch_out = tree.map_structure(core.convert_to_numpy, predict_step(batch))
        outputs.append(batch_out)
        cbs.on_predict_batch_end(step, {"outputs": batch_out})
    cbs.on_predict_end()
    if not outputs:
        raise ValueError("Unexpected result of `predict`: no batches were produced from the input.")
    flat = [tree.flatten(o) for o in outputs]
    merged = [np.concatenate([f[i] for f in flat], axis=0) for i in range(len(flat[0]))]
    return tree.pack_sequence_as(outputs[0], merged)
