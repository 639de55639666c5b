"""keras.wrappers: scikit-learn estimators around kerasish models (Keras 3.15.1 semantics)."""
import numpy as np
import pytest

import kerasish as keras

sklearn = pytest.importorskip("sklearn", reason="scikit-learn (the `sklearn` extra) is missing")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

wrappers = keras.wrappers


def _classifier(X, y, units=8):
    model = keras.Sequential([keras.Input((X.shape[1],)),
                              keras.layers.Dense(units, activation="relu"),
                              keras.layers.Dense(y.shape[1], activation="softmax")])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="categorical_crossentropy")
    return model


def _blobs(seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [4.0, 4.0], [0.0, 5.0]])
    labels = rng.integers(0, 3, 150)
    return centers[labels] + rng.normal(scale=0.5, size=(150, 2)), np.array(["a", "b", "c"])[labels]


def test_classifier_learns_string_labels_and_works_in_sklearn_tools():
    keras.utils.set_random_seed(0)
    X, y = _blobs()
    estimator = wrappers.SKLearnClassifier(_classifier, model_kwargs={"units": 16},
                                           fit_kwargs={"epochs": 30, "verbose": 0})
    estimator.fit(X, y)
    assert list(estimator.classes_) == ["a", "b", "c"]
    assert (estimator.predict(X) == y).mean() > 0.95
    assert estimator.decision_function(X[:4]).shape == (4, 3)
    assert estimator.epoch_ == 30
    scores = cross_val_score(make_pipeline(StandardScaler(), clone(estimator)), X, y, cv=2)
    assert scores.shape == (2,) and scores.min() > 0.8


def test_regressor_matches_training_the_model_directly():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(64, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3

    def build(X, y):
        keras.utils.set_random_seed(5)
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        return model

    estimator = wrappers.SKLearnRegressor(build, fit_kwargs={"epochs": 3, "verbose": 0,
                                                             "shuffle": False})
    estimator.fit(X, y)
    direct = build(X, y)
    direct.fit(X, y.reshape(-1, 1), epochs=3, verbose=0, shuffle=False)
    np.testing.assert_array_equal(estimator.predict(X), direct.predict(X, verbose=0)[:, 0])
    assert estimator.predict(X).shape == (64,)  # 1-D targets come back 1-D


def test_transformer_and_compiled_model_instance():
    X, y = _blobs(2)
    y_int = (y == "b").astype(int)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss="mse")
    transformer = wrappers.SKLearnTransformer(model, fit_kwargs={"verbose": 0})
    features = transformer.fit(X, y_int).transform(X)
    assert features.shape == (150, 3)
    assert transformer.model_ is not model  # cloned (and compiled like the original)


def test_warm_start_keeps_training_the_same_model():
    X, y = _blobs(3)
    estimator = wrappers.SKLearnClassifier(_classifier, warm_start=True,
                                           fit_kwargs={"epochs": 1, "verbose": 0})
    first = estimator.fit(X, y).model_
    assert estimator.fit(X, y).model_ is first


def test_errors_are_clear():
    X, y = _blobs(4)
    uncompiled = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    with pytest.raises(RuntimeError, match="needs to be compiled"):
        wrappers.SKLearnRegressor(uncompiled).fit(X, np.ones(150))
    with pytest.raises(ValueError, match="Only binary and multiclass"):
        wrappers.SKLearnClassifier(_classifier).fit(X, np.linspace(0, 1, 150))
    with pytest.raises(ValueError, match="only one class"):
        wrappers.SKLearnClassifier(_classifier).fit(X, np.zeros(150, int))
    estimator = wrappers.SKLearnClassifier(_classifier, fit_kwargs={"verbose": 0}).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but SKLearnClassifier is expecting 2"):
        estimator.predict(np.ones((2, 3)))
