"""What `compile()` sets up: the loss container and the metrics container.

Both match Keras 3's naming: one output -> `loss`, `accuracy`; several
outputs -> `loss`, `<output>_loss`, `<output>_<metric>`. As in Keras 3,
`model.metrics` holds the loss tracker, one `CompileMetrics` named
"compile_metrics" (the compiled metrics live inside it) and the per-output
loss trackers once the first batch has been seen.
"""
from kerasish import losses as losses_module
from kerasish import metrics as metrics_module
from kerasish.ops import core, elementwise as ew
from kerasish.utils import tree


def _per_output(spec, output_names, what):
    """Maps a loss spec (single, list or dict) to one entry per output."""
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
    if isinstance(spec, (list, tuple)) and n == 1 and what == "loss" and len(spec) == 1:
        return list(spec)  # Keras takes loss=["mse"] for a single output
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
        self._user_loss = loss
        self._user_loss_weights = loss_weights
        # As Keras's CompileLoss, names are resolved on the first batch (build):
        # an unknown loss name passes `compile()` and fails in fit/evaluate.
        self.losses = _per_output(loss, output_names, "loss")
        if loss_weights is None:
            self.weights = [1.0] * len(output_names)
        elif isinstance(loss_weights, dict):
            self.weights = [loss_weights.get(n, 1.0) for n in output_names]
        else:
            self.weights = list(loss_weights) if isinstance(loss_weights, (list, tuple)) \
                else [loss_weights]
        self.output_trackers = []  # one Mean per loss term, made on the first call if > 1
        self._tracker_order = list(range(len(output_names)))
        self._resolved = False

    @property
    def built(self):
        """Whether the first batch (or `Model._symbolic_build`) resolved the losses and made
        the per-output trackers."""
        return self._resolved

    @property
    def metrics(self):
        """The per-output loss trackers (`<output>_loss`), once built, when several losses."""
        trackers = [self.output_trackers[i] for i in self._tracker_order] \
            if self.output_trackers else []
        return [t for t in trackers if t is not None]

    @property
    def variables(self):
        """The variables of the per-output loss trackers."""
        return [v for tracker in self.metrics for v in tracker.variables]

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self._resolved and isinstance(self._user_loss, dict) and \
                not isinstance(y_pred, dict) and set(self._user_loss) != set(self.output_names):
            # Keras: with list outputs, a loss dict must name every output.
            raise ValueError(
                f"Expected keys {self.output_names} in loss dict, but found "
                f"loss.keys()={list(self._user_loss.keys())}"
            )
        if not self._resolved:
            _check_loss_weights(self._user_loss, self._user_loss_weights)
        y_pred_arg = y_pred
        y_true = self._partial_targets(y_true)
        y_true = _match(y_true, self.output_names, "y")
        y_pred = _match(y_pred, self.output_names, "y_pred")
        weights = _match(sample_weight, self.output_names, "sample_weight") \
            if sample_weight is not None else [None] * len(y_pred)
        if not self._resolved:
            self.losses = [_resolve_crossentropy(fn, yt, yp) for fn, yt, yp in
                           zip(self.losses, y_true, y_pred)]
            if sum(fn is not None for fn in self.losses) > 1:
                self.output_trackers = [metrics_module.Mean(name=f"{n}_loss") if fn is not None
                                        else None for n, fn in zip(self.output_names, self.losses)]
                if isinstance(self._user_loss, dict) and isinstance(y_pred_arg, dict):
                    # Keras walks a loss dict in its own key order when the model's
                    # outputs are a dict: `metrics_names`/evaluate list follow it.
                    self._tracker_order = [self.output_names.index(k) for k in self._user_loss]
            self._resolved = True
        total = None
        for i, (fn, yt, yp, sw, w) in enumerate(zip(self.losses, y_true, y_pred, weights, self.weights)):
            if fn is None or yt is None:
                continue
            value = _call_loss(fn, yt, yp, sw)
            if self.output_trackers:
                # Keras (TensorFlow) weights these by the *static* batch size, which
                # is unknown (None) in fit/evaluate's traced step: every batch counts
                # once, so an uneven last batch weighs as much as a full one.
                self.output_trackers[i].update_state(value)
            value = ew.multiply(value, w) if w != 1.0 else value
            total = value if total is None else ew.add(total, value)
        return total


    def _partial_targets(self, y_true):
        """As Keras: with a loss only on some outputs (`loss=["mse", None]`), targets
        given for just those outputs go to them, in order; the others get None."""
        n = len(self.output_names)
        if n < 2 or isinstance(y_true, dict):
            return y_true
        flat = list(y_true) if isinstance(y_true, (list, tuple)) else [y_true]
        with_loss = [i for i, fn in enumerate(self.losses) if fn is not None]
        if len(flat) == n or len(flat) != len(with_loss):
            return y_true
        spread = [None] * n
        for i, value in zip(with_loss, flat):
            spread[i] = value
        return spread


def _call_loss(fn, y_true, y_pred, sample_weight):
    """`fn(y_true, y_pred)`; a failure on mismatched shapes names the loss and both shapes."""
    try:
        return fn(y_true, y_pred, sample_weight=sample_weight)
    except (ValueError, TypeError) as error:
        y_shape, out_shape = _shape(y_true), _shape(y_pred)
        if y_shape is None or out_shape is None or y_shape == out_shape or \
                hasattr(error, "keras_shapes"):
            raise   # equal shapes, or already Keras's own words
        name = getattr(fn, "name", None) or getattr(fn, "__name__", type(fn).__name__)
        raise ValueError(
            f"Loss '{name}' cannot compare the targets `y` of shape {y_shape} with the "
            f"model's output of shape {out_shape}; the shapes do not match for this loss "
            f"({type(error).__name__}: {error})") from error


def _shape(value):
    shape = getattr(value, "shape", None)
    return None if shape is None else tuple(shape)


_AUTO_CROSSENTROPY = ("crossentropy", "ce")


def _resolve_crossentropy(fn, y_true, y_pred):
    """A compile entry as a `Loss`, once shapes are known (Keras's "crossentropy"/"ce"
    choice of binary/sparse/categorical needs them)."""
    if isinstance(fn, str) and fn.lower() in _AUTO_CROSSENTROPY:
        return losses_module.get_for_compile(fn, y_true, y_pred)
    return losses_module.get_for_compile(fn)


def _check_loss_weights(loss, loss_weights):
    """Keras's check (on the first batch): a list of loss weights must have one weight
    per loss (a single loss counts as one)."""
    if not isinstance(loss_weights, (list, tuple)):
        return
    count = len(loss) if isinstance(loss, (list, tuple, dict)) else 1
    if count != len(loss_weights):
        raise ValueError(f"`loss_weights` must match the number of losses, got {count} losses "
                         f"and {len(loss_weights)} weights.")


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


class MetricsList(metrics_module.Metric):
    """The compiled metrics of one output (Keras's `MetricsList`)."""

    def __init__(self, metrics, output_name=None):
        super().__init__(name="metrics_list")
        self.metrics = list(metrics)
        self.output_name = output_name

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def update_state(self, y_true, y_pred, sample_weight=None):
        for m in self.metrics:
            m.update_state(y_true, y_pred, sample_weight=sample_weight)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def result(self):
        return {m.name: m.result() for m in self.metrics}


class CompileMetrics(metrics_module.Metric):
    """The compiled metrics, one `Metric` named "compile_metrics" (as in Keras 3).

    Built on the first batch (shapes pick "accuracy"'s class). Its `result()`
    is a dict: `<metric>` for one output, `<output>_<metric>` for several;
    a repeated name gets `_1`, `_2`, ... and a weighted metric whose name is
    taken gets a `weighted_` prefix. The sub-metrics keep their own names
    (`metrics` lists them).

    Args:
        metrics, weighted_metrics: identifiers, or lists/dicts per output.
        output_names: the model's output names.
    """

    def __init__(self, metrics, weighted_metrics, output_names):
        super().__init__(name="compile_metrics")
        for arg, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(
                    f"Expected `{arg}` argument to be a list, tuple, or dict. Received "
                    f"instead: {arg}={value} of type {type(value)}"
                )
        self.output_names = output_names
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self._flat_metrics = []
        self._flat_weighted_metrics = []
        self.built = False

    @property
    def metrics(self):
        """The sub-metrics, in compile order (empty until built)."""
        if not self.built:
            return []
        return [m for mls in self._flat_metrics + self._flat_weighted_metrics if mls
                for m in mls.metrics]

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def build(self, y_true, y_pred):
        y_true = _match(y_true, self.output_names, "y")
        y_pred = _match(y_pred, self.output_names, "y_pred")
        self._flat_metrics = self._build_set(self._user_metrics, y_true, y_pred, "metrics")
        self._flat_weighted_metrics = self._build_set(self._user_weighted_metrics, y_true,
                                                      y_pred, "weighted_metrics")
        self.built = True

    def _build_set(self, spec, y_true, y_pred, argument):
        names = self.output_names
        n = len(names)
        if not spec:
            return [None] * n
        if n == 1:
            return [_metrics_list(tree.flatten(spec), y_true[0], y_pred[0], None)]
        if isinstance(spec, (list, tuple)) and len(spec) == n:
            per_output = list(spec)
        elif isinstance(spec, dict) and set(spec) <= set(names):
            per_output = [spec.get(name) for name in names]
        else:
            raise ValueError(
                f"Invalid `{argument}`. `{argument}` should contain metrics objects and either "
                f"be a dict or a list matching the output names of the functional model "
                f"{names} or match the output structure of the model: {['X'] * n}.\n"
                f"Received: {argument}={spec}"
            )
        return [_metrics_list(m, yt, yp, name)
                for m, yt, yp, name in zip(per_output, y_true, y_pred, names)]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        y_true = _match(y_true, self.output_names, "y")
        y_pred = _match(y_pred, self.output_names, "y_pred")
        for mls, yt, yp in zip(self._flat_metrics, y_true, y_pred):
            if mls and yt is not None:
                mls.update_state(yt, yp)
        if sample_weight is not None:
            weights = _match(sample_weight, self.output_names, "sample_weight") \
                if isinstance(sample_weight, (list, tuple, dict)) else [sample_weight] * len(y_true)
        else:
            weights = [None] * len(y_true)
        for mls, yt, yp, sw in zip(self._flat_weighted_metrics, y_true, y_pred, weights):
            if mls and yt is not None:
                mls.update_state(yt, yp, sw)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def result(self):
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        results, counters = {}, {}
        for mls in self._flat_metrics:
            for m in (mls.metrics if mls else ()):
                name = f"{mls.output_name}_{m.name}" if mls.output_name else m.name
                if name in counters:
                    index = counters[name]
                    counters[name] += 1
                    name = f"{name}_{index}"
                else:
                    counters[name] = 1
                results[name] = m.result()
        for mls in self._flat_weighted_metrics:
            for m in (mls.metrics if mls else ()):
                name = f"{mls.output_name}_{m.name}" if mls.output_name else m.name
                if name in counters:
                    name = f"weighted_{m.name}"
                    if mls.output_name:
                        name = f"{mls.output_name}_{name}"
                    if name in counters:
                        index = counters[name]
                        counters[name] += 1
                        name = f"{name}_{index}"
                    else:
                        counters[name] = 1
                else:
                    counters[name] = 1
                results[name] = m.result()
        return results


def _metrics_list(spec, y_true, y_pred, output_name):
    if spec is None:
        return None
    entries = spec if isinstance(spec, (list, tuple)) else [spec]
    return MetricsList([_make_metric(e, y_true, y_pred) for e in entries],
                       output_name=output_name)


def _make_metric(identifier, y_true, y_pred):
    # "crossentropy"/"ce" pick a loss only: Keras 3 rejects them as metrics
    # ("Could not interpret metric identifier: ce").
    return metrics_module.get_for_compile(identifier, core.shape(y_true), core.shape(y_pred))


def flatten_outputs(y_pred):
    return tree.flatten(y_pred)
