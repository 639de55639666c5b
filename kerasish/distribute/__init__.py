"""kerasish.distribute: data-parallel training (tf.distribute's API).

    strategy = keras.distribute.MirroredStrategy(["cpu:0", "cpu:1"])  # or GPUs
    strategy = keras.distribute.MultiWorkerMirroredStrategy()         # under mpiexec
    strategy = keras.distribute.ParameterServerStrategy()             # async, mpiexec -n 3+
    with strategy.scope():
        model = make_model()
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=64)  # 64 is the global batch

See docs/distributed_training.md.
"""
from kerasish.distribute import coordinator, distribute_lib, experimental, mirrored_strategy
from kerasish.distribute.cluster_coordinator import DatasetCreator
from kerasish.distribute.cross_device_ops import (CrossDeviceOps, HierarchicalCopyAllReduce,
                                                  NcclAllReduce, ReductionToOneDevice)
from kerasish.distribute.distribute_lib import (ReplicaContext, get_replica_context,
                                                in_cross_replica_context)
from kerasish.distribute.input_lib import DistributedDataset, InputContext, InputOptions
from kerasish.distribute.mirrored_strategy import MirroredStrategy, OneDeviceStrategy
from kerasish.distribute.multi_worker_mirrored_strategy import (MPIClusterResolver,
                                                                MultiWorkerMirroredStrategy)
from kerasish.distribute.parameter_server_strategy import ParameterServerStrategy
from kerasish.distribute.strategy import Strategy, StrategyExtended
from kerasish.distribute.values import PerReplica, ReduceOp

DistributedValues = PerReplica


def get_strategy():
    """The strategy of the innermost `scope()`, else the default one-device strategy.

    Returns:
        Strategy.

    Example:
        >>> keras.distribute.get_strategy().num_replicas_in_sync
        1
    """
    return distribute_lib.current_strategy() or mirrored_strategy.default_strategy()


def has_strategy():
    """True inside a (non-default) strategy's `scope()`."""
    return distribute_lib.current_strategy() is not None


__all__ = [
    "CrossDeviceOps", "DatasetCreator", "DistributedDataset", "DistributedValues",
    "HierarchicalCopyAllReduce",
    "InputContext", "InputOptions", "MPIClusterResolver", "MirroredStrategy",
    "MultiWorkerMirroredStrategy", "NcclAllReduce", "OneDeviceStrategy",
    "ParameterServerStrategy", "PerReplica",
    "ReduceOp", "ReductionToOneDevice", "ReplicaContext", "Strategy", "StrategyExtended",
    "coordinator", "experimental", "get_replica_context", "get_strategy", "has_strategy",
    "in_cross_replica_context",
]
