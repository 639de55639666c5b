"""keras.backend.get_uid shares the auto-naming counters; SymbolicScope nests."""
import kerasish as keras


def test_get_uid_counts_per_prefix_with_layer_names():
    keras.backend.clear_session()
    assert keras.backend.get_uid("foo") == 1 and keras.backend.get_uid("foo") == 2
    keras.layers.Dense(1)  # takes the name "dense"
    assert keras.backend.get_uid("dense") == 2
    assert keras.layers.Dense(1).name == "dense_2"


def test_symbolic_scope_and_keras_tensor():
    assert not keras.backend.symbolic_scope.in_symbolic_scope()
    with keras.SymbolicScope():
        with keras.SymbolicScope():
            assert keras.backend.symbolic_scope.in_symbolic_scope()
        assert keras.backend.symbolic_scope.in_symbolic_scope()
    assert not keras.backend.symbolic_scope.in_symbolic_scope()
    assert keras.backend.is_keras_tensor(keras.Input((2,)))
    assert not keras.backend.is_keras_tensor(keras.ops.ones((2,)))
