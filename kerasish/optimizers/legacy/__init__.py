"""`keras.optimizers.legacy`: the tf.keras 2 optimizers, which Keras 3 (and kerasish) do not
have. Creating one raises Keras 3's ImportError, pointing at the Keras 3 optimizers."""

_MESSAGE = ("`keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, "
            "to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the "
            "`tf_keras` package (Keras 2) and set the environment variable "
            "`TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when "
            "accessing `tf.keras`.")


class LegacyOptimizerWarning:
    """Base of the legacy names: instantiating any of them raises ImportError."""

    def __init__(self, *args, **kwargs):
        raise ImportError(_MESSAGE)


class Optimizer(LegacyOptimizerWarning):
    """Keras 2's legacy optimizer base (raises ImportError in Keras 3)."""


class SGD(LegacyOptimizerWarning):
    """Keras 2's legacy SGD (raises ImportError in Keras 3; use `keras.optimizers.SGD`)."""


class Adam(LegacyOptimizerWarning):
    """Keras 2's legacy Adam (raises ImportError in Keras 3; use `keras.optimizers.Adam`)."""


class Adagrad(LegacyOptimizerWarning):
    """Keras 2's legacy Adagrad (raises ImportError; use `keras.optimizers.Adagrad`)."""


class RMSprop(LegacyOptimizerWarning):
    """Keras 2's legacy RMSprop (raises ImportError; use `keras.optimizers.RMSprop`)."""


class Ftrl(LegacyOptimizerWarning):
    """Keras 2's legacy Ftrl (raises ImportError; use `keras.optimizers.Ftrl`)."""


__all__ = ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"]
