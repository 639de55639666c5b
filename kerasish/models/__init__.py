"""Models: Model (subclassing and functional), Sequential, load_model."""
from kerasish.models.functional import Functional
from kerasish.models.model import Model
from kerasish.models.sequential import Sequential


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Loads a model saved with `model.save` (`.keras` zip or legacy `.h5`)."""
    from kerasish.saving import saving_api
    return saving_api.load_model(filepath, custom_objects=custom_objects, compile=compile,
                                 safe_mode=safe_mode)


__all__ = ["Functional", "Model", "Sequential", "load_model"]
