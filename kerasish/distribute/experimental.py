"""`keras.distribute.experimental`: TensorFlow's experimental names."""
from kerasish.distribute.multi_worker_mirrored_strategy import (CommunicationImplementation,
                                                                CommunicationOptions,
                                                                MultiWorkerMirroredStrategy)

__all__ = ["CommunicationImplementation", "CommunicationOptions", "MultiWorkerMirroredStrategy"]
