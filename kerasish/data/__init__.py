"""kerasish.data: a tf.data-style input pipeline on numpy.

    from kerasish import data
    ds = (data.Dataset.from_tensor_slices((x, y))
          .shuffle(1000, seed=0)
          .map(augment, num_parallel_calls=data.AUTOTUNE)
          .batch(32)
          .prefetch(data.AUTOTUNE))

Only the standard library, numpy and (lazily) h5py are used here.
"""
from kerasish.data.constants import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from kerasish.data.crc import crc32c, masked_crc32c
from kerasish.data.dataset import Dataset
from kerasish.data.example_proto import (FixedLenFeature, VarLenFeature, make_example,
                                         parse_example, parse_single_example)
from kerasish.data.hdf5_source import HDF5Dataset
from kerasish.data.iterator import DatasetIterator
from kerasish.data.py_dataset import PyDataset
from kerasish.data.tensor_spec import DatasetSpec, TensorSpec
from kerasish.data.tfrecord import (DataLossError, TFRecordDataset, TFRecordWriter,
                                    read_records, write_records)

__all__ = [
    "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
    "Dataset", "DatasetIterator", "DatasetSpec", "TensorSpec",
    "TFRecordDataset", "TFRecordWriter", "DataLossError", "read_records", "write_records",
    "FixedLenFeature", "VarLenFeature", "make_example", "parse_example",
    "parse_single_example", "HDF5Dataset", "PyDataset", "crc32c", "masked_crc32c",
]
