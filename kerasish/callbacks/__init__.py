"""Callbacks: objects that hook into `fit`, `evaluate` and `predict`.

    keras.callbacks.EarlyStopping(monitor="val_loss", patience=3)
"""
from kerasish.callbacks.backup_and_restore import BackupAndRestore
from kerasish.callbacks.callback import Callback
from kerasish.callbacks.callback_list import CallbackList
from kerasish.callbacks.csv_logger import CSVLogger
from kerasish.callbacks.early_stopping import EarlyStopping
from kerasish.callbacks.history import History
from kerasish.callbacks.lambda_callback import LambdaCallback
from kerasish.callbacks.learning_rate_scheduler import LearningRateScheduler
from kerasish.callbacks.model_checkpoint import ModelCheckpoint
from kerasish.callbacks.monitor_callback import MonitorCallback
from kerasish.callbacks.progbar_logger import ProgbarLogger
from kerasish.callbacks.reduce_lr_on_plateau import ReduceLROnPlateau
from kerasish.callbacks.remote_monitor import RemoteMonitor
from kerasish.callbacks.swap_ema_weights import SwapEMAWeights
from kerasish.callbacks.tensorboard import TensorBoard
from kerasish.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = [
    "BackupAndRestore", "CSVLogger", "Callback", "CallbackList", "EarlyStopping", "History",
    "LambdaCallback", "LearningRateScheduler", "ModelCheckpoint", "MonitorCallback",
    "ProgbarLogger", "ReduceLROnPlateau", "RemoteMonitor", "SwapEMAWeights", "TensorBoard",
    "TerminateOnNaN",
]
