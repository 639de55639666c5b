"""`keras.distribute.experimental`: TensorFlow's experimental names."""
from kerasish.distribute import coordinator
from kerasish.distribute.multi_worker_mirrored_strategy import (CommunicationImplementation,
                                                                CommunicationOptions,
                                                                MultiWorkerMirroredStrategy)
from kerasish.distribute.parameter_server_strategy import ParameterServerStrategy

__all__ = ["CommunicationImplementation", "CommunicationOptions", "MultiWorkerMirroredStrategy",
           "ParameterServerStrategy", "coordinator"]
