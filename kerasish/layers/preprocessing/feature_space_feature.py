"""Feature: one FeatureSpace input (dtype, preprocessing layer, output mode)."""
from kerasish.utils import registry


class Feature:
    """A FeatureSpace feature: its input dtype, the layer that preprocesses it, and
    how its output is encoded ("int", "one_hot" or "float").

    Args:
        dtype: input dtype ("float32", "int32", "string").
        preprocessor: the preprocessing layer.
        output_mode: "int", "one_hot" or "float".
    """

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in ("int", "one_hot", "float"):
            raise ValueError("FeatureSpace feature: invalid value for argument `output_mode`. "
                             "Expected one of {'int', 'one_hot', 'float'}. Received: "
                             f"output_mode={output_mode}")
        self.dtype = dtype
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self):
        return {"dtype": self.dtype,
                "preprocessor": registry.serialize_keras_object(self.preprocessor),
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("preprocessor"), dict):
            config["preprocessor"] = registry.deserialize_keras_object(
                config["preprocessor"])
        return cls(**config)
