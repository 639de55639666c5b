"""`keras.wrappers`: scikit-learn estimators around kerasish models (needs scikit-learn:
`pip install "kerasish[sklearn]"`).

    from kerasish.wrappers import SKLearnClassifier
"""
from kerasish.wrappers.sklearn_wrapper import (SKLearnClassifier, SKLearnRegressor,
                                               SKLearnTransformer)

__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]
