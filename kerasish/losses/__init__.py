"""`keras.losses`: loss classes, loss functions, and lookup by name.

    loss = keras.losses.get("sparse_categorical_crossentropy")   # the function
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
"""
from kerasish.losses.hinge import (CategoricalHinge, Hinge, SquaredHinge,
                                   categorical_hinge, hinge, squared_hinge)
from kerasish.losses.loss import Loss, LossFunctionWrapper
from kerasish.losses.probabilistic import (
    BinaryCrossentropy, BinaryFocalCrossentropy, CategoricalCrossentropy,
    CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy,
    KLDivergence, Poisson, SparseCategoricalCrossentropy, binary_crossentropy,
    binary_focal_crossentropy, categorical_crossentropy,
    categorical_focal_crossentropy, categorical_generalized_cross_entropy,
    kl_divergence, poisson, sparse_categorical_crossentropy)
from kerasish.losses.regression import (
    CosineSimilarity, Huber, LogCosh, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredError,
    MeanSquaredLogarithmicError, cosine_similarity, huber, log_cosh,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error)
from kerasish.losses.circle import Circle, circle
from kerasish.losses.ctc import CTC, ctc
from kerasish.losses.segmentation import Dice, Tversky, dice, tversky
from kerasish.utils import registry

ALL_OBJECTS = (
    Loss, LossFunctionWrapper,
    KLDivergence, Poisson, BinaryCrossentropy, BinaryFocalCrossentropy,
    CategoricalCrossentropy, CategoricalFocalCrossentropy, SparseCategoricalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, CosineSimilarity, LogCosh, Huber,
    Hinge, SquaredHinge, CategoricalHinge, Dice, Tversky, CTC, Circle,
    kl_divergence, poisson, binary_crossentropy, binary_focal_crossentropy,
    categorical_crossentropy, categorical_focal_crossentropy, sparse_categorical_crossentropy,
    categorical_generalized_cross_entropy,
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, cosine_similarity, log_cosh, huber,
    hinge, squared_hinge, categorical_hinge, dice, tversky, ctc, circle,
)
ALL_OBJECTS_DICT = {obj.__name__: obj for obj in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({
    "bce": binary_crossentropy, "BCE": binary_crossentropy,
    "kld": kl_divergence, "KLD": kl_divergence,
    "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "mse": mean_squared_error, "MSE": mean_squared_error,
    "mape": mean_absolute_percentage_error, "MAPE": mean_absolute_percentage_error,
    "msle": mean_squared_logarithmic_error, "MSLE": mean_squared_logarithmic_error,
})

AUTO_CROSSENTROPY = ("crossentropy", "ce")

_CATALOG = registry.LossCatalog("loss", ALL_OBJECTS_DICT)
registry.REGISTRY.add_namespace("losses", globals(), _CATALOG)


def serialize(loss):
    """Returns the config of a `Loss` instance (or the name of a loss function).

    Args:
        loss: a `Loss` or a loss function.

    Returns:
        dict (`{"module", "class_name", "config", "registered_name"}`) or str.

    Example:
        >>> keras.losses.serialize(keras.losses.Huber())["class_name"]
        'Huber'
    """
    return _CATALOG.serialize(loss)


def deserialize(name, custom_objects=None):
    """Rebuilds a loss from `serialize`'s output (a config dict or a name).

    Args:
        name: a config dict, or the name of a loss function/class.
        custom_objects: optional dict of user classes/functions by name.

    Returns:
        A `Loss` instance, or a loss function.

    Example:
        >>> keras.losses.deserialize({"class_name": "Huber", "config": {"delta": 2.0}}).delta
        2.0
    """
    return _CATALOG.deserialize(name, custom_objects)


def get(identifier):
    """Resolves a loss identifier, like `keras.losses.get`.

    Strings name a function (`"mean_squared_error"`, `"mse"`) or a class
    (`"MeanSquaredError"`, instantiated with its defaults); dicts are
    configs; callables pass through.

    Args:
        identifier: None, str, config dict, `Loss` or function.

    Returns:
        A loss function or a `Loss` instance (None for None).

    Raises:
        ValueError: for an unknown name or a non-callable object.

    Example:
        >>> keras.losses.get("mse") is keras.losses.mean_squared_error
        True
    """
    return _CATALOG.get(identifier)


def crossentropy_kind(y_true_shape, y_pred_shape):
    """Which cross-entropy Keras's "crossentropy"/"accuracy" shortcuts pick.

    Binary if `y_pred.shape[-1] == 1`; else sparse if `y_true` has lower
    rank, or a last axis of 1 while `y_pred`'s is larger; else categorical.

    Args:
        y_true_shape: shape tuple of the targets.
        y_pred_shape: shape tuple of the predictions.

    Returns:
        "binary", "sparse_categorical" or "categorical".

    Example:
        >>> keras.losses.crossentropy_kind((32,), (32, 10))
        'sparse_categorical'
    """
    y_true_shape, y_pred_shape = tuple(y_true_shape), tuple(y_pred_shape)
    t_last = y_true_shape[-1] if y_true_shape else None
    p_last = y_pred_shape[-1] if y_pred_shape else None
    if p_last == 1:
        return "binary"
    if len(y_true_shape) < len(y_pred_shape) or (t_last == 1 and (p_last or 0) > 1):
        return "sparse_categorical"
    return "categorical"


def _shape_of(x):
    return tuple(x) if isinstance(x, (tuple, list)) else tuple(x.shape)


def _object_name(obj):
    return getattr(obj, "name", None) or getattr(obj, "__name__", None) or type(obj).__name__


def get_for_compile(identifier, y_true=None, y_pred=None):
    """Resolves a `compile(loss=...)` entry to a `Loss` object, as Keras's compile does.

    `"crossentropy"`/`"ce"` pick binary, sparse or categorical cross-entropy
    from the shapes (`crossentropy_kind`); functions are wrapped in a
    `LossFunctionWrapper` named after the string given (or the function).

    Args:
        identifier: anything `get` accepts, or "crossentropy"/"ce".
        y_true: targets, or their shape (needed for "crossentropy").
        y_pred: predictions, or their shape (needed for "crossentropy").

    Returns:
        A `Loss` instance, or None for None.

    Example:
        >>> loss = keras.losses.get_for_compile("mse")
        >>> loss.name, loss.fn is keras.losses.mean_squared_error
        ('mse', True)
    """
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier.lower() in AUTO_CROSSENTROPY:
        if y_true is None or y_pred is None:
            raise ValueError(
                f"loss={identifier!r} picks a cross-entropy from the data shapes: pass "
                f"`y_true` and `y_pred` (or their shapes). Received y_true={y_true!r}, "
                f"y_pred={y_pred!r}."
            )
        kind = crossentropy_kind(_shape_of(y_true), _shape_of(y_pred))
        obj = ALL_OBJECTS_DICT[f"{kind}_crossentropy"]
    else:
        obj = get(identifier)
    if isinstance(obj, Loss):
        return obj
    name = identifier if isinstance(identifier, str) else _object_name(obj)
    return LossFunctionWrapper(obj, name=name)


__all__ = sorted(obj.__name__ for obj in ALL_OBJECTS) + [
    "ALL_OBJECTS", "ALL_OBJECTS_DICT", "crossentropy_kind", "deserialize", "get",
    "get_for_compile", "serialize"]
