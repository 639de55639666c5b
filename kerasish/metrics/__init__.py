"""`keras.metrics`: stateful metrics (state in device Variables), metric functions, lookup.

    m = keras.metrics.get("auc")            # an AUC() instance
    keras.metrics.binary_accuracy(y, p)     # a per-sample function
"""
from kerasish.losses import crossentropy_kind
from kerasish.losses.hinge import categorical_hinge, hinge, squared_hinge
from kerasish.losses.probabilistic import (binary_crossentropy,
                                           binary_focal_crossentropy,
                                           categorical_crossentropy,
                                           categorical_focal_crossentropy,
                                           kl_divergence, poisson,
                                           sparse_categorical_crossentropy)
from kerasish.losses.regression import (huber, log_cosh, mean_absolute_error,
                                        mean_absolute_percentage_error,
                                        mean_squared_error,
                                        mean_squared_logarithmic_error)
from kerasish.metrics.accuracy_metrics import (
    Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy, TopKCategoricalAccuracy, binary_accuracy,
    categorical_accuracy, sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy, top_k_categorical_accuracy)
from kerasish.metrics.confusion_metrics import (
    AUC, FalseNegatives, FalsePositives, Precision, PrecisionAtRecall, Recall,
    RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity,
    TrueNegatives, TruePositives)
from kerasish.metrics.correlation_metrics import (ConcordanceCorrelation,
                                                  PearsonCorrelation,
                                                  concordance_correlation,
                                                  pearson_correlation)
from kerasish.metrics.f_score_metrics import F1Score, FBetaScore
from kerasish.metrics.hinge_metrics import CategoricalHinge, Hinge, SquaredHinge
from kerasish.metrics.metric import Metric
from kerasish.metrics.probabilistic_metrics import (
    BinaryCrossentropy, CategoricalCrossentropy, KLDivergence, Poisson,
    SparseCategoricalCrossentropy)
from kerasish.metrics.reduction_metrics import Mean, MeanMetricWrapper, Sum
from kerasish.metrics.regression_metrics import (
    CosineSimilarity, LogCoshError, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredError, MeanSquaredLogarithmicError,
    R2Score, RootMeanSquaredError)
from kerasish.utils import registry
from kerasish.utils.naming import to_snake_case

ALL_OBJECTS = (
    Metric, Mean, Sum, MeanMetricWrapper,
    MeanSquaredError, RootMeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, CosineSimilarity, LogCoshError, R2Score,
    AUC, FalseNegatives, FalsePositives, Precision, PrecisionAtRecall, Recall,
    RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity,
    TrueNegatives, TruePositives,
    Hinge, SquaredHinge, CategoricalHinge,
    KLDivergence, Poisson, BinaryCrossentropy, CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
    F1Score, FBetaScore, PearsonCorrelation, ConcordanceCorrelation,
)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in ALL_OBJECTS})
ALL_OBJECTS_DICT.update({
    "bce": BinaryCrossentropy, "BCE": BinaryCrossentropy,
    "mse": MeanSquaredError, "MSE": MeanSquaredError,
    "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError, "MAPE": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError, "MSLE": MeanSquaredLogarithmicError,
})

_FUNCTIONS = (
    binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy,
    binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
    categorical_focal_crossentropy, sparse_categorical_crossentropy, kl_divergence, poisson,
    hinge, squared_hinge, categorical_hinge, huber, log_cosh, mean_absolute_error,
    mean_absolute_percentage_error, mean_squared_error, mean_squared_logarithmic_error,
    pearson_correlation, concordance_correlation,
)
_ACCURACY_CLASSES = {"binary": BinaryAccuracy, "sparse_categorical": SparseCategoricalAccuracy,
                     "categorical": CategoricalAccuracy}

_CATALOG = registry.LossCatalog("metric", ALL_OBJECTS_DICT,
                                extra_objects={fn.__name__: fn for fn in _FUNCTIONS})
registry.REGISTRY.add_namespace("metrics", globals(), _CATALOG)


def serialize(metric):
    """Returns the config of a `Metric` instance (or the name of a metric function).

    Args:
        metric: a `Metric` or a function.

    Returns:
        dict or str.

    Example:
        >>> keras.metrics.serialize(keras.metrics.AUC())["class_name"]
        'AUC'
    """
    return _CATALOG.serialize(metric)


def deserialize(config, custom_objects=None):
    """Rebuilds a metric from `serialize`'s output.

    Args:
        config: a config dict, or the name of a metric class/function.
        custom_objects: optional dict of user classes/functions by name.

    Returns:
        A `Metric` instance, a metric class, or a function.

    Example:
        >>> keras.metrics.deserialize({"class_name": "AUC", "config": {"curve": "PR"}}).curve
        'PR'
    """
    return _CATALOG.deserialize(config, custom_objects)


def get(identifier):
    """Resolves a metric identifier, like `keras.metrics.get`.

    Strings name a class by its own name or its snake_case (`"AUC"`,
    `"auc"`, `"binary_accuracy"`) or an alias (`mse, mae, mape, msle, bce`,
    upper-case too); the class is instantiated with its defaults. Dicts are
    configs; callables pass through.

    Args:
        identifier: None, str, config dict, `Metric` or function.

    Returns:
        A `Metric` instance or a function (None for None).

    Raises:
        ValueError: for an unknown name or a non-callable object.

    Example:
        >>> keras.metrics.get("mae").name
        'mean_absolute_error'
    """
    return _CATALOG.get(identifier)


def _shape_of(x):
    return tuple(x) if isinstance(x, (tuple, list)) else tuple(x.shape)


def resolve_accuracy(y_true_shape, y_pred_shape):
    """The accuracy class Keras picks for `metrics=["accuracy"]` from the data shapes.

    `BinaryAccuracy` if `y_pred.shape[-1] == 1`; `SparseCategoricalAccuracy`
    if `y_true` has lower rank, or a last axis of 1 while `y_pred`'s is
    larger; else `CategoricalAccuracy`.

    Args:
        y_true_shape: shape (tuple) of the targets.
        y_pred_shape: shape (tuple) of the predictions.

    Returns:
        The metric class.

    Example:
        >>> keras.metrics.resolve_accuracy((32,), (32, 10)).__name__
        'SparseCategoricalAccuracy'
    """
    return _ACCURACY_CLASSES[crossentropy_kind(y_true_shape, y_pred_shape)]


def _object_name(obj):
    if hasattr(obj, "name"):
        return obj.name
    if hasattr(obj, "__name__"):
        return to_snake_case(obj.__name__)
    return to_snake_case(type(obj).__name__)


def get_for_compile(identifier, y_true=None, y_pred=None):
    """Resolves a `compile(metrics=[...])` entry to a `Metric`, as Keras's compile does.

    "accuracy"/"acc" (any case) pick the accuracy class from the shapes
    (`resolve_accuracy`); functions are wrapped in `MeanMetricWrapper`. A
    metric given as a string is named by that string ("mse" logs as `mse`);
    an object keeps its name.

    Args:
        identifier: anything `get` accepts, or "accuracy"/"acc".
        y_true: targets or their shape (needed for "accuracy").
        y_pred: predictions or their shape (needed for "accuracy").

    Returns:
        A `Metric` instance, or None for None.

    Example:
        >>> m = keras.metrics.get_for_compile("acc", (8,), (8, 3))
        >>> type(m).__name__, m.name
        ('SparseCategoricalAccuracy', 'acc')
    """
    if identifier is None:
        return None
    if str(identifier).lower() in ("accuracy", "acc"):
        if y_true is None or y_pred is None:
            raise ValueError(
                f"metrics=[{identifier!r}] picks an accuracy from the data shapes: pass "
                f"`y_true` and `y_pred` (or their shapes). Received y_true={y_true!r}, "
                f"y_pred={y_pred!r}."
            )
        metric = resolve_accuracy(_shape_of(y_true), _shape_of(y_pred))(name=str(identifier))
    else:
        metric = get(identifier)
    name = identifier if isinstance(identifier, str) else _object_name(metric)
    if not isinstance(metric, Metric):
        metric = MeanMetricWrapper(metric)
    metric.name = name
    return metric


__all__ = sorted({cls.__name__ for cls in ALL_OBJECTS} | {fn.__name__ for fn in _FUNCTIONS}) + [
    "ALL_OBJECTS", "ALL_OBJECTS_DICT", "deserialize", "get", "get_for_compile",
    "resolve_accuracy", "serialize"]

from kerasish.metrics.iou_metrics import (BinaryIoU, IoU, MeanIoU,  # noqa: E402
                                          OneHotIoU, OneHotMeanIoU)

ALL_OBJECTS += (IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU)
for _cls in (IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU):
    ALL_OBJECTS_DICT[_cls.__name__] = ALL_OBJECTS_DICT[to_snake_case(_cls.__name__)] = _cls
del _cls  # not a public name (it showed up in dir(keras.metrics))
__all__ += ["BinaryIoU", "IoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU"]
