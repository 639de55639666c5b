"""What `compile()` sets up: the loss container and the metrics container.

Both match Keras 3's naming: one output -> `loss`, `accuracy`; several
outputs -> `loss`, `<output>_loss`, `<output>_<metric>`.
"""
from kerasish import losses as losses_module
from kerasish import metrics as metrics_module
from kerasish.ops import core, elementwise as ew
from kerasish.utils import tree


def _per_output(spec, output_names, what):
    """Maps a loss/metrics spec (single, list or dict) to one entry per output."""
    n = len(output_names)
    if isinstance(spec, dict):
        unknown = set(spec) - set(output_names)
        if unknown:
            raise ValueError(
                f"In compile(), the {what} dict has keys {sorted(unknown)} that are not output "
                f"names. Output names: {output_names}"
            )
        return [spec.get(name) for name in output_names]
    if isinstance(spec, (list, tuple)) and n > 1 and what == "loss":
        if len(spec) != n:
            raise ValueError(
                f"In compile(), `loss` is a list of {len(spec)} entries but the model has "
                f"{n} outputs {output_names}."
            )
        return list(spec)
    if what == "metrics" and n > 1 and isinstance(spec, (list, tuple)) and spec and \
            all(isinstance(s, (list, tuple)) or s is None for s in spec):
        return list(spec)
    return [spec] * n


class CompileLoss:
    """The compiled loss: per-output losses, weighted and summed.

    Args:
        loss: a loss identifier, or a list/dict with one per output.
        loss_weights: optional list/dict of per-output weights.
        output_names: names of the model's outputs.
    """

    def __init__(self, loss, loss_weights, output_names):
        self.output_names = output_names
        entries = _per_output(loss, output_names, "loss")
        self.losses = [e if isinstance(e, str) and e.lower() in _AUTO_CROSSENTROPY
                       else losses_module.get_for_compile(e) for e in entries]
        if loss_weights is None:
            self.weights = [1.0] * len(output_names)
        elif isinstance(loss_weights, dict):
            self.weights = [loss_weights.get(n, 1.0) for n in output_names]
        else:
            self.weights = list(loss_weights) if isinstance(loss_weights, (list, tuple)) \
                else [loss_weights]
        self.output_trackers = ([metrics_module.Mean(name=f"{n}_loss") for n in output_names]
                                if len(output_names) > 1 else [])
        self._resolved = False

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_true = _match(y_true, self.output_names, "y")
        y_pred = _match(y_pred, self.output_names, "y_pred")
        weights = _match(sample_weight, self.output_names, "sample_weight") \
            if sample_weight is not None else [None] * len(y_pred)
        if not self._resolved:
            self.losses = [_resolve_crossentropy(fn, yt, yp) for fn, yt, yp in
                           zip(self.losses, y_true, y_pred)]
            self._resolved = True
        total = None
        for i, (fn, yt, yp, sw, w) in enumerate(zip(self.losses, y_true, y_pred, weights, self.weights)):
            if fn is None or yt is None:
                continue
            value = fn(yt, yp, sample_weight=sw)
            if self.output_trackers:
                self.output_trackers[i].update_state(value, sample_weight=_batch_size(yp))
            value = ew.multiply(value, w) if w != 1.0 else value
            total = value if total is None else ew.add(total, value)
        return total


_AUTO_CROSSENTROPY = ("crossentropy", "ce")


def _resolve_crossentropy(fn, y_true, y_pred):
    """Keras's "crossentropy"/"ce" choice (binary/sparse/categorical) once shapes are known."""
    if isinstance(fn, str):
        return losses_module.get_for_compile(fn, y_true, y_pred)
    return fn


def _crossentropy_name(y_true, y_pred, suffix):
    cls = metrics_module.resolve_accuracy(core.shape(y_true), core.shape(y_pred))
    kind = {"BinaryAccuracy": "binary", "SparseCategoricalAccuracy": "sparse_categorical",
            "CategoricalAccuracy": "categorical"}[cls.__name__]
    return kind + suffix


def _batch_size(y):
    return y.shape[0] if getattr(y, "ndim", 0) else 1


def _match(values, output_names, what):
    """Lists per-output values from a single value, list or dict."""
    n = len(output_names)
    if isinstance(values, dict):
        return [values.get(name) for name in output_names]
    if n == 1:
        if isinstance(values, (list, tuple)) and len(values) == 1:
            return list(values)
        return [values]
    if not isinstance(values, (list, tuple)) or len(values) != n:
        raise ValueError(
            f"The model has {n} outputs {output_names}, but `{what}` has "
            f"{len(values) if isinstance(values, (list, tuple)) else 1} entries."
        )
    return list(values)


class CompileMetrics:
    """The compiled metrics: built lazily on the first batch (shapes pick "accuracy").

    Args:
        metrics, weighted_metrics: identifiers, or lists/dicts per output.
        output_names: the model's output names.
    """

    def __init__(self, metrics, weighted_metrics, output_names):
        self.output_names = output_names
        self._specs = (_per_output(metrics, output_names, "metrics") if metrics else
                       [None] * len(output_names),
                       _per_output(weighted_metrics, output_names, "metrics") if weighted_metrics
                       else [None] * len(output_names))
        self.metrics = []      # flat, in compile order
        self._entries = []     # (output index, metric, weighted)
        self.built = False

    def build(self, y_true, y_pred):
        y_true = _match(y_true, self.output_names, "y")
        y_pred = _match(y_pred, self.output_names, "y_pred")
        prefix = len(self.output_names) > 1
        for weighted, specs in ((False, self._specs[0]), (True, self._specs[1])):
            for i, spec in enumerate(specs):
                if spec is None:
                    continue
                for identifier in (spec if isinstance(spec, (list, tuple)) else [spec]):
                    metric = _make_metric(identifier, y_true[i], y_pred[i])
                    if prefix:
                        metric.name = f"{self.output_names[i]}_{metric.name}"
                    if weighted and any(m.name == metric.name for m in self.metrics):
                        metric.name = f"weighted_{metric.name}"
                    self.metrics.append(metric)
                    self._entries.append((i, metric, weighted))
        self.built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        y_true = _match(y_true, self.output_names, "y")
        y_pred = _match(y_pred, self.output_names, "y_pred")
        weights = _match(sample_weight, self.output_names, "sample_weight") \
            if sample_weight is not None else [None] * len(y_pred)
        for i, metric, weighted in self._entries:
            if y_true[i] is None:
                continue
            metric.update_state(y_true[i], y_pred[i], sample_weight=weights[i] if weighted else None)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()


def _make_metric(identifier, y_true, y_pred):
    if identifier in ("accuracy", "acc", "Accuracy"):
        cls = metrics_module.resolve_accuracy(core.shape(y_true), core.shape(y_pred))
        return cls(name=identifier if identifier != "Accuracy" else "accuracy")
    if identifier in _AUTO_CROSSENTROPY:
        metric = metrics_module.get(_crossentropy_name(y_true, y_pred, "_crossentropy"))
        metric.name = identifier
        return metric
    if isinstance(identifier, str):
        metric = metrics_module.get(identifier)
        metric.name = identifier if identifier not in ("Accuracy",) else metric.name
        return metric
    return metrics_module.get(identifier)


def flatten_outputs(y_pred):
    return tree.flatten(y_pred)
