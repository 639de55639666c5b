"""Cross: a FeatureSpace feature cross (names, hashing dimension, output mode)."""


class Cross:
    """A cross of FeatureSpace features, hashed into `crossing_dim` bins.

    Args:
        feature_names: names of the crossed features.
        crossing_dim: number of hash bins.
        output_mode: "one_hot" or "int".
    """

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in ("int", "one_hot"):
            raise ValueError("FeatureSpace.cross: invalid value for argument `output_mode`. "
                             f"Expected one of {{'int', 'one_hot'}}. Received: "
                             f"output_mode={output_mode}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self):
        return "_X_".join(self.feature_names)

    def get_config(self):
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
