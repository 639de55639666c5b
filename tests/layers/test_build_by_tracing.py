"""The first call of a layer without its own `build` and with unbuilt sublayers
first runs its `call` symbolically to build them (Keras's `Layer._maybe_build`),
then runs the real call.

Expected values: `tests/fixtures/build_by_tracing.json`, written by
`tests/fixtures/make_build_by_tracing_fixture.py` running the same programs
(`build_by_tracing_cases.py`) on real Keras 3.15.1 with TensorFlow 2.21: the
traced pass sees the caller's `training` (not yet resolved) and each sublayer
call in it makes its own call context; a pass that fails on eager inputs is
silent and the layer is marked built after its real call; draws in the pass
advance no seed generator and its assignments are dropped; a
MultiHeadAttention in the pass deletes the caller's masks.
"""
import json
import os
import warnings

import pytest

import kerasish as keras
from tests.layers.build_by_tracing_cases import CASES

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "build_by_tracing.json")
with open(FIXTURE) as f:
    EXPECTED = json.load(f)


def _close(got, want):
    if isinstance(want, float):
        return abs(got - want) <= 2e-4
    if isinstance(want, list):
        return len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want))
    return got == want


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_real_keras(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = json.loads(json.dumps(CASES[name](keras)))
    want = EXPECTED[name]
    assert got.keys() == want.keys()
    for key in want:
        assert _close(got[key], want[key]), (key, got[key], want[key])


def test_untraceable_symbolic_call_warns_as_keras():
    class Fails(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(2)
            self.e = keras.layers.Dense(3)

        def call(self, x):
            h = self.d(x)
            float(keras.ops.sum(h))
            return self.e(h)

    with pytest.warns(UserWarning) as record:
        with pytest.raises(TypeError):
            Fails()(keras.Input((4,)))
    texts = [str(w.message) for w in record]
    assert any("looks like it has unbuilt state, but Keras is not able to trace" in t
               for t in texts)
    assert any(t.startswith("`build()` was called on layer") for t in texts)
