"""Learning-rate schedules: `keras.optimizers.schedules`."""
from kerasish.optimizers.schedules.learning_rate_schedule import (
    CosineDecay, CosineDecayRestarts, ExponentialDecay, InverseTimeDecay,
    LearningRateSchedule, PiecewiseConstantDecay, PolynomialDecay, deserialize,
    serialize)
from kerasish.optimizers.schedules import learning_rate_schedule
from kerasish.utils import registry

registry.REGISTRY.add_namespace("optimizers.schedules", globals(),
                                learning_rate_schedule._CATALOG)

__all__ = [
    "CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay",
    "LearningRateSchedule", "PiecewiseConstantDecay", "PolynomialDecay",
    "deserialize", "serialize",
]
