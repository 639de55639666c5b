"""Learning-rate schedules: `keras.optimizers.schedules`."""
from kerasish.optimizers.schedules.learning_rate_schedule import (
    CosineDecay, CosineDecayRestarts, ExponentialDecay, InverseTimeDecay,
    LearningRateSchedule, PiecewiseConstantDecay, PolynomialDecay, deserialize,
    serialize)
from kerasish.utils import registry

registry.REGISTRY.add_namespace("optimizers.schedules", globals())

__all__ = [
    "CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay",
    "LearningRateSchedule", "PiecewiseConstantDecay", "PolynomialDecay",
    "deserialize", "serialize",
]
