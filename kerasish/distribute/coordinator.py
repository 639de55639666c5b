"""`keras.distribute.coordinator` (TensorFlow's `tf.distribute.coordinator`)."""
from kerasish.distribute.cluster_coordinator import (ClusterCoordinator, PerWorkerValues,
                                                     RemoteValue)

__all__ = ["ClusterCoordinator", "PerWorkerValues", "RemoteValue"]
