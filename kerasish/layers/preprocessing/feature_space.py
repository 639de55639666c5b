"""FeatureSpace: declarative preprocessing of a dict of structured-data features."""
import numpy as np

from kerasish import ops
from kerasish.data.dataset import Dataset
from kerasish.layers.core.input_layer import Input
from kerasish.layers.layer import Layer
from kerasish.layers.merging.concatenate import Concatenate
from kerasish.layers.preprocessing.category_encoding import CategoryEncoding
from kerasish.layers.preprocessing.discretization import Discretization
from kerasish.layers.preprocessing.feature_space_cross import Cross
from kerasish.layers.preprocessing.feature_space_feature import Feature
from kerasish.layers.preprocessing.hashed_crossing import HashedCrossing
from kerasish.layers.preprocessing.hashing import Hashing
from kerasish.layers.preprocessing.integer_lookup import IntegerLookup
from kerasish.layers.preprocessing.normalization import Normalization
from kerasish.layers.preprocessing.rescaling import Rescaling
from kerasish.layers.preprocessing.string_lookup import StringLookup
from kerasish.utils import naming

_NAMED_TYPES = ("float", "float_normalized", "float_rescaled", "float_discretized",
                "integer_categorical", "string_categorical", "integer_hashed", "string_hashed")


class _Identity(Layer):
    def call(self, inputs):
        return ops.cast(inputs, "float32")


class FeatureSpace(Layer):
    """Preprocesses a dict of features (structured data) as Keras's FeatureSpace.

    Each feature gets a preprocessing layer (lookup, hashing, discretization,
    normalization, rescaling); `adapt()` learns their state from a dataset of
    dicts; calling the space on a dict gives one float32 matrix (`"concat"`,
    features in sorted name order, then the crosses in sorted name order) or a
    dict. Categorical outputs are one-hot encoded, crosses are hashed with
    `HashedCrossing` (Keras's numbers).

    Args:
        features: dict name -> `FeatureSpace.<type>(...)` or a type name string.
        output_mode: "concat" or "dict".
        crosses: list of `FeatureSpace.cross(...)` or tuples of feature names.
        crossing_dim: bins of crosses given as tuples.
        hashing_dim: bins of features given as "string_hashed"/"integer_hashed".
        num_discretization_bins: bins of features given as "float_discretized".

    Example:
        >>> space = keras.utils.FeatureSpace(
        ...     {"color": "string_categorical", "size": "float_normalized"})
        >>> space.adapt({"color": np.array(["red", "blue"]), "size": np.array([1.0, 3.0])})
        >>> space({"color": np.array(["red"]), "size": np.array([2.0])}).shape
        (1, 4)
    """

    # Feature constructors (as Keras's classmethods) ---------------------------------
    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        return Cross(feature_names, crossing_dim, output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        name = name or naming.auto_name("float")
        return Feature("float32", _Identity(name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        name = name or naming.auto_name("float_rescaled")
        return Feature("float32", Rescaling(scale=scale, offset=offset,
                                            name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name=None):
        name = name or naming.auto_name("float_normalized")
        return Feature("float32", Normalization(axis=-1, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot",
                          name=None):
        name = name or naming.auto_name("float_discretized")
        layer = Discretization(num_bins=num_bins if bin_boundaries is None else None,
                               bin_boundaries=bin_boundaries, name=f"{name}_preprocessor")
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                            name=None):
        name = name or naming.auto_name("integer_categorical")
        return Feature("int32", IntegerLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                           name=None):
        name = name or naming.auto_name("string_categorical")
        return Feature("string", StringLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or naming.auto_name("string_hashed")
        return Feature("string", Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or naming.auto_name("integer_hashed")
        return Feature("int32", Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    # Construction ---------------------------------------------------------------------------
    def __init__(self, features, output_mode="concat", crosses=None, crossing_dim=32,
                 hashing_dim=32, num_discretization_bins=32, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if not features:
            raise ValueError("FeatureSpace: the `features` argument cannot be None or empty.")
        if output_mode not in ("dict", "concat"):
            raise ValueError("FeatureSpace: invalid value for argument `output_mode`. Expected "
                             f"one of {{'dict', 'concat'}}. Received: output_mode={output_mode}")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.output_mode = output_mode
        self.features = {n: self._standardize_feature(n, f) for n, f in features.items()}
        self.crosses = [self._standardize_cross(c) for c in (crosses or [])]
        self.preprocessors = {n: f.preprocessor for n, f in self.features.items()}
        self.crossers = {c.name: HashedCrossing(c.crossing_dim, name=c.name)
                         for c in self.crosses}
        self.one_hot_encoders = {}
        self._is_adapted = not self._adaptable()
        self.built = True

    def _standardize_feature(self, name, feature):
        if isinstance(feature, Feature):
            return feature
        if feature not in _NAMED_TYPES:
            raise ValueError(f"FeatureSpace: invalid feature type for '{name}': {feature!r}. "
                             f"Expected a FeatureSpace feature or one of {_NAMED_TYPES}.")
        if feature == "float_discretized":
            return self.float_discretized(num_bins=self.num_discretization_bins, name=name)
        if feature in ("integer_hashed", "string_hashed"):
            return getattr(self, feature)(self.hashing_dim, name=name)
        return getattr(self, feature)(name=name)

    def _standardize_cross(self, cross):
        if isinstance(cross, Cross):
            names = cross.feature_names
        else:
            if not self.crossing_dim:
                raise ValueError("FeatureSpace: when specifying `crosses`, the argument "
                                 "`crossing_dim` should be specified as well.")
            names, cross = tuple(cross), Cross(cross, crossing_dim=self.crossing_dim)
        unknown = [n for n in names if n not in self.features]
        if unknown:
            raise ValueError("FeatureSpace: all features referenced in the `crosses` argument "
                             f"should be present in the `features` dict. Received unknown "
                             f"features: {unknown}")
        return cross

    def _adaptable(self):
        names = []
        for name, preprocessor in self.preprocessors.items():
            if isinstance(preprocessor, Normalization) and preprocessor.input_mean is not None:
                continue
            if isinstance(preprocessor, Discretization) and preprocessor.num_bins is None:
                continue
            if isinstance(preprocessor, (IntegerLookup, StringLookup)) and \
                    preprocessor._has_input_vocabulary:
                continue
            if hasattr(preprocessor, "adapt"):
                names.append(name)
        return names

    # Adapt ----------------------------------------------------------------------------------------
    def adapt(self, dataset):
        """Learns every adaptable preprocessor's state from a Dataset (or dict) of features.

        As Keras, unbatched scalar features are batched by 32, and each batch is
        made a column (batch, 1) before the preprocessor's `adapt`.
        """
        if isinstance(dataset, dict):
            dataset = Dataset.from_tensor_slices(dataset)
        if not isinstance(dataset, Dataset):
            raise ValueError("FeatureSpace.adapt() can only be called on a kerasish.data."
                             f"Dataset or a dict of arrays/lists. Received: {type(dataset)}")
        for name in self._adaptable():
            column = dataset.map(lambda x, name=name: x[name])
            first = np.asarray(next(iter(column)))
            if first.ndim == 0:
                column = column.batch(32)
            if first.ndim in (0, 1):
                column = column.map(lambda x: np.asarray(x)[..., None])
            self.preprocessors[name].adapt(column)
        self._is_adapted = True

    def _check_adapted(self):
        if not self._is_adapted:
            raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace before "
                             "you can start using it.")

    # Calling -----------------------------------------------------------------------------------------
    def get_inputs(self):
        """A dict of `keras.Input(shape=(1,))`, one per feature, with its dtype."""
        self._check_adapted()
        if not hasattr(self, "_inputs_cache"):
            self._inputs_cache = {n: Input(shape=(1,), dtype=f.dtype, name=n)
                                  for n, f in self.features.items()}
        return self._inputs_cache

    def get_encoded_features(self):
        """The symbolic encoded features for `get_inputs()` (to build a model on top)."""
        return self._encode(self.get_inputs())

    def __call__(self, data):
        self._check_adapted()
        if not isinstance(data, dict):
            raise ValueError("A FeatureSpace can only be called with a dict. Received: "
                             f"data of type {type(data)}")
        unknown = sorted(set(self.features) - set(data))
        if unknown:
            raise ValueError(f"FeatureSpace ({self.name}): missing features {unknown}; it "
                             f"expects {sorted(self.features)}.")
        columns, single = {}, False
        for name in self.features:
            value = np.asarray(data[name].numpy() if hasattr(data[name], "numpy")
                               else data[name])
            if value.ndim == 0:
                value, single = value.reshape(1, 1), True
            elif value.ndim == 1:
                value = value[:, None]
            columns[name] = value
        merged = self._encode(columns)
        if single:
            if self.output_mode == "concat":
                return ops.squeeze(merged, 0)
            return {n: ops.squeeze(v, 0) if v.ndim == 2 and v.shape[0] == 1 else v
                    for n, v in merged.items()}
        return merged

    def _encode(self, columns):
        preprocessed = {n: self.preprocessors[n](columns[n]) for n in sorted(self.features)}
        crossed = {c.name: self.crossers[c.name]([preprocessed[n] for n in c.feature_names])
                   for c in sorted(self.crosses, key=lambda c: c.name)}
        outputs = {}
        for name, value in list(preprocessed.items()) + list(crossed.items()):
            spec = self.features.get(name) or next(c for c in self.crosses if c.name == name)
            if spec.output_mode == "one_hot":
                value = self._one_hot_encoder(name)(value)
            elif self.output_mode == "concat" and spec.output_mode == "int":
                raise ValueError(f"FeatureSpace: cannot concatenate features because feature "
                                 f"'{name}' has not been encoded (it has an integer dtype). "
                                 "Consider using `output_mode='dict'`.")
            outputs[name] = value
        if self.output_mode == "dict":
            return outputs
        return Concatenate(axis=-1)(list(outputs.values()))

    def _one_hot_encoder(self, name):
        if name not in self.one_hot_encoders:
            preprocessor = self.preprocessors.get(name) or self.crossers.get(name)
            if isinstance(preprocessor, (IntegerLookup, StringLookup)):
                depth = preprocessor.vocabulary_size()
            elif isinstance(preprocessor, Discretization):
                depth = preprocessor.num_bins or len(preprocessor.bin_boundaries) + 1
            elif isinstance(preprocessor, (HashedCrossing, Hashing)):
                depth = preprocessor.num_bins
            else:
                raise ValueError(f"FeatureSpace: feature '{name}' has `output_mode='one_hot'`, "
                                 "but the size of its output space is not known, so it cannot "
                                 "be one-hot encoded. Try using `output_mode='int'`.")
            self.one_hot_encoders[name] = CategoryEncoding(num_tokens=depth,
                                                           output_mode="multi_hot")
        return self.one_hot_encoders[name]

    def get_config(self):
        return {"features": {n: f.get_config() for n, f in self.features.items()},
                "output_mode": self.output_mode,
                "crosses": [c.get_config() for c in self.crosses],
                "crossing_dim": self.crossing_dim, "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins, "name": self.name}

    @classmethod
    def from_config(cls, config):
        """A FeatureSpace from `get_config()` (learned state comes from adapt or a saved file)."""
        config = dict(config)
        config["features"] = {n: f if isinstance(f, str) else Feature.from_config(f)
                              for n, f in config["features"].items()}
        config["crosses"] = [c if isinstance(c, (list, tuple)) else Cross.from_config(c)
                             for c in config.get("crosses") or []]
        return cls(**config)
