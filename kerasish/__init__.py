"""kerasish: a Keras-style deep-learning library on numpy (CPU) and cupy (GPU).

    import kerasish as keras

This is the top floor: it imports every package and assembles the public
namespaces (see docs/design.md, "Floors").
"""
from kerasish import (activations, backend, callbacks, config, constraints, data,
                      datasets, distribute, distribution, dtype_policies, initializers,
                      layers, losses, metrics, mixed_precision, models, ops, optimizers, random,
                      preprocessing, regularizers, saving, summary, tree, utils,
                      visualization)
from kerasish.autodiff import GradientTape, Tensor, Variable
from kerasish.autodiff.function import function
from kerasish.autodiff.stateless_scope import StatelessScope
from kerasish.backend import device, switches as _switches
from kerasish.backend.symbolic_scope import SymbolicScope
from kerasish.dtype_policies import DTypePolicy, FloatDTypePolicy
from kerasish.initializers import Initializer
from kerasish.layers import Input, InputSpec, Layer
from kerasish.layers import keras_tensor as _keras_tensor
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.name_scope import name_scope
from kerasish.losses import Loss
from kerasish.metrics import Metric
from kerasish.models import Model, Sequential, model_visualization as _model_visualization
from kerasish.ops.function import Function
from kerasish.ops.operation import Operation
from kerasish.ops.remat import RematScope, remat
from kerasish.optimizers import Optimizer
from kerasish.regularizers import Regularizer
from kerasish.data import data_adapters as _data_adapters
from kerasish.layers.preprocessing.feature_space import FeatureSpace as _FeatureSpace
from kerasish.utils import bounding_boxes as _bounding_boxes  # noqa: F401 (keras.utils.bounding_boxes)
from kerasish.utils import (audio_dataset_utils as _audio, dataset_utils as _dataset_utils,
                            image_dataset_utils as _image_datasets, image_utils as _image_utils,
                            naming as _naming, progbar as _progbar, registry as _registry,
                            text_dataset_utils as _text_datasets,
                            timeseries_dataset_utils as _timeseries)

# `keras.utils` names whose code sits on floors above kerasish.utils (the lowest):
# the top floor adds them to that namespace.
utils.PyDataset = utils.Sequence = data.PyDataset
utils.Progbar = _progbar.Progbar
utils.pack_x_y_sample_weight = _data_adapters.pack_x_y_sample_weight
utils.unpack_x_y_sample_weight = _data_adapters.unpack_x_y_sample_weight
utils.clear_session = backend.clear_session
utils.standardize_dtype = backend.standardize_dtype
utils.set_random_seed = random.set_random_seed
utils.is_keras_tensor = _keras_tensor.is_keras_tensor
utils.get_source_inputs = _keras_tensor.get_source_inputs
utils.plot_model = _model_visualization.plot_model
utils.model_to_dot = _model_visualization.model_to_dot
utils.enable_interactive_logging = _switches.enable_interactive_logging
utils.disable_interactive_logging = _switches.disable_interactive_logging
utils.is_interactive_logging_enabled = _switches.is_interactive_logging_enabled
utils.load_img = _image_utils.load_img
utils.img_to_array = _image_utils.img_to_array
utils.array_to_img = _image_utils.array_to_img
utils.save_img = _image_utils.save_img
utils.split_dataset = _dataset_utils.split_dataset
utils.image_dataset_from_directory = _image_datasets.image_dataset_from_directory
utils.text_dataset_from_directory = _text_datasets.text_dataset_from_directory
utils.timeseries_dataset_from_array = _timeseries.timeseries_dataset_from_array
utils.audio_dataset_from_directory = _audio.audio_dataset_from_directory
utils.FeatureSpace = _FeatureSpace

# `keras.backend` names that live above the backend floor.
backend.get_uid = _naming.get_uid
backend.is_keras_tensor = _keras_tensor.is_keras_tensor

__version__ = "0.1.0"


def version():
    """kerasish's version string (Keras's `keras.version()`).

    Example:
        >>> keras.version()
        '0.1.0'
    """
    return __version__


from kerasish import applications  # noqa: E402,F401  (imports layers and models)
from kerasish import distillation  # noqa: E402,F401  (a Model subclass)

_registry.REGISTRY.add_namespace("", globals())


def __getattr__(name):
    """`keras.wrappers` loads on first use: it imports scikit-learn."""
    if name == "wrappers":
        import importlib
        return importlib.import_module("kerasish.wrappers")  # optional dependency: sklearn
    raise AttributeError(f"module 'kerasish' has no attribute {name!r}")
