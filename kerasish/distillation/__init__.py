"""`keras.distillation`: knowledge distillation (Keras 3.12+): a `Distiller` model and
its losses (`LogitsDistillation`, `FeatureDistillation`, the `DistillationLoss` base)."""
from kerasish.distillation.distillation_loss import (DistillationLoss, FeatureDistillation,
                                                     LogitsDistillation)
from kerasish.distillation.distiller import Distiller
from kerasish.utils import registry

__all__ = ["DistillationLoss", "Distiller", "FeatureDistillation", "LogitsDistillation"]

registry.REGISTRY.add_namespace("distillation", globals())
