"""`keras.preprocessing.sequence`: `pad_sequences`."""
from kerasish.utils.sequence_utils import pad_sequences

__all__ = ["pad_sequences"]
