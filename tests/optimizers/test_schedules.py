"""Learning-rate schedules: values from Keras's documented formulas, config, errors."""
import math

import numpy as np
import pytest

import kerasish as keras
from kerasish.optimizers import schedules

STEPS = [0, 1, 5, 10, 37, 100, 250]


def values(schedule, steps=STEPS):
    return np.array([float(schedule(s)) for s in steps])


def close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-9)


def test_exponential_decay():
    close(values(schedules.ExponentialDecay(0.1, 10, 0.96)),
          [0.1 * 0.96 ** (s / 10) for s in STEPS])
    close(values(schedules.ExponentialDecay(0.1, 10, 0.96, staircase=True)),
          [0.1 * 0.96 ** (s // 10) for s in STEPS])


def test_piecewise_constant_decay_keras_doc_example():
    schedule = schedules.PiecewiseConstantDecay([100000, 110000], [1.0, 0.5, 0.1])
    close(values(schedule, [0, 100000, 100001, 110000, 110001]), [1.0, 1.0, 0.5, 0.5, 0.1])


def test_piecewise_constant_decay_many_pieces():
    schedule = schedules.PiecewiseConstantDecay([2, 5, 9], [4.0, 3.0, 2.0, 1.0])
    close(values(schedule, range(12)), [4, 4, 4, 3, 3, 3, 2, 2, 2, 2, 1, 1])


def test_polynomial_decay():
    schedule = schedules.PolynomialDecay(0.1, 10000, 0.01, power=0.5)
    steps = [0, 2500, 5000, 10000, 20000]
    close(values(schedule, steps),
          [0.09 * (1 - min(s, 10000) / 10000) ** 0.5 + 0.01 for s in steps])


def test_polynomial_decay_cycle():
    schedule = schedules.PolynomialDecay(0.1, 10, 0.0, power=2.0, cycle=True)
    steps = [0, 5, 10, 15, 20, 25]
    expected = []
    for s in steps:
        period = 10 * (1 if s == 0 else math.ceil(s / 10))
        expected.append(0.1 * (1 - s / period) ** 2)
    close(values(schedule, steps), expected)


def test_polynomial_decay_default_end_rate():
    assert float(schedules.PolynomialDecay(0.1, 10)(50)) == pytest.approx(0.0001)


def test_inverse_time_decay():
    close(values(schedules.InverseTimeDecay(0.1, 3, 0.5)),
          [0.1 / (1 + 0.5 * s / 3) for s in STEPS])
    close(values(schedules.InverseTimeDecay(0.1, 3, 0.5, staircase=True)),
          [0.1 / (1 + 0.5 * (s // 3)) for s in STEPS])


def test_cosine_decay():
    close(values(schedules.CosineDecay(0.1, 100, alpha=0.1)),
          [0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 100) / 100)) + 0.1) for s in STEPS])


def test_cosine_decay_with_warmup():
    schedule = schedules.CosineDecay(0.0, 100, warmup_target=0.2, warmup_steps=10)

    def expected(s):
        if s < 10:
            return 0.2 * s / 10
        s = min(s, 110) - 10
        return 0.2 * 0.5 * (1 + math.cos(math.pi * s / 100))

    close(values(schedule), [expected(s) for s in STEPS])


def sgdr(step, lr, first, t_mul, m_mul, alpha):
    """SGDR reference: walk the restart periods in float64."""
    period, start, scale = float(first), 0.0, 1.0
    while step >= start + period:
        start, period, scale = start + period, period * t_mul, scale * m_mul
    fraction = (step - start) / period
    return lr * ((1 - alpha) * scale * 0.5 * (1 + math.cos(math.pi * fraction)) + alpha)


@pytest.mark.parametrize("t_mul,m_mul,alpha", [(2.0, 1.0, 0.0), (1.0, 0.5, 0.05), (1.5, 0.8, 0.01)])
def test_cosine_decay_restarts(t_mul, m_mul, alpha):
    schedule = schedules.CosineDecayRestarts(0.1, 10, t_mul=t_mul, m_mul=m_mul, alpha=alpha)
    steps = [0, 3, 9, 11, 25, 29, 31, 60, 75]
    close(values(schedule, steps), [sgdr(s, 0.1, 10, t_mul, m_mul, alpha) for s in steps])


def test_result_is_a_float32_scalar_tensor_for_variable_steps():
    step = keras.Variable(7, dtype="int32", trainable=False)
    value = schedules.ExponentialDecay(0.1, 10, 0.5)(step)
    assert isinstance(value, keras.Tensor) and value.dtype == "float32" and value.shape == ()


ALL = [schedules.ExponentialDecay(0.1, 10, 0.9, staircase=True),
       schedules.PiecewiseConstantDecay([10, 20], [0.1, 0.05, 0.01]),
       schedules.PolynomialDecay(0.1, 100, cycle=True),
       schedules.InverseTimeDecay(0.1, 10, 0.5),
       schedules.CosineDecay(0.1, 100, warmup_target=0.2, warmup_steps=5),
       schedules.CosineDecayRestarts(0.1, 10, m_mul=0.9)]


@pytest.mark.parametrize("schedule", ALL, ids=lambda s: type(s).__name__)
def test_serialize_round_trip(schedule):
    data = schedules.serialize(schedule)
    assert data["module"] == "keras.optimizers.schedules"
    assert data["class_name"] == type(schedule).__name__
    clone = schedules.deserialize(data)
    assert type(clone) is type(schedule) and clone.get_config() == schedule.get_config()
    close(values(clone), values(schedule))


def test_default_names_match_keras():
    names = [s.get_config()["name"] for s in ALL]
    assert names == ["ExponentialDecay", "PiecewiseConstant", "PolynomialDecay",
                     "InverseTimeDecay", "CosineDecay", "SGDRDecay"]


def test_custom_schedule_in_optimizer_and_deserialize():
    class Halving(schedules.LearningRateSchedule):
        def __init__(self, start):
            self.start = start

        def __call__(self, step):
            return self.start / (2.0 ** keras.ops.cast(step, "float32"))

        def get_config(self):
            return {"start": self.start}

    w = keras.Variable(np.zeros(1, np.float32))
    opt = keras.optimizers.SGD(learning_rate=Halving(1.0))
    for _ in range(2):
        opt.apply_gradients([(np.ones(1, np.float32), w)])
    np.testing.assert_allclose(w.numpy(), [-1.5])
    clone = schedules.deserialize(schedules.serialize(Halving(3.0)),
                                  custom_objects={"Halving": Halving})
    assert clone.start == 3.0


def test_errors():
    with pytest.raises(ValueError, match="decay_steps"):
        schedules.ExponentialDecay(0.1, 0, 0.9)
    with pytest.raises(ValueError, match="first_decay_steps"):
        schedules.CosineDecayRestarts(0.1, -1)
    with pytest.raises(ValueError, match="1 less than"):
        schedules.PiecewiseConstantDecay([1, 2], [1.0, 2.0])
    with pytest.raises(ValueError, match="Unknown decay"):
        schedules.deserialize({"class_name": "StepDecay", "config": {}})
    with pytest.raises(NotImplementedError):
        schedules.LearningRateSchedule()(0)


def test_registered_schedule_and_optimizer_round_trip_as_keras(tmp_path):
    # Keras 3.15.1 (probes /tmp/probe5/t/sched.py and save9.py, probe5 session): a
    # register_keras_serializable schedule/optimizer is written with its "package>Name"
    # and found again by it; load_model of a model compiled with one works (kerasish
    # wrote "Warm" and then could not find it: "Unknown decay").
    @keras.saving.register_keras_serializable(package="probe5")
    class Warm(keras.optimizers.schedules.LearningRateSchedule):
        def __init__(self, base=0.1):
            self.base = base

        def __call__(self, step):
            return self.base

        def get_config(self):
            return {"base": self.base}

    @keras.saving.register_keras_serializable(package="probe5opt")
    class MySGD(keras.optimizers.SGD):
        pass

    config = keras.optimizers.schedules.serialize(Warm(0.2))
    assert (config["class_name"], config["registered_name"]) == ("Warm", "probe5>Warm")
    assert isinstance(keras.optimizers.schedules.deserialize(config), Warm)
    config = keras.optimizers.serialize(MySGD(0.1))
    assert config["registered_name"] == "probe5opt>MySGD"
    assert isinstance(keras.optimizers.deserialize(config), MySGD)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(MySGD(Warm(0.05)), "mse")
    model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert isinstance(loaded.optimizer, MySGD)
    assert isinstance(loaded.optimizer._learning_rate, Warm)
