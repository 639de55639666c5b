"""The tf.distribute-style surface: strategies, contexts, run/reduce/gather, datasets."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.distribute import values

CPU2 = ["cpu:0", "cpu:1"]


def test_default_strategy_outside_any_scope():
    strategy = keras.distribute.get_strategy()
    assert strategy.num_replicas_in_sync == 1
    assert not keras.distribute.has_strategy()
    assert keras.distribute.get_replica_context().num_replicas_in_sync == 1
    assert strategy.run(lambda a, b: a + b, args=(1, 2)) == 3
    assert strategy.extended.should_checkpoint


def test_scope_sets_the_strategy_and_cross_replica_context():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    with strategy.scope():
        assert keras.distribute.get_strategy() is strategy
        assert keras.distribute.has_strategy()
        assert keras.distribute.in_cross_replica_context()
        assert keras.distribute.get_replica_context() is None
    assert not keras.distribute.has_strategy()


def test_mixing_strategies_is_refused():
    first = keras.distribute.MirroredStrategy(CPU2)
    second = keras.distribute.OneDeviceStrategy("cpu:0")
    with first.scope():
        with pytest.raises(ValueError, match="Mixing different distribution strategies"):
            with second.scope():
                pass


def test_device_lists_are_validated():
    assert [d.name for d in keras.distribute.MirroredStrategy()._devices] in (
        ["cpu:0"], keras.backend.devices.list_devices("gpu"))
    with pytest.raises(ValueError, match="duplicate"):
        keras.distribute.MirroredStrategy(["cpu:0", "cpu:0"])
    with pytest.raises(ValueError, match="NcclAllReduce needs GPU"):
        keras.distribute.MirroredStrategy(CPU2, cross_device_ops=keras.distribute.NcclAllReduce())


def test_run_gives_each_replica_its_piece_device_and_id():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    batch = values.PerReplica([np.ones(2), np.ones(3)])

    def fn(x, scale):
        ctx = keras.distribute.get_replica_context()
        with_device = keras.ops.convert_to_tensor(x) * scale
        return ctx.replica_id_in_sync_group, with_device.device, len(x)

    result = strategy.run(fn, args=(batch,), kwargs={"scale": 2.0})
    assert isinstance(result, keras.distribute.PerReplica)
    assert strategy.experimental_local_results(result) == ((0, "cpu:0", 2), (1, "cpu:1", 3))


def test_reduce_and_gather():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    per_replica = values.PerReplica([np.array([1.0, 2.0], "float32"), np.array([3.0], "float32")])
    assert float(strategy.reduce("SUM", values.PerReplica([1.0, 2.0]), axis=None)) == 3.0
    assert float(strategy.reduce(keras.distribute.ReduceOp.MEAN,
                                 values.PerReplica([1.0, 2.0]), axis=None)) == 1.5
    assert float(strategy.reduce("SUM", per_replica, axis=0)) == 6.0
    assert float(strategy.reduce("MEAN", per_replica, axis=0)) == 2.0  # over all 3 elements
    np.testing.assert_array_equal(strategy.gather(per_replica, axis=0), [1.0, 2.0, 3.0])
    assert float(strategy.reduce("MEAN", 4.0, axis=None)) == 4.0
    with pytest.raises(ValueError, match="not per-replica"):
        strategy.reduce("SUM", 4.0, axis=None)
    with pytest.raises(ValueError, match="ReduceOp"):
        strategy.reduce("MAX", per_replica, axis=None)


def test_split_sizes_are_even_and_contiguous():
    assert values.split_sizes(10, 4) == [3, 3, 2, 2]
    assert values.split_sizes(1, 2) == [1, 0]
    assert values.offsets([3, 3, 2, 2]) == [0, 3, 6, 8, 10]


def test_distributed_dataset_splits_each_global_batch_in_order():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    ds = keras.data.Dataset.range(10).batch(4)
    dist = strategy.experimental_distribute_dataset(ds)
    steps = [[list(v) for v in batch.values] for batch in dist]
    assert steps == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]]
    assert dist.cardinality() == 3


def test_datasets_from_function_and_input_context():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    seen = []

    def dataset_fn(ctx):
        seen.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        per_replica = ctx.get_per_replica_batch_size(4)
        return keras.data.Dataset.range(8).shard(ctx.num_input_pipelines,
                                                 ctx.input_pipeline_id).batch(2 * per_replica)

    dist = strategy.distribute_datasets_from_function(dataset_fn)
    assert seen == [(1, 0, 2)]
    assert [[list(v) for v in b.values] for b in dist] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    with pytest.raises(ValueError, match="global_batch_size` 5 is not divisible by "
                                         "`num_replicas_in_sync` 2"):
        keras.distribute.InputContext(1, 0, 2).get_per_replica_batch_size(5)


def test_extended_and_cluster_info_of_a_local_strategy():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    assert strategy.extended.should_checkpoint and strategy.extended.should_save_summary
    assert strategy.extended.worker_devices == ("cpu:0", "cpu:1")
    assert strategy.cluster_resolver is None


def test_replica_all_reduce_and_second_update_are_refused():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    with strategy.scope():
        variable = keras.layers.Dense(1)
        variable.build((None, 2))
        optimizer = keras.optimizers.SGD(0.1)
    with pytest.raises(NotImplementedError, match="strategy.reduce"):
        strategy.run(lambda: keras.distribute.get_replica_context().all_reduce("SUM", 1.0))

    def two_updates():
        grads = [keras.ops.ones_like(v) for v in variable.trainable_variables]
        optimizer.apply_gradients(zip(grads, variable.trainable_variables))
        optimizer.apply_gradients(zip(grads, variable.trainable_variables))

    with pytest.raises(NotImplementedError, match="Only one optimizer update"):
        strategy.run(two_updates)


def test_model_built_outside_the_scope_is_refused():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with strategy.scope():
        model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="created outside `strategy.scope\\(\\)`"):
        model.fit(np.zeros((4, 3)), np.zeros((4, 2)), verbose=0)


def test_model_exposes_its_strategy():
    strategy = keras.distribute.MirroredStrategy(CPU2)
    with strategy.scope():
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert model.distribute_strategy is strategy
    plain = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert plain.distribute_strategy.num_replicas_in_sync == 1
