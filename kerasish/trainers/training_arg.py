"""How the train/test/predict steps pass `training` to the model, as Keras."""
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
    try:
        params = inspect.signature(model.call).parameters
    except (TypeError, ValueError):
        return {"training": training}
    return {"training": training} if "training" in params else {}
