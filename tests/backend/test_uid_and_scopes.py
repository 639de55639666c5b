"""keras.backend.get_uid shares the auto-naming counters; SymbolicScope nests."""
import numpy as np

import kerasish as keras


def test_get_uid_counts_per_prefix_with_layer_names():
    keras.backend.clear_session()
    assert keras.backend.get_uid("foo") == 1 and keras.backend.get_uid("foo") == 2
    keras.layers.Dense(1)  # takes the name "dense"
    assert keras.backend.get_uid("dense") == 2
    assert keras.layers.Dense(1).name == "dense_2"


def test_clear_session_collects_garbage_unless_told_not_to():
    import gc
    import weakref

    class Cycle:
        pass

    def orphan_cycle():
        a, b = Cycle(), Cycle()
        a.other, b.other = b, a
        return weakref.ref(a)

    gc.disable()
    try:
        ref = orphan_cycle()
        keras.backend.clear_session(free_memory=False)
        assert ref() is not None
        keras.backend.clear_session()
        assert ref() is None
    finally:
        gc.enable()


def test_symbolic_scope_and_keras_tensor():
    assert not keras.backend.symbolic_scope.in_symbolic_scope()
    with keras.SymbolicScope():
        with keras.SymbolicScope():
            assert keras.backend.symbolic_scope.in_symbolic_scope()
        assert keras.backend.symbolic_scope.in_symbolic_scope()
    assert not keras.backend.symbolic_scope.in_symbolic_scope()
    assert keras.backend.is_keras_tensor(keras.Input((2,)))
    assert not keras.backend.is_keras_tensor(keras.ops.ones((2,)))


def test_in_symbolic_scope_inside_a_functional_build_only():
    # Keras runs compute_output_spec (the trace of a layer without compute_output_shape)
    # inside a SymbolicScope; a real call is not in one.
    seen = []

    class Probe(keras.layers.Layer):
        def call(self, x):
            seen.append(keras.backend.in_symbolic_scope())
            return x * 2.0

    inputs = keras.Input((3,))
    model = keras.Model(inputs, Probe()(inputs))
    assert seen == [True]
    model(np.ones((2, 3), "float32"))
    assert seen == [True, False]
    assert keras.backend.get_symbolic_scope() is None
    with keras.SymbolicScope() as scope:
        assert keras.backend.get_symbolic_scope() is scope
