"""scikit-learn compatible estimators wrapping a compiled model or a model-building function.

Like Keras's: a given `Model` is cloned (with `clone_model`) before each `fit` unless
`warm_start=True`; a callable is called as `model(X=X, y=y, **model_kwargs)`. The
classifier one-hot encodes its targets and decodes predictions back to class labels.
"""
import copy

import numpy as np

from kerasish.models import Model, clone_model

try:  # optional dependency: scikit-learn (the `sklearn` extra)
    import sklearn
    import sklearn.pipeline
    import sklearn.preprocessing
    from sklearn.base import (BaseEstimator, ClassifierMixin, RegressorMixin,
                              TransformerMixin)
    from sklearn.utils.multiclass import type_of_target
    from sklearn.utils.validation import check_is_fitted
except ImportError as _error:  # pragma: no cover - exercised without scikit-learn
    raise ImportError("kerasish.wrappers needs scikit-learn: "
                      f'pip install "kerasish[sklearn]" ({_error})') from None


class _TargetReshaper(TransformerMixin, BaseEstimator):
    """Makes 1-D targets 2-D for encoders, and squeezes them back afterwards."""

    def fit(self, y):
        self.ndim_ = y.ndim
        return self

    def transform(self, y):
        return y.reshape(-1, 1) if y.ndim == 1 else y

    def inverse_transform(self, y):
        check_is_fitted(self)
        return np.squeeze(y, axis=1) if self.ndim_ == 1 and y.ndim == 2 else y


def _check_compiled(model):
    if not model.compiled or not model.loss or not model.optimizer:
        raise RuntimeError("Given model needs to be compiled, and have a loss and an optimizer.")


def _validate(estimator, X, y=None, reset=True):
    """Arrays with scikit-learn's checks, recording/validating `n_features_in_`."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{type(estimator).__name__}: X must be 2-D (n_samples, "
                         f"n_features), got shape {X.shape}.")
    if reset:
        estimator.n_features_in_ = X.shape[1]
    elif X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is "
                         f"expecting {estimator.n_features_in_} features as input.")
    return X if y is None else (X, np.asarray(y))


class _SKLBase(BaseEstimator):
    """Shared `fit`/`predict` of the wrappers (see the module docstring)."""

    def __init__(self, model, warm_start=False, model_kwargs=None, fit_kwargs=None):
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs

    def __sklearn_clone__(self):
        model = self.model if callable(self.model) and not isinstance(self.model, Model) \
            else copy.deepcopy(self.model)
        return type(self)(model=model, warm_start=self.warm_start,
                          model_kwargs=self.model_kwargs, fit_kwargs=self.fit_kwargs)

    @property
    def epoch_(self):
        """The number of epochs trained in the last `fit`."""
        history = getattr(self, "history_", None)
        return len(history.epoch) if history is not None else 0

    def _get_model(self, X, y):
        if self.warm_start and hasattr(self, "model_"):
            return self.model_
        if isinstance(self.model, Model):
            return clone_model(self.model) if not self.warm_start else self.model
        return self.model(X=X, y=y, **(self.model_kwargs or {}))

    def fit(self, X, y, **kwargs):
        """Trains the model on `X`, `y`; `kwargs` (and `fit_kwargs`) go to `model.fit`.

        Returns:
            self.
        """
        X, y = _validate(self, X, y)
        y = self._process_target(y, reset=True)
        model = self._get_model(X, y)
        _check_compiled(model)
        fit_kwargs = dict(self.fit_kwargs or {})
        fit_kwargs.update(kwargs)
        self.history_ = model.fit(X, y, **fit_kwargs)
        self.model_ = model
        return self

    def predict(self, X):
        """The model's predictions for `X` (class labels for the classifier)."""
        check_is_fitted(self)
        X = _validate(self, X, reset=False)
        return self._reverse_process_target(self.model_.predict(X))

    def _process_target(self, y, reset=False):
        type_of_target(y, raise_unknown=True)
        if reset:
            self._target_encoder = _TargetReshaper().fit(y)
        return self._target_encoder.transform(y)

    def _reverse_process_target(self, y):
        return self._target_encoder.inverse_transform(y)


class SKLearnClassifier(ClassifierMixin, _SKLBase):
    """A scikit-learn classifier around a kerasish model (binary or multiclass targets).

    Args:
        model: a compiled `Model` (cloned before each fit unless `warm_start`), or a
            callable `model(X=..., y=..., **model_kwargs)` returning a compiled model; `y`
            is passed one-hot encoded.
        warm_start: keep training the same model across `fit` calls.
        model_kwargs: extra keyword arguments for the callable.
        fit_kwargs: keyword arguments for `model.fit` (those given to `fit` win).

    Example:
        >>> def build(X, y):
        ...     model = keras.Sequential([keras.Input((X.shape[1],)),
        ...                               keras.layers.Dense(y.shape[1], activation="softmax")])
        ...     model.compile(optimizer="adam", loss="categorical_crossentropy")
        ...     return model
        >>> estimator = keras.wrappers.SKLearnClassifier(build, fit_kwargs={"verbose": 0})
    """

    def decision_function(self, X):
        """The model's raw outputs (class probabilities or scores)."""
        check_is_fitted(self)
        return self.model_.predict(_validate(self, X, reset=False))

    def _process_target(self, y, reset=False):
        target_type = type_of_target(y, raise_unknown=True)
        if target_type not in ("binary", "multiclass"):
            raise ValueError("Only binary and multiclass target types are supported. "
                             f"Target type: {target_type}")
        if reset:
            self._target_encoder = sklearn.pipeline.make_pipeline(
                _TargetReshaper(), sklearn.preprocessing.OneHotEncoder(sparse_output=False),
            ).fit(y)
            self.classes_ = np.unique(y)
            if len(self.classes_) == 1:
                raise ValueError("Classifier can't train when only one class is present.")
        return self._target_encoder.transform(y)


class SKLearnRegressor(RegressorMixin, _SKLBase):
    """A scikit-learn regressor around a kerasish model (see `SKLearnClassifier` for the
    arguments; targets are passed unchanged, 1-D ones as a column).

    Example:
        >>> estimator = keras.wrappers.SKLearnRegressor(build, fit_kwargs={"epochs": 5})
    """


class SKLearnTransformer(TransformerMixin, _SKLBase):
    """A scikit-learn transformer around a kerasish model: `transform(X)` returns the
    trained model's outputs (see `SKLearnClassifier` for the arguments).

    Example:
        >>> features = keras.wrappers.SKLearnTransformer(build).fit(X, y).transform(X)
    """

    def transform(self, X):
        """The model's outputs for `X`."""
        check_is_fitted(self)
        return self.model_.predict(_validate(self, X, reset=False))
