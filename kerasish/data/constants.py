"""Sentinel values shared by the pipeline, with tf.data's numbers."""

AUTOTUNE = -1
"""Let the pipeline pick a parallelism or buffer size (see `autotune.py`)."""

INFINITE_CARDINALITY = -1
"""`Dataset.cardinality()` of a dataset that never ends (e.g. `repeat()`)."""

UNKNOWN_CARDINALITY = -2
"""`Dataset.cardinality()` when the length cannot be known without iterating."""
