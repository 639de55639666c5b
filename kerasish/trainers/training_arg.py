"""How the train/test/predict steps pass `training` to the model, as Keras."""
import functools
import inspect


def training_kwargs(model, training):
    """The `training` keyword for the model's call in a train/test/predict step.

    As Keras's steps: a model whose `call` has no `training` argument is called
    without it, so its inner layers (Dropout, BatchNormalization) keep their own
    defaults (inference) even in `fit`.

    Args:
        model: the model the step calls.
        training: the mode of the step (True in `train_step`).

    Returns:
        `{"training": training}` when `model.call` takes `training`, else `{}`.

    Example:
        >>> training_kwargs(keras.Sequential([keras.layers.Dropout(0.5)]), True)
        {'training': True}
    """
    call = model.call
    function = getattr(call, "__func__", call)   # the signature is the function's: cached
    try:
        takes = _takes_training(function, call is not function)
    except TypeError:   # an unhashable callable: asked every time
        takes = _takes_training.__wrapped__(call, False)
    return {"training": training} if takes else {}


@functools.lru_cache(maxsize=256)
def _takes_training(call, bound):
    """Whether `call` (a function; `bound`: of a bound method, whose `self` is not
    a parameter) has a `training` parameter; True when its signature is unknown."""
    try:
        params = inspect.signature(call).parameters
    except (TypeError, ValueError):
        return True
    names = list(params)[1:] if bound else list(params)
    return "training" in names
