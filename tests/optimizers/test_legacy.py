"""keras.optimizers.legacy raises Keras 3's ImportError."""
import pytest

import kerasish as keras


@pytest.mark.parametrize("name", ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"])
def test_legacy_optimizers_raise_like_keras(name):
    with pytest.raises(ImportError, match=r"`keras.optimizers.legacy` is not supported in Keras 3"):
        getattr(keras.optimizers.legacy, name)(learning_rate=0.1)
